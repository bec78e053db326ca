"""The synthetic Nimbus manuals (:mod:`tests.support.manuals`), signed by CHOP, in three LangChain stores.

Shared by the standard retriever tests (``langchain-tests``) and the invoke-time argument tests: each
manual is split into five chunks, signed by ``CHOPDocumentTransformer`` (the offline deciders) and
ingested into ``InMemoryVectorStore``, Qdrant's in-memory mode or an ephemeral Chroma client, always
with ``DeterministicFakeEmbedding``. Offline, a fraction of a second.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

from chop_integrations.langchain import CHOPDocumentTransformer
from tests.support.manuals import CHUNKS_PER_MANUAL, MODELS, manual, source

SIZE = 64
STORE_KINDS = ("memory", "qdrant", "chroma")


@functools.cache
def signed() -> tuple[Document, ...]:
    """The three manuals, split and signed (prefix in ``page_content``, original text in ``chop_text``)."""
    docs = [Document(manual(model), metadata={"source": source(model)}) for model in MODELS]
    chunks = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0).split_documents(docs)
    out = tuple(CHOPDocumentTransformer().transform_documents(chunks))
    assert [d.metadata["chop_model"] for d in out] == [m for m in MODELS for _ in range(CHUNKS_PER_MANUAL)]
    return out


def embedding() -> DeterministicFakeEmbedding:
    """The embedding every store here uses: deterministic, offline."""
    return DeterministicFakeEmbedding(size=SIZE)


def _memory(docs: list[Document]) -> Iterator[VectorStore]:
    store = InMemoryVectorStore(embedding())
    store.add_documents(docs)
    yield store


def _qdrant(docs: list[Document]) -> Iterator[VectorStore]:
    from langchain_qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient, models

    client = QdrantClient(location=":memory:")
    client.create_collection("manuals", vectors_config=models.VectorParams(size=SIZE, distance=models.Distance.COSINE))
    store = QdrantVectorStore(client, "manuals", embedding())
    if docs:
        store.add_documents(docs)
    try:
        yield store
    finally:
        client.close()


def _chroma(docs: list[Document]) -> Iterator[VectorStore]:
    import chromadb
    from langchain_chroma import Chroma

    client = chromadb.EphemeralClient(settings=chromadb.Settings(anonymized_telemetry=False))
    name = f"manuals-{uuid.uuid4().hex[:8]}"
    store = Chroma(name, embedding(), client=client)
    if docs:
        store.add_documents(docs)
    try:
        yield store
    finally:
        client.delete_collection(name)


_BUILDERS: dict[str, Callable[[list[Document]], Iterator[VectorStore]]] = {
    "memory": _memory,
    "qdrant": _qdrant,
    "chroma": _chroma,
}


@contextmanager
def open_store(kind: str, docs: list[Document] | None = None) -> Iterator[VectorStore]:
    """A ``kind`` store (``"memory"``, ``"qdrant"``, ``"chroma"``) holding ``docs`` (default: :func:`signed`)."""
    yield from _BUILDERS[kind](list(signed()) if docs is None else docs)
