"""CHOPRetriever and CHOPBoostPostprocessor read the models inserted after they were built.

The values read back from the index are read again before a query when its number of nodes changed
(``VectorStoreIndex`` in memory or over a local Qdrant, MockEmbedding), or after ``catalog_refresh``
seconds for a source whose size is not told cheaply (a docstore); values given are kept. An index with
no ``chop_model`` value logs one warning, when the component is built, never per query.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from li_query_support import documents
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.schema import BaseNode, NodeWithScore, QueryBundle, TextNode
from llama_index.core.storage.docstore import SimpleDocumentStore

import chop_integrations.llama_index._catalog as catalog_module
from chop_integrations import ConfigurationError, QueryReader, SignatureCatalog
from chop_integrations.llama_index import (
    CHOPBoostPostprocessor,
    CHOPExtractor,
    CHOPRetriever,
    LumberChunkerNodeParser,
    catalog_from_index,
)

EMBED = MockEmbedding(embed_dim=8)
MANUALS = {doc.doc_id: doc for doc in documents()}  # AP-200, AP-300, AP-300 Pro, AP-500
QUESTION = "How many minutes should the water run after a new cartridge in the AquaPure AP-500?"


def manual(model: str) -> list[BaseNode]:
    """One manual's nodes, chunked, signed by CHOP and embedded."""
    pipeline = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=30), CHOPExtractor(), EMBED])
    return list(pipeline.run(documents=[MANUALS[model]]))


def index_of(*models: str) -> VectorStoreIndex:
    return VectorStoreIndex([node for model in models for node in manual(model)], embed_model=EMBED)


def models_of(hits: list[NodeWithScore]) -> set[str]:
    return {hit.node.metadata["chop_model"] for hit in hits}


def test_a_model_inserted_after_the_retriever_was_built_is_read_and_filtered() -> None:
    index = index_of("AP-200", "AP-300")
    retriever = CHOPRetriever(index, similarity_top_k=50)
    assert models_of(retriever.retrieve(QUESTION)) == {"AquaPure AP-200", "AquaPure AP-300"}  # not known: plain
    index.insert_nodes(manual("AP-500"))
    hits = retriever.retrieve(QUESTION)
    assert len(hits) == 8 and models_of(hits) == {"AquaPure AP-500"}
    assert "AquaPure AP-500" in retriever.reader.models


async def test_the_async_path_reads_the_new_model_too() -> None:
    index = index_of("AP-200")
    retriever = CHOPRetriever(index, similarity_top_k=50)
    index.insert_nodes(manual("AP-500"))
    assert models_of(await retriever.aretrieve(QUESTION)) == {"AquaPure AP-500"}


def test_an_empty_index_warns_once_and_reads_what_comes(caplog: pytest.LogCaptureFixture) -> None:
    index = VectorStoreIndex([], embed_model=EMBED)
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        retriever = CHOPRetriever(index, similarity_top_k=50)
        assert retriever.retrieve(QUESTION) == []
        index.insert_nodes([TextNode(text="Notes without a signature.", embedding=[0.5] * 8)])
        assert len(retriever.retrieve(QUESTION)) == 1  # read again: still no model, no second warning
        retriever.retrieve(QUESTION)
    (warning,) = caplog.records
    assert warning.name == "chop_integrations" and warning.levelno == logging.WARNING
    message = warning.getMessage()
    assert message.startswith("no chunk in the VectorStoreIndex carries chop_model")
    assert "CHOPExtractor" in message and "catalog=" in message
    index.insert_nodes(manual("AP-500") + manual("AP-200"))
    assert models_of(retriever.retrieve(QUESTION)) == {"AquaPure AP-500"}


def test_an_unchanged_index_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []

    def counted(source: object) -> SignatureCatalog:
        reads.append(1)
        return catalog_from_index(source)

    monkeypatch.setattr(catalog_module, "catalog_from_index", counted)
    index = index_of("AP-200")
    retriever = CHOPRetriever(index, similarity_top_k=3)
    for _ in range(5):
        retriever.retrieve(QUESTION)
    assert len(reads) == 1
    index.insert_nodes(manual("AP-500"))
    for _ in range(5):
        retriever.retrieve(QUESTION)
    assert len(reads) == 2


