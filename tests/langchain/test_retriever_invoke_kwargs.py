"""``CHOPRetriever`` takes ``VectorStoreRetriever``'s arguments at invoke time, merged over ``search_kwargs``.

``k`` and ``fetch_k`` set the retriever's own for one call; a ``filter`` of the caller's (in the store's own
form) is kept and the named model's condition added to it; any other key reaches ``similarity_search``.
Sync and async alike, in every store, and in a store without a native filter (client-side filtering).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from chop_integrations import SignatureCatalog
from chop_integrations._errors import InputError
from chop_integrations.langchain import CHOPRetriever
from tests.langchain.lc_manuals import STORE_KINDS, open_store, signed
from tests.support.manuals import CHUNKS_PER_MANUAL, MODELS, QUESTIONS

NAMED = "Nimbus AC-14"


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest) -> Iterator[VectorStore]:
    with open_store(request.param) as opened:
        yield opened


async def _both(retriever: CHOPRetriever, question: str, **kwargs: Any) -> list[Document]:
    """The documents of ``invoke``, checked equal to those of ``ainvoke``."""
    found = retriever.invoke(question, **kwargs)
    assert [(d.page_content, d.metadata) for d in await retriever.ainvoke(question, **kwargs)] == [
        (d.page_content, d.metadata) for d in found
    ]
    return found


def _third_chunk(store: VectorStore) -> Any:
    """The store's own filter for the third chunk of each manual (``chop_index == 2``: "E1 means...")."""
    kind = type(store).__name__
    if kind == "InMemoryVectorStore":
        return lambda doc: doc.metadata["chop_index"] == 2
    if kind == "QdrantVectorStore":
        from qdrant_client import models

        return models.Filter(must=[models.FieldCondition(key="metadata.chop_index", match=models.MatchValue(value=2))])
    return {"chop_index": 2}


@pytest.mark.parametrize("mode", ["filter", "boost"])
@pytest.mark.parametrize("case", list(QUESTIONS))
async def test_k_at_invoke_overrides_the_constructors(store: VectorStore, case: str, mode: str) -> None:
    retriever = CHOPRetriever(vectorstore=store, k=2, mode=mode)
    for k in (1, 3, 4):
        assert len(await _both(retriever, QUESTIONS[case], k=k)) == k
    assert len(await _both(retriever, QUESTIONS[case])) == 2  # the constructor's k again
    named = await _both(retriever, QUESTIONS["model"], k=CHUNKS_PER_MANUAL + 2)
    models = [d.metadata["chop_model"] for d in named]
    if mode == "filter":
        assert models == [NAMED] * CHUNKS_PER_MANUAL  # all the model holds
    else:
        assert models[:CHUNKS_PER_MANUAL] == [NAMED] * CHUNKS_PER_MANUAL and len(models) == CHUNKS_PER_MANUAL + 2


async def test_search_kwargs_k_and_invoke_k() -> None:
    with open_store("memory") as store:
        retriever = CHOPRetriever(vectorstore=store, search_kwargs={"k": 1})
        assert len(await _both(retriever, QUESTIONS["model"])) == 1
        assert len(await _both(retriever, QUESTIONS["model"], k=3)) == 3


@pytest.mark.parametrize("where", ["constructor", "invoke"])
async def test_a_filter_of_ones_own_and_the_named_model_both_hold(store: VectorStore, where: str) -> None:
    own = _third_chunk(store)
    if where == "constructor":
        retriever, kwargs = CHOPRetriever(vectorstore=store, search_kwargs={"filter": own}), {}
    else:
        retriever, kwargs = CHOPRetriever(vectorstore=store), {"filter": own}
    named = await _both(retriever, QUESTIONS["model"], **kwargs)
    assert [(d.metadata["chop_model"], d.page_content[:8]) for d in named] == [(NAMED, "E1 means")]
    plain = await _both(retriever, QUESTIONS["none"], **kwargs)
    assert sorted(d.metadata["chop_model"] for d in plain) == list(MODELS)
    assert {d.page_content[:8] for d in plain} == {"E1 means"}


async def test_boost_keeps_ones_own_filter_in_both_searches(store: VectorStore) -> None:
    retriever = CHOPRetriever(vectorstore=store, mode="boost")
    found = await _both(retriever, QUESTIONS["model"], filter=_third_chunk(store))
    assert found[0].metadata["chop_model"] == NAMED
    assert sorted(d.metadata["chop_model"] for d in found) == list(MODELS)
    assert {d.page_content[:8] for d in found} == {"E1 means"}


