"""CHOPRetriever reads the models ingested after it was built (InMemoryVectorStore, embedded Chroma, local Qdrant).

The catalog read back from the store is read again before a query when the store's number of chunks
changed; a catalog or reader given, or ``catalog_refresh=None``, is kept as it is. A store with no
``chop_model`` value logs one warning, when the retriever is built, never per query.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from pydantic import ValidationError

import chop_integrations.langchain._retriever as retriever_module
from chop_integrations import QueryReader, SignatureCatalog
from chop_integrations.langchain import CHOPDocumentTransformer, CHOPRetriever, catalog_from_vectorstore

TEXTS = ["{model} camera manual.", "Charging takes two hours.", "The lamp turns green when full."]
QUESTION = "How long does charging take on the KX-300?"


def manual(model: str) -> list[Document]:
    """One camera manual's chunks, signed by CHOP, as they are added to a store."""
    docs = [Document(text.format(model=model), metadata={"source": f"{model.lower()}.txt"}) for text in TEXTS]
    return list(CHOPDocumentTransformer().transform_documents(docs))


def _memory(tmp_path: Path) -> Iterator[VectorStore]:
    yield InMemoryVectorStore(DeterministicFakeEmbedding(size=16))


def _chroma(tmp_path: Path) -> Iterator[VectorStore]:
    import chromadb
    from langchain_chroma import Chroma

    client = chromadb.PersistentClient(
        path=str(tmp_path / "chroma"), settings=chromadb.Settings(anonymized_telemetry=False)
    )
    yield Chroma("manuals", DeterministicFakeEmbedding(size=16), client=client)
    chromadb.api.client.SharedSystemClient.clear_system_cache()


def _qdrant(tmp_path: Path) -> Iterator[VectorStore]:
    from langchain_qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(tmp_path / "qdrant"))
    client.create_collection("manuals", vectors_config=models.VectorParams(size=16, distance=models.Distance.COSINE))
    try:
        yield QdrantVectorStore(client, "manuals", DeterministicFakeEmbedding(size=16))
    finally:
        client.close()


@pytest.fixture(params=["memory", "chroma", "qdrant"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    yield from {"memory": _memory, "chroma": _chroma, "qdrant": _qdrant}[request.param](tmp_path)


def _models(hits: list[Document]) -> set[str]:
    return {d.metadata["chop_model"] for d in hits}


def test_a_model_ingested_after_the_retriever_was_built_is_read_and_filtered(store: VectorStore) -> None:
    store.add_documents(manual("KX-200"))
    retriever = CHOPRetriever(vectorstore=store, k=10)
    before = retriever.invoke(QUESTION)
    assert {d.metadata["chop_query_model"] for d in before} == {""}  # the KX-300 is not in the store yet
    store.add_documents(manual("KX-300"))
    hits = retriever.invoke(QUESTION)
    assert len(hits) == 3 and _models(hits) == {"KX-300"}
    assert {d.metadata["chop_query_model"] for d in hits} == {"KX-300"}
    assert retriever.reader is not None and set(retriever.reader.models) == {"KX-200", "KX-300"}


async def test_the_async_path_reads_the_new_model_too(store: VectorStore) -> None:
    store.add_documents(manual("KX-200"))
    retriever = CHOPRetriever(vectorstore=store, k=10)
    await store.aadd_documents(manual("KX-300"))
    hits = await retriever.ainvoke(QUESTION)
    assert len(hits) == 3 and _models(hits) == {"KX-300"}


def test_a_retriever_built_on_an_empty_store_warns_once_and_reads_what_comes(
    store: VectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        retriever = CHOPRetriever(vectorstore=store, k=10)
        assert retriever.invoke(QUESTION) == []
        store.add_documents([Document("Notes without a signature.", metadata={"source": "notes.txt"})])
        assert {d.metadata["chop_query_model"] for d in retriever.invoke(QUESTION)} == {""}  # still no model
        assert {d.metadata["chop_query_model"] for d in retriever.invoke(QUESTION)} == {""}
    (warning,) = caplog.records  # at build time, not again per query nor per reading that still finds none
    assert warning.name == "chop_integrations" and warning.levelno == logging.WARNING
    message = warning.getMessage()
    assert message.startswith(f"no chunk in the {type(store).__name__} carries chop_model")
    assert "CHOPDocumentTransformer" in message and "catalog=" in message
    store.add_documents(manual("KX-200") + manual("KX-300"))
    assert _models(retriever.invoke(QUESTION)) == {"KX-300"}


def test_an_unchanged_store_is_not_read_again(store: VectorStore, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []

    def counted(vectorstore: VectorStore) -> SignatureCatalog:
        reads.append(1)
        return catalog_from_vectorstore(vectorstore)

    monkeypatch.setattr(retriever_module, "catalog_from_vectorstore", counted)
    store.add_documents(manual("KX-200"))
    retriever = CHOPRetriever(vectorstore=store, k=2)
    for _ in range(5):
        retriever.invoke(QUESTION)
    assert len(reads) == 1
    store.add_documents(manual("KX-300"))
    for _ in range(5):
        retriever.invoke(QUESTION)
    assert len(reads) == 2  # read again once, for the one change


def test_a_catalog_or_reader_given_or_refresh_off_is_never_read_again(
    store: VectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.add_documents(manual("KX-200"))
    retrievers = [
        CHOPRetriever(vectorstore=store, catalog=SignatureCatalog(["KX-200"]), k=10),
        CHOPRetriever(vectorstore=store, reader=QueryReader(["KX-200"]), k=10),
        CHOPRetriever(vectorstore=store, catalog_refresh=None, k=10),
    ]
    store.add_documents(manual("KX-300"))
    for retriever in retrievers:
        hits = retriever.invoke(QUESTION)
        assert _models(hits) == {"KX-200", "KX-300"}, retriever  # the KX-300 is not known: the plain search
        assert retriever.reader is not None and retriever.reader.models == ["KX-200"]
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        CHOPRetriever(vectorstore=store, catalog=SignatureCatalog(), k=10)
    (warning,) = caplog.records
    assert "the catalog given (catalog=)" in warning.getMessage()


def test_a_negative_catalog_refresh_is_refused() -> None:
    with pytest.raises(ValidationError):
        CHOPRetriever(vectorstore=InMemoryVectorStore(DeterministicFakeEmbedding(size=16)), catalog_refresh=-1)


def test_aliases_are_read_back_from_the_store(store: VectorStore) -> None:
    chunks = manual("KX-300")
    for chunk in chunks:
        chunk.metadata["chop_aliases"] = "Kamera X 300 | KX300 Pro"
    store.add_documents(chunks)
    catalog = catalog_from_vectorstore(store)
    assert catalog.aliases == {"Kamera X 300": "KX-300", "KX300 Pro": "KX-300"}
