"""CHOPRetriever in detail, over an InMemoryVectorStore (the three real stores: tests/vectorstores)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import ValidationError

from chop_integrations import QueryReader, QueryReading, SignatureCatalog
from chop_integrations.langchain import CHOPDocumentTransformer, CHOPRetriever
from chop_integrations.langchain._retriever import _joined

TWINS = {
    "kx-200.txt": ["KX-200 camera manual.", "Charging takes two hours.", "The lamp turns green when full."],
    "kx-300.txt": ["KX-300 camera manual.", "Charging takes two hours.", "The lamp turns green when full."],
}


def _store(prefix_page_content: bool = True) -> InMemoryVectorStore:
    docs = [Document(t, metadata={"source": s}) for s, texts in TWINS.items() for t in texts]
    signed = CHOPDocumentTransformer(prefix_page_content=prefix_page_content).transform_documents(docs)
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents(list(signed))
    return store


class AlwaysKX300(QueryReader):
    """A reader that reads every question as naming the KX-300 (a stand-in for any reading)."""

    def read(self, question: str) -> QueryReading:
        return QueryReading(model="KX-300", mention="that camera")


def test_the_readers_answer_becomes_the_stores_filter() -> None:
    store = _store()
    hits = CHOPRetriever(vectorstore=store, reader=AlwaysKX300(), k=10).invoke("How long does charging take?")
    assert len(hits) == 3 and {d.metadata["source"] for d in hits} == {"kx-300.txt"}
    assert {d.metadata["chop_query_model"] for d in hits} == {"KX-300"}


async def test_the_async_path_awaits_the_readers_aread() -> None:
    class Awaited(QueryReader):
        def read(self, question: str) -> QueryReading:
            raise AssertionError("the async path must not call read")

        async def aread(self, question: str) -> QueryReading:
            return QueryReading(model="KX-200")

    hits = await CHOPRetriever(vectorstore=_store(), reader=Awaited(), k=10).ainvoke("charging?")
    assert {d.metadata["source"] for d in hits} == {"kx-200.txt"}


def test_the_known_models_are_read_back_from_the_store_when_none_are_given() -> None:
    store = _store()
    retriever = CHOPRetriever(vectorstore=store, k=10)
    assert retriever.reader is not None and set(retriever.reader.models) == {"KX-200", "KX-300"}
    hits = retriever.invoke("How long does charging take on the KX-200?")
    assert {d.metadata["chop_model"] for d in hits} == {"KX-200"}
    # a catalog given wins over the store's: a model it does not know is not filtered by
    only = CHOPRetriever(vectorstore=store, catalog=SignatureCatalog(["KX-300"]), k=10)
    assert len(only.invoke("How long does charging take on the KX-200?")) == 6


def test_an_ambiguous_or_unknown_name_gets_the_plain_search() -> None:
    store = _store()
    for question in ("KX-200 or KX-300: which charges faster?", "Does the KX-900 charge?"):
        hits = CHOPRetriever(vectorstore=store, k=6).invoke(question)
        plain = store.similarity_search(question, k=6)
        assert [d.id for d in hits] == [d.id for d in plain]
        assert {d.metadata["chop_query_model"] for d in hits} == {""}


def test_the_original_text_comes_back_with_or_without_the_prefix_in_page_content() -> None:
    for prefixed in (True, False):
        hits = CHOPRetriever(vectorstore=_store(prefixed), k=10).invoke("Charging on the KX-300?")
        assert sorted(d.page_content for d in hits) == sorted(TWINS["kx-300.txt"])


def test_options_are_validated() -> None:
    store = _store()
    for bad in ({"mode": "rank"}, {"k": 0}, {"context_tokens": -1}, {"fetch_k": 0}):
        with pytest.raises(ValidationError):
            CHOPRetriever(vectorstore=store, **bad)


def test_context_stops_where_one_position_holds_two_different_chunks() -> None:
    store = _store()
    texts = ["Intro.", "Step one. ", "Step two. ", "Step three."]
    flags = [False, False, True, True]
    for index, (text, flag) in enumerate(zip(texts, flags, strict=True)):
        metadata = {"chop_document": "d", "chop_index": index, "chop_continues": flag, "chop_model": "Z-1"}
        store.add_documents([Document(text, metadata=metadata, id=f"d{index}")])
    # the same document ingested once more, edited: position 3 now holds two different chunks
    store.add_documents([Document("Step 3.", metadata={"chop_document": "d", "chop_index": 3}, id="d3-edited")])
    retriever = CHOPRetriever(vectorstore=store, catalog=SignatureCatalog(["Z-1"]), k=4, context_tokens=100)
    hit = store.get_by_ids(["d1"])[0]
    run = retriever._run(hit, "d", 1)
    assert [d.metadata["chop_index"] for d in run] == [1, 2]  # 1 does not continue 0; 3 is ambiguous
    wide = CHOPRetriever(vectorstore=store, catalog=SignatureCatalog(["Z-1"]), k=4, context_tokens=2)
    assert [d.id for d in wide._run(hit, "d", 1)] == ["d1"]  # the budget holds the hit alone


def test_joined_keeps_the_texts_and_separates_only_what_would_run_together() -> None:
    assert _joined(["Step one. ", "Step two."]) == "Step one. Step two."
    assert _joined(["Title", "Body"]) == "Title\nBody"
    assert _joined(["a\n", "b", " c"]) == "a\nb c"


def test_retrieving_from_an_in_memory_store_loads_no_other_store_client() -> None:
    code = (
        "import sys\n"
        "from langchain_core.documents import Document\n"
        "from langchain_core.embeddings import DeterministicFakeEmbedding\n"
        "from langchain_core.vectorstores import InMemoryVectorStore\n"
        "from chop_integrations.langchain import CHOPDocumentTransformer, CHOPRetriever\n"
        "docs = CHOPDocumentTransformer().transform_documents([Document('KX-200 manual.', metadata={'source': 'a'})])\n"
        "store = InMemoryVectorStore.from_documents(docs, DeterministicFakeEmbedding(size=8))\n"
        "CHOPRetriever(vectorstore=store, context_tokens=50).invoke('KX-200?')\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('chromadb', 'qdrant_client'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