async def test_chroma_filter_of_several_clauses_is_flattened() -> None:
    with open_store("chroma") as store:
        own = {"$and": [{"chop_index": 2}, {"source": "AC-14.txt"}]}
        found = await _both(CHOPRetriever(vectorstore=store), QUESTIONS["model"], filter=own)
        assert [(d.metadata["chop_model"], d.metadata["chop_index"]) for d in found] == [(NAMED, 2)]


class _Delegating(VectorStore):
    """A store CHOP does not know by name (no native filter): searches an ``InMemoryVectorStore``."""

    def __init__(self, inner: InMemoryVectorStore) -> None:
        self.inner = inner
        self.calls: list[dict[str, Any]] = []

    @property
    def embeddings(self) -> Embeddings:
        return self.inner.embedding

    def add_texts(self, texts: Any, metadatas: Any = None, **kwargs: Any) -> list[str]:
        raise NotImplementedError

    @classmethod
    def from_texts(cls, texts: Any, embedding: Any, metadatas: Any = None, **kwargs: Any) -> _Delegating:
        raise NotImplementedError

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        self.calls.append({"k": k, **kwargs})
        return self.inner.similarity_search(query, k=k, filter=kwargs.get("filter"))


async def test_a_store_without_native_filter_gets_fetch_k_and_ones_own_filter() -> None:
    with open_store("memory") as inner:
        assert isinstance(inner, InMemoryVectorStore)
        store = _Delegating(inner)
        catalog = SignatureCatalog.from_metadata(d.metadata for d in signed())
        retriever = CHOPRetriever(vectorstore=store, catalog=catalog, fetch_k=6)

        def own(doc: Document) -> bool:
            return doc.metadata["chop_index"] != 0

        found = retriever.invoke(QUESTIONS["model"], k=2, fetch_k=15, filter=own, extra_option="x")
        assert [d.metadata["chop_model"] for d in found] == [NAMED, NAMED]
        assert all(d.metadata["chop_index"] != 0 for d in found)
        assert store.calls == [{"k": 15, "filter": own, "extra_option": "x"}]
        store.calls.clear()
        assert len(await retriever.ainvoke(QUESTIONS["model"], k=2, filter=own)) == 2
        assert store.calls == [{"k": 6, "filter": own}]


def test_verbose_is_no_search_argument() -> None:
    with open_store("memory") as inner:
        assert isinstance(inner, InMemoryVectorStore)
        store = _Delegating(inner)
        catalog = SignatureCatalog.from_metadata(d.metadata for d in signed())
        CHOPRetriever(vectorstore=store, catalog=catalog).invoke(QUESTIONS["none"], verbose=False, k=1)
        assert store.calls == [{"k": 1}]


@pytest.mark.parametrize("bad", [{"k": 0}, {"k": -1}, {"k": "2"}, {"k": True}, {"k": 1.5}, {"fetch_k": 0}])
async def test_a_k_that_is_not_a_positive_integer_is_refused(bad: dict[str, Any]) -> None:
    with open_store("memory") as store:
        retriever = CHOPRetriever(vectorstore=store)
        with pytest.raises(InputError, match=next(iter(bad))):
            retriever.invoke(QUESTIONS["model"], **bad)
        with pytest.raises(InputError, match=next(iter(bad))):
            await retriever.ainvoke(QUESTIONS["model"], **bad)


def test_memory_store_refuses_a_filter_it_cannot_run() -> None:
    with open_store("memory") as store:
        with pytest.raises(InputError, match="callable"):
            CHOPRetriever(vectorstore=store).invoke(QUESTIONS["model"], filter={"source": "AC-14.txt"})


@pytest.mark.parametrize("kind", STORE_KINDS)
@pytest.mark.parametrize("case", list(QUESTIONS))
async def test_an_empty_store_or_a_filter_nothing_meets_gives_no_documents(kind: str, case: str) -> None:
    with open_store(kind, []) as empty:
        assert await _both(CHOPRetriever(vectorstore=empty, mode="boost"), QUESTIONS[case], k=2) == []
    with open_store(kind) as store:
        nothing: Any = {"chop_index": 99}
        if kind == "memory":
            nothing = lambda doc: False  # noqa: E731
        elif kind == "qdrant":
            from qdrant_client import models

            condition = models.FieldCondition(key="metadata.chop_index", match=models.MatchValue(value=99))
            nothing = models.Filter(must=[condition])
        for mode in ("filter", "boost"):
            assert await _both(CHOPRetriever(vectorstore=store, mode=mode), QUESTIONS[case], filter=nothing) == []
