"""The synthetic Nimbus manuals (:mod:`tests.support.manuals`), signed by CHOP, in two LlamaIndex indexes.

Shared by the LlamaIndex contract tests: each manual is split by ``SentenceSplitter`` into four nodes,
signed by ``CHOPExtractor`` (the offline deciders) and indexed by a ``VectorStoreIndex`` over the default
``SimpleVectorStore`` or over Qdrant's in-memory mode, always with ``MockEmbedding`` (every text the same
vector: the ranking is the store's order among ties, so only the model condition orders what comes back).
Offline, a fraction of a second.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import BaseNode

from chop_integrations.llama_index import CHOPExtractor
from tests.support.manuals import MODELS, manual, source

#: Nodes each manual is split into.
NODES_PER_MANUAL = 4
STORE_KINDS = ("simple", "qdrant")


@functools.cache
def signed() -> tuple[BaseNode, ...]:
    """The three manuals, split and signed (``chop_model`` and the rest in each node's metadata)."""
    docs = [Document(text=manual(model), doc_id=model, metadata={"source": source(model)}) for model in MODELS]
    parse = IngestionPipeline(transformations=[SentenceSplitter(chunk_size=64, chunk_overlap=0), CHOPExtractor()])
    nodes = tuple(parse.run(documents=docs))
    assert [n.metadata["chop_model"] for n in nodes] == [m for m in MODELS for _ in range(NODES_PER_MANUAL)]
    return nodes


def embed_model() -> MockEmbedding:
    """The embedding every index here uses: the same vector for every text, offline."""
    return MockEmbedding(embed_dim=8)


@contextmanager
def open_index(kind: str, nodes: list[BaseNode] | None = None) -> Iterator[VectorStoreIndex]:
    """A ``VectorStoreIndex`` over a ``kind`` store (``"simple"``, ``"qdrant"``) holding ``nodes`` (default: all).

    With no nodes, a Qdrant collection is never created (LlamaIndex creates it with the first nodes).
    """
    nodes = [n.model_copy() for n in signed()] if nodes is None else nodes
    if kind == "simple":
        yield VectorStoreIndex(nodes, embed_model=embed_model())
        return
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    client = QdrantClient(location=":memory:")
    store = QdrantVectorStore(client=client, collection_name=f"manuals-{uuid.uuid4().hex[:8]}")
    try:
        yield VectorStoreIndex(
            nodes, storage_context=StorageContext.from_defaults(vector_store=store), embed_model=embed_model()
        )
    finally:
        client.close()
