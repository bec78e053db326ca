"""``QueryReader`` as ``SelfQueryRetriever``'s query constructor: a ``StructuredQuery`` out of a question, offline.

LangChain's own ``SelfQueryRetriever`` with Chroma's and Qdrant's translators (``langchain_community``) and the
reader in place of its LLM chain: a question naming a model searches that model's chunks only, one naming none
searches them all, sync and async.
"""

from __future__ import annotations

import pytest
from langchain_core.structured_query import Comparator, Comparison, Operation, StructuredQuery

from chop_integrations import QueryReader, SignatureCatalog
from chop_integrations._errors import InputError
from chop_integrations.langchain import chop_query_constructor
from tests.langchain.lc_manuals import open_store, signed
from tests.support.manuals import MODELS, QUESTIONS

self_query = pytest.importorskip("langchain_classic.retrievers.self_query.base")
NAMED = "Nimbus AC-14"


def _reader() -> QueryReader:
    return QueryReader.from_catalog(SignatureCatalog.from_metadata(d.metadata for d in signed()))


async def test_a_structured_query_out_of_a_question() -> None:
    constructor = chop_query_constructor(_reader())
    named = constructor.invoke({"query": QUESTIONS["model"]})
    assert named == StructuredQuery(
        query=QUESTIONS["model"], filter=Comparison(comparator=Comparator.EQ, attribute="chop_model", value=NAMED)
    )
    assert await constructor.ainvoke(QUESTIONS["model"]) == named
    for case in ("none", "unknown"):
        assert constructor.invoke({"query": QUESTIONS[case]}).filter is None
    both = chop_query_constructor(QueryReader(MODELS, ["air conditioner"], read_categories=True))
    found = both.invoke("Nimbus AC-12 air conditioner error E1")
    assert isinstance(found.filter, Operation) and len(found.filter.arguments) == 2
    with pytest.raises(InputError, match="query"):
        constructor.invoke({"question": "x"})


@pytest.mark.parametrize("kind", ["chroma", "qdrant"])
async def test_self_query_retriever_with_the_reader_and_the_stores_translator(kind: str) -> None:
    from langchain_community.query_constructors.chroma import ChromaTranslator
    from langchain_community.query_constructors.qdrant import QdrantTranslator

    with open_store(kind) as store:
        translator = ChromaTranslator() if kind == "chroma" else QdrantTranslator(metadata_key="metadata")
        retriever = self_query.SelfQueryRetriever(
            query_constructor=chop_query_constructor(_reader()),
            vectorstore=store,
            structured_query_translator=translator,
            search_kwargs={"k": 4},
        )
        named = retriever.invoke(QUESTIONS["model"])
        assert [d.metadata["chop_model"] for d in named] == [NAMED] * 4
        assert [d.id for d in await retriever.ainvoke(QUESTIONS["model"])] == [d.id for d in named]
        plain = retriever.invoke(QUESTIONS["none"])
        assert [d.id for d in plain] == [d.id for d in store.similarity_search(QUESTIONS["none"], k=4)]
