"""``CHOPDocumentCompressor`` on real LangChain retrievers: BM25, an ensemble of BM25 and vectors, any retriever.

The synthetic Nimbus manuals (three near-identical models, five chunks each), signed by CHOP, are searched by
``BM25Retriever`` (rank_bm25) and an ``EnsembleRetriever`` of it and an ``InMemoryVectorStore``; the compressor
sits on them in a ``ContextualCompressionRetriever``. Offline, a fraction of a second.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document

from chop_integrations import QueryReader, SignatureCatalog
from chop_integrations._errors import ConfigurationError
from chop_integrations.langchain import CHOPDocumentCompressor
from tests.langchain.lc_manuals import open_store, signed
from tests.support.manuals import CHUNKS_PER_MANUAL, MODELS, QUESTIONS

pytest.importorskip("rank_bm25")
retrievers = pytest.importorskip("langchain_classic.retrievers")
from langchain_community.retrievers import BM25Retriever  # noqa: E402

NAMED = "Nimbus AC-14"


def _bm25(k: int) -> BM25Retriever:
    return BM25Retriever.from_documents(list(signed()), k=k)


def _models(docs: list[Document]) -> list[str]:
    return [d.metadata["chop_model"] for d in docs]


@pytest.mark.parametrize("source", ["documents", "catalog", "reader", "vectorstore"])
async def test_filter_keeps_the_named_models_documents_in_bm25s_order(source: str) -> None:
    bm25 = _bm25(k=len(signed()))
    with open_store("memory") as store:
        known = {
            "documents": {"documents": signed()},
            "catalog": {"catalog": SignatureCatalog.from_metadata(d.metadata for d in signed())},
            "reader": {"reader": QueryReader(MODELS)},
            "vectorstore": {"vectorstore": store},
        }[source]
        compressor = CHOPDocumentCompressor(top_n=3, **known)
        retriever = retrievers.ContextualCompressionRetriever(base_compressor=compressor, base_retriever=bm25)
        found = retriever.invoke(QUESTIONS["model"])
        assert [(d.page_content, d.metadata) for d in await retriever.ainvoke(QUESTIONS["model"])] == [
            (d.page_content, d.metadata) for d in found
        ]
    expected = [d for d in bm25.invoke(QUESTIONS["model"]) if d.metadata["chop_model"] == NAMED][:3]
    assert [d.page_content for d in found] == [d.page_content for d in expected]
    assert _models(found) == [NAMED] * 3


def test_boost_puts_the_named_model_first_and_keeps_the_rest() -> None:
    bm25 = _bm25(k=8)
    compressor = CHOPDocumentCompressor(documents=signed(), mode="boost")
    found = compressor.compress_documents(bm25.invoke(QUESTIONS["model"]), QUESTIONS["model"])
    plain = bm25.invoke(QUESTIONS["model"])
    assert sorted(d.page_content for d in found) == sorted(d.page_content for d in plain)
    named = sum(m == NAMED for m in _models(plain))
    assert 0 < named < 8 and _models(found)[:named] == [NAMED] * named and NAMED not in _models(found)[named:]


@pytest.mark.parametrize("case", ["none", "unknown"])
@pytest.mark.parametrize("mode", ["filter", "boost"])
def test_a_question_naming_no_known_model_leaves_the_results_as_they_came(case: str, mode: str) -> None:
    plain = _bm25(k=6).invoke(QUESTIONS[case])
    compressor = CHOPDocumentCompressor(documents=signed(), mode=mode)
    assert compressor.compress_documents(plain, QUESTIONS[case]) == plain


def test_an_ensemble_of_bm25_and_vectors_is_filtered_by_the_named_model() -> None:
    with open_store("memory") as store:
        dense = store.as_retriever(search_kwargs={"k": 15})
        ensemble = retrievers.EnsembleRetriever(retrievers=[_bm25(k=15), dense], weights=[0.5, 0.5])
        compressor = CHOPDocumentCompressor(documents=signed(), top_n=4)
        retriever = retrievers.ContextualCompressionRetriever(base_compressor=compressor, base_retriever=ensemble)
        found = retriever.invoke(QUESTIONS["model"])
        fused = ensemble.invoke(QUESTIONS["model"])
    assert _models(found) == [NAMED] * 4
    assert [d.page_content for d in found] == [d.page_content for d in fused if d.metadata["chop_model"] == NAMED][:4]


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(range(3 * CHUNKS_PER_MANUAL)), top_n=st.one_of(st.none(), st.integers(1, 20)))
def test_filter_and_boost_for_any_order(order: list[int], top_n: int | None) -> None:
    docs = [signed()[i] for i in order]
    kept = CHOPDocumentCompressor(documents=signed(), top_n=top_n).compress_documents(docs, QUESTIONS["model"])
    boosted = CHOPDocumentCompressor(documents=signed(), mode="boost", top_n=top_n).compress_documents(
        docs, QUESTIONS["model"]
    )
    ours = [d for d in docs if d.metadata["chop_model"] == NAMED]
    rest = [d for d in docs if d.metadata["chop_model"] != NAMED]
    assert list(kept) == ours[:top_n]
    assert list(boosted) == (ours + rest)[:top_n]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "exactly one"),
        ({"documents": [], "catalog": SignatureCatalog()}, "exactly one"),
        ({"documents": [], "mode": "rerank"}, "mode"),
        ({"documents": [], "top_n": 0}, "top_n"),
        ({"documents": [], "top_n": True}, "top_n"),
    ],
)
def test_bad_arguments_are_refused(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        CHOPDocumentCompressor(**fields)  # type: ignore[arg-type]