def test_values_given_or_refresh_off_are_never_read_again() -> None:
    index = index_of("AP-200")
    retrievers = [
        CHOPRetriever(index, catalog=SignatureCatalog(["AquaPure AP-200"]), similarity_top_k=50),
        CHOPRetriever(index, reader=QueryReader(["AquaPure AP-200"]), similarity_top_k=50),
        CHOPRetriever(index, catalog_refresh=None, similarity_top_k=50),
    ]
    index.insert_nodes(manual("AP-500"))
    for retriever in retrievers:
        assert models_of(retriever.retrieve(QUESTION)) == {"AquaPure AP-200", "AquaPure AP-500"}
        assert retriever.reader.models == ["AquaPure AP-200"]
    with pytest.raises(ConfigurationError):
        CHOPRetriever(index, catalog_refresh=-1)


def test_the_boost_postprocessor_reads_the_new_model() -> None:
    index = index_of("AP-200")
    boost = CHOPBoostPostprocessor(index=index)
    index.insert_nodes(manual("AP-500"))
    hits = [NodeWithScore(node=node, score=1.0) for node in [*manual("AP-200")[:2], *manual("AP-500")[:2]]]
    reordered = boost.postprocess_nodes(hits, query_bundle=QueryBundle(QUESTION))
    assert [hit.node.metadata["chop_model"] for hit in reordered][:2] == ["AquaPure AP-500"] * 2
    assert "AquaPure AP-500" in boost.reader.models


async def test_a_docstore_without_a_size_is_read_again_after_the_interval() -> None:
    docstore = SimpleDocumentStore()
    docstore.add_documents(manual("AP-200"))
    boost = CHOPBoostPostprocessor(index=docstore, catalog_refresh=0)  # read before every query
    docstore.add_documents(manual("AP-500"))
    hits = [NodeWithScore(node=node, score=1.0) for node in [*manual("AP-200")[:1], *manual("AP-500")[:1]]]
    reordered = await boost.apostprocess_nodes(hits, query_bundle=QueryBundle(QUESTION))
    assert [hit.node.metadata["chop_model"] for hit in reordered] == ["AquaPure AP-500", "AquaPure AP-200"]
    kept = CHOPBoostPostprocessor(index=docstore)  # the default interval has not passed: the values it read
    docstore.add_documents(manual("AP-300"))
    kept.postprocess_nodes(hits, query_bundle=QueryBundle("AquaPure AP-300?"))
    assert "AquaPure AP-300" not in kept.reader.models


def test_an_empty_catalog_given_to_the_postprocessor_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        CHOPBoostPostprocessor(catalog=SignatureCatalog())
        CHOPBoostPostprocessor(catalog=SignatureCatalog(["AquaPure AP-200"]))
    (warning,) = caplog.records
    assert "the catalog given (catalog=)" in warning.getMessage()


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")
def test_a_qdrant_collection_is_read_again_when_its_point_count_changed(tmp_path: Path) -> None:
    qdrant_client = pytest.importorskip("qdrant_client")
    qdrant_store = pytest.importorskip("llama_index.vector_stores.qdrant")
    client = qdrant_client.QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        store = qdrant_store.QdrantVectorStore(client=client, collection_name="manuals")
        context = StorageContext.from_defaults(vector_store=store)
        index = VectorStoreIndex(manual("AP-200"), storage_context=context, embed_model=EMBED)
        retriever = CHOPRetriever(index, similarity_top_k=50)
        index.insert_nodes(manual("AP-500"))
        assert not index.docstore.docs  # read from the collection's payloads
        assert models_of(retriever.retrieve(QUESTION)) == {"AquaPure AP-500"}
    finally:
        client.close()
