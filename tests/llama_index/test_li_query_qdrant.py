"""The query-time components over Qdrant's local mode (a store that keeps the text: the docstore stays empty).

The known values are read back from the collection's payloads, the filter is Qdrant's own, and the
context postprocessor fetches neighbours through the vector store. The folder is reopened with a new
client first, so everything comes from disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from li_query_support import MINUTES, HashingEmbedding, ingest
from llama_index.core import StorageContext, VectorStoreIndex

from chop_integrations.llama_index import CHOPContextPostprocessor, CHOPRetriever, catalog_from_index

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")

qdrant_client = pytest.importorskip("qdrant_client")
qdrant_store = pytest.importorskip("llama_index.vector_stores.qdrant")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VectorStoreIndex]:
    folder: Path = tmp_path_factory.mktemp("qdrant")
    embed_model = HashingEmbedding(model_name="hashing")
    writer = qdrant_client.QdrantClient(path=str(folder))
    store = qdrant_store.QdrantVectorStore(client=writer, collection_name="manuals")
    VectorStoreIndex(
        ingest(embed_model), storage_context=StorageContext.from_defaults(vector_store=store), embed_model=embed_model
    )
    writer.close()
    reader = qdrant_client.QdrantClient(path=str(folder))
    reopened = qdrant_store.QdrantVectorStore(client=reader, collection_name="manuals")
    yield VectorStoreIndex.from_vector_store(reopened, embed_model=embed_model)
    reader.close()


def test_values_filter_and_context_come_from_the_qdrant_collection(index: VectorStoreIndex) -> None:
    assert not index.docstore.docs  # Qdrant keeps the text: nothing to read in the docstore
    assert catalog_from_index(index).models == {f"AquaPure {model}": 8 for model in MINUTES}

    question = "How many minutes should the water run after a new cartridge in the AquaPure AP-300 Pro?"
    hits = CHOPRetriever(index, similarity_top_k=5).retrieve(question)
    assert [hit.node.metadata["chop_model"] for hit in hits] == ["AquaPure AP-300 Pro"] * 5
    boost = CHOPRetriever(index, mode="boost", similarity_top_k=10).retrieve(question)
    assert [hit.node.metadata["chop_model"] for hit in boost][:8] == ["AquaPure AP-300 Pro"] * 8

    context = CHOPContextPostprocessor.from_index(index, budget=200)
    assert context.vector_store is index.vector_store
    top = next(hit for hit in hits if "run water for nine minutes" in hit.node.text)
    (wide,) = context.postprocess_nodes([top])
    assert wide.node.text.startswith("Replacing the filter") and "run water for nine minutes" in wide.node.text
    assert len(wide.node.metadata["chop_section_ids"]) > 1 and "Cleaning the tank" not in wide.node.text
