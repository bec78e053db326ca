"""End to end at query time: near-identical manuals -> CHOPDocumentTransformer -> three vector stores -> CHOPRetriever.

The three demo manuals (Frostvale FV-225B, FV-310B, FV-410X) share most of their text. They are chunked,
signed and ingested, with the prefix in ``page_content`` (the default), into ``InMemoryVectorStore``,
Qdrant's local mode and a Chroma ``PersistentClient``; Qdrant and Chroma are closed and reopened from disk.
Then the retriever must keep a named model's chunks only (filter), lead with them (boost), leave a
question naming no model to the plain search, give back the original text, and widen a hit to its
section run exactly as :func:`section_run` says, sync, async and inside LCEL chains. Offline: a small
hashing embedder, no model download.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from chop_integrations import SignatureCatalog, section_run
from chop_integrations._demo import load_samples
from chop_integrations._errors import InputError
from chop_integrations._text.tokens import tiktoken_counter
from chop_integrations.langchain import (
    CHOPDocumentTransformer,
    CHOPRetriever,
    LumberChunkerTextSplitter,
    catalog_from_vectorstore,
)
from tests.support.hashing_embeddings import HashingEmbeddings

MODELS = ("Frostvale FV-225B", "Frostvale FV-310B", "Frostvale FV-410X")
QUESTION = "What does error code E3 mean on the {model}?"
PLAIN = "What does error code E3 mean?"


@pytest.fixture(scope="module")
def signed() -> list[Document]:
    docs = [Document(s.text, metadata=s.metadata) for s in load_samples()]
    chunks = LumberChunkerTextSplitter(max_tokens=50, add_start_index=True).split_documents(docs)
    out = list(CHOPDocumentTransformer().transform_documents(chunks))
    assert {d.metadata["chop_model"] for d in out} == set(MODELS)
    assert all(d.page_content == d.metadata["chop_prefix"] + d.metadata["chop_text"] for d in out)
    assert any(d.metadata["chop_continues"] for d in out)  # section runs exist to widen
    return out


def _memory(signed: list[Document], tmp_path: Path) -> Iterator[VectorStore]:
    store = InMemoryVectorStore(HashingEmbeddings())
    store.add_documents(signed)
    yield store


def _qdrant(signed: list[Document], tmp_path: Path) -> Iterator[VectorStore]:
    from langchain_qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(tmp_path / "qdrant"))
    client.create_collection("manuals", vectors_config=models.VectorParams(size=256, distance=models.Distance.COSINE))
    QdrantVectorStore(client, "manuals", HashingEmbeddings()).add_documents(signed)
    client.close()
    reopened = QdrantClient(path=str(tmp_path / "qdrant"))  # only what was persisted
    try:
        yield QdrantVectorStore(reopened, "manuals", HashingEmbeddings())
    finally:
        reopened.close()


def _chroma(signed: list[Document], tmp_path: Path) -> Iterator[VectorStore]:
    import chromadb
    from langchain_chroma import Chroma

    path = str(tmp_path / "chroma")
    settings = chromadb.Settings(anonymized_telemetry=False)
    first = chromadb.PersistentClient(path=path, settings=settings)
    Chroma("manuals", HashingEmbeddings(), client=first).add_documents(signed)
    chromadb.api.client.SharedSystemClient.clear_system_cache()  # forget the open client: reopen from disk
    yield Chroma("manuals", HashingEmbeddings(), client=chromadb.PersistentClient(path=path, settings=settings))
    chromadb.api.client.SharedSystemClient.clear_system_cache()


@pytest.fixture(params=["memory", "qdrant", "chroma"])
def store(request: pytest.FixtureRequest, signed: list[Document], tmp_path: Path) -> Iterator[VectorStore]:
    yield from {"memory": _memory, "qdrant": _qdrant, "chroma": _chroma}[request.param](signed, tmp_path)


def _where(docs: list[Document]) -> list[tuple[str, int]]:
    return [(d.metadata["chop_document"], d.metadata["chop_index"]) for d in docs]


def _assert_original(docs: list[Document]) -> None:
    for doc in docs:
        assert doc.page_content == doc.metadata["chop_text"]
        assert not doc.page_content.startswith(doc.metadata["chop_prefix"])


# -- filter, boost, plain ------------------------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
def test_filter_keeps_only_the_named_models_chunks(store: VectorStore, model: str) -> None:
    retriever = CHOPRetriever(vectorstore=store, k=5)
    hits = retriever.invoke(QUESTION.format(model=model))
    assert len(hits) == 5
    assert {d.metadata["chop_model"] for d in hits} == {model}
    assert {d.metadata["chop_query_model"] for d in hits} == {model}
    _assert_original(hits)
    # the plain search, over the same store, mixes the manuals: the filter is what made the difference
    plain = store.similarity_search(QUESTION.format(model=model), k=15)
    assert len({d.metadata["chop_model"] for d in plain}) > 1


def test_a_question_naming_no_model_gets_exactly_the_plain_search(store: VectorStore) -> None:
    for mode in ("filter", "boost"):
        hits = CHOPRetriever(vectorstore=store, k=6, mode=mode).invoke(PLAIN)
        plain = store.similarity_search(PLAIN, k=6)
        assert _where(hits) == _where(plain)
        assert [d.page_content for d in hits] == [d.metadata["chop_text"] for d in plain]
        assert {d.metadata["chop_query_model"] for d in hits} == {""}


def test_boost_puts_the_named_models_chunks_first_then_the_rest(store: VectorStore, signed: list[Document]) -> None:
    model = MODELS[1]
    own = sum(d.metadata["chop_model"] == model for d in signed)
    k = own + 5
    hits = CHOPRetriever(vectorstore=store, k=k, mode="boost").invoke(QUESTION.format(model=model))
    assert len(hits) == k and len(set(_where(hits))) == k  # k in all, none twice
    assert [d.metadata["chop_model"] == model for d in hits] == [True] * own + [False] * 5
    _assert_original(hits)


async def test_async_gives_what_sync_gives(store: VectorStore) -> None:
    for mode in ("filter", "boost"):
        retriever = CHOPRetriever(vectorstore=store, k=4, mode=mode, context_tokens=120)
        for question in (QUESTION.format(model=MODELS[2]), PLAIN):
            sync = retriever.invoke(question)
            assert [(d.page_content, d.metadata) for d in await retriever.ainvoke(question)] == [
                (d.page_content, d.metadata) for d in sync
            ]


def test_works_in_lcel_chains(store: VectorStore) -> None:
    retriever = CHOPRetriever(vectorstore=store, k=3)

    def format_docs(docs: list[Document]) -> str:
        return "\n\n".join(f"[{d.metadata['chop_model']}] {d.page_content}" for d in docs)

    question = QUESTION.format(model=MODELS[0])
    context = (retriever | RunnableLambda(format_docs)).invoke(question)
    assert context.count(f"[{MODELS[0]}]") == 3 and MODELS[1] not in context
    both = RunnableParallel(context=retriever | format_docs, question=RunnablePassthrough()).invoke(question)
    assert both == {"context": context, "question": question}
    assert (retriever | format_docs).batch([question, PLAIN])[0] == context


# -- the known values: read back from the store, or saved beside it ---------------------------------------


def test_the_catalog_read_back_from_the_store_is_what_ingestion_emitted(
    store: VectorStore, signed: list[Document], tmp_path: Path
) -> None:
    emitted = SignatureCatalog.from_metadata(d.metadata for d in signed)
    assert catalog_from_vectorstore(store) == emitted
    assert set(emitted.models) == set(MODELS) and sum(emitted.models.values()) == len(signed)
    emitted.save(tmp_path / "catalog.json")  # saved beside the store at ingestion
    saved = CHOPRetriever(vectorstore=store, catalog=SignatureCatalog.load(tmp_path / "catalog.json"), k=4)
    read_back = CHOPRetriever(vectorstore=store, k=4)
    question = QUESTION.format(model=MODELS[1])
    assert _where(saved.invoke(question)) == _where(read_back.invoke(question))
    assert {d.metadata["chop_model"] for d in saved.invoke(question)} == {MODELS[1]}


def test_a_catalog_missing_a_model_cannot_filter_by_it(store: VectorStore) -> None:
    partial = SignatureCatalog({MODELS[0]: 1})
    question = QUESTION.format(model=MODELS[2])
    hits = CHOPRetriever(vectorstore=store, catalog=partial, k=6).invoke(question)
    assert _where(hits) == _where(store.similarity_search(question, k=6))


# -- context by continuity -------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [60, 150, 400])
def test_context_widens_each_hit_to_its_section_run(store: VectorStore, signed: list[Document], budget: int) -> None:
    by_document: dict[str, list[Document]] = {}
    for doc in signed:
        by_document.setdefault(doc.metadata["chop_document"], []).append(doc)
    count = tiktoken_counter()
    retriever = CHOPRetriever(vectorstore=store, k=6, context_tokens=budget)
    hits = retriever.invoke("How do I clean the air filter of the Frostvale FV-310B?")
    assert hits  # else the loop below checks nothing
    widened = 0
    for hit in hits:
        chunks = by_document[hit.metadata["chop_document"]]
        expected = section_run(
            [c.metadata["chop_continues"] for c in chunks],
            [count(c.metadata["chop_text"]) for c in chunks],
            hit.metadata["chop_index"],
            budget,
        )
        assert hit.metadata["chop_context_indices"] == list(expected)
        assert hit.page_content == "".join(chunks[i].metadata["chop_text"] for i in expected)  # lossless pieces
        assert hit.metadata["chop_model"] == "Frostvale FV-310B"
        assert len(hit.metadata["chop_context_ids"]) == len(expected)
        assert hit.metadata["chop_index"] in expected
        tokens = [count(chunks[i].metadata["chop_text"]) for i in expected]
        assert len(expected) == 1 or sum(tokens) <= budget  # neighbours are added only within the budget
        widened += len(expected) > 1
    if budget >= 150:  # some hit has neighbours within 150 tokens (at 60 none may: a heading shares its body's chunk)
        assert widened
    held = [(h.metadata["chop_document"], i) for h in hits for i in h.metadata["chop_context_indices"]]
    assert len(held) == len(set(held))  # no chunk returned twice


# -- any other store: over-fetch and filter on the client -------------------------------------------------


class OtherStore(VectorStore):
    """A store this package does not know by name (it wraps an in-memory one)."""

    def __init__(self, inner: InMemoryVectorStore) -> None:
        self.inner = inner

    def add_texts(self, texts: Any, metadatas: Any = None, **kwargs: Any) -> list[str]:
        raise NotImplementedError

    @classmethod
    def from_texts(cls, texts: Any, embedding: Any, metadatas: Any = None, **kwargs: Any) -> OtherStore:
        raise NotImplementedError

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        assert "filter" not in kwargs  # the retriever knows this store has no filter it can build
        return self.inner.similarity_search(query, k=k)


def test_another_store_is_filtered_on_the_client(signed: list[Document], tmp_path: Path) -> None:
    inner = next(_memory(signed, tmp_path))
    other = OtherStore(inner)
    with pytest.raises(InputError, match="catalog"):
        CHOPRetriever(vectorstore=other)
    catalog = catalog_from_vectorstore(inner)
    question = QUESTION.format(model=MODELS[0])
    native = CHOPRetriever(vectorstore=inner, k=4).invoke(question)
    client_side = CHOPRetriever(vectorstore=other, catalog=catalog, k=4, fetch_k=len(signed)).invoke(question)
    assert _where(client_side) == _where(native)
    few = CHOPRetriever(vectorstore=other, catalog=catalog, k=4, fetch_k=4).invoke(question)
    assert len(few) <= 4 and {d.metadata["chop_model"] for d in few} <= {MODELS[0]}
    context = CHOPRetriever(vectorstore=other, catalog=catalog, k=2, fetch_k=60, context_tokens=300).invoke(question)
    assert [d.metadata["chop_context_indices"] for d in context] == [[d.metadata["chop_index"]] for d in context]
