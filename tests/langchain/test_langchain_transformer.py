"""CHOPDocumentTransformer: CHOP signatures on LangChain documents."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_text_splitters import RecursiveCharacterTextSplitter

from chop_integrations._errors import InputError
from chop_integrations._offline import Lexicon, OfflineCNMExtractor
from chop_integrations.langchain import CHOPDocumentTransformer
from chop_integrations.langchain._transformer import METADATA_KEYS
from tests.support.langchain_fakes import PromptFakeChatModel
from tests.support.openai_server import text_answer

KX200 = [
    "KX-200 camera manual. Insert the battery into the KX-200 until it clicks.",
    "Charging takes two hours. The lamp turns green when the battery is full.",
]
KX300 = [
    "KX-300 camera manual. Insert the battery into the KX-300 until it clicks.",
    "Charging takes two hours. The lamp turns green when the battery is full.",
]


def _docs() -> list[Document]:
    return [Document(t, metadata={"source": "kx200.txt"}) for t in KX200] + [
        Document(t, metadata={"source": "kx300.txt"}) for t in KX300
    ]


def test_offline_adds_every_key_and_keeps_the_text() -> None:
    docs = _docs()
    out = CHOPDocumentTransformer().transform_documents(docs)
    assert [d.metadata["chop_text"] for d in out] == [d.page_content for d in docs]
    for doc in out:
        assert set(METADATA_KEYS) <= set(doc.metadata)
        assert doc.metadata["source"] in ("kx200.txt", "kx300.txt")
        assert doc.metadata["chop_prefix"]
    assert [d.metadata["chop_continues"] for d in out][::2] == [False, False]  # each source starts afresh
    assert docs[0].metadata == {"source": "kx200.txt"}  # inputs untouched


def test_a_document_alone_prints_as_in_the_corpus_and_observing_changes_nothing() -> None:
    together = CHOPDocumentTransformer().transform_documents(_docs())
    alone = CHOPDocumentTransformer().transform_documents(_docs()[:2])
    assert [d.metadata for d in alone] == [d.metadata for d in together[:2]]  # one source: its name all the same
    told = CHOPDocumentTransformer()
    told.observe_corpus([Document("", metadata={"source": s}) for s in ("kx200.txt", "kx300.txt")])
    first = told.transform_documents(_docs()[:2])
    assert [d.metadata for d in first] == [d.metadata for d in together[:2]]
    assert first[0].metadata["chop_prefix"].startswith("kx200")
    with pytest.raises(InputError):
        told.observe_corpus(["kx200.txt"])  # type: ignore[list-item]


def test_the_prefix_reaches_page_content_by_default_and_can_be_kept_out() -> None:
    out = CHOPDocumentTransformer().transform_documents(_docs())
    for doc, original in zip(out, KX200 + KX300, strict=True):
        assert doc.metadata["chop_prefix"] and doc.page_content == doc.metadata["chop_prefix"] + original
        assert doc.metadata["chop_text"] == original
    plain = CHOPDocumentTransformer(prefix_page_content=False).transform_documents(_docs())
    assert [d.page_content for d in plain] == KX200 + KX300
    assert all("chop_text" not in d.metadata for d in plain)
    assert [d.metadata for d in plain] == [{k: v for k, v in d.metadata.items() if k != "chop_text"} for d in out]


def test_every_chunk_says_where_it_sits_and_gets_a_stable_id() -> None:
    out = CHOPDocumentTransformer().transform_documents(_docs())
    assert [d.metadata["chop_index"] for d in out] == [0, 1, 0, 1]
    keys = [d.metadata["chop_document"] for d in out]
    assert keys[0] == keys[1] != keys[2] == keys[3]
    assert len({d.id for d in out}) == 4 and all(d.id for d in out)
    again = CHOPDocumentTransformer().transform_documents(_docs())
    assert [d.id for d in again] == [d.id for d in out]  # ingesting again overwrites, never duplicates
    # an edit elsewhere in a named document keeps its key; a changed chunk gets a new id
    edited = _docs()
    edited[1] = Document(KX200[1] + " Use the supplied charger.", metadata={"source": "kx200.txt"})
    changed = CHOPDocumentTransformer().transform_documents(edited)
    assert changed[0].metadata["chop_document"] == keys[0] and changed[0].id == out[0].id
    assert changed[1].id != out[1].id
    # documents without a name are keyed by their text; ids a caller gave are kept
    unnamed = CHOPDocumentTransformer().transform_documents([Document(KX200[0], id="mine"), Document(KX300[0])])
    assert unnamed[0].id == "mine" and unnamed[1].id not in ("mine", None)


def test_with_a_chat_model_sources_never_inherit_each_others_signature() -> None:
    model = PromptFakeChatModel()
    out = CHOPDocumentTransformer(model).transform_documents(_docs())
    models = [d.metadata["chop_model"] for d in out]
    assert models == ["KX-200", "KX-200", "KX-300", "KX-300"]
    assert [d.metadata["chop_continues"] for d in out] == [False, True, False, True]
    # one CNM per source start, one continuity question per pair inside a source: nothing across sources
    assert sum("KX-200" in p and "KX-300" in p for p in model.prompts) == 0


def test_sourceless_documents_split_by_a_splitter_stay_apart() -> None:
    texts = ["\n\n".join(KX200), "\n\n".join(KX300)]
    splitter = RecursiveCharacterTextSplitter(chunk_size=80, chunk_overlap=0, add_start_index=True)
    out = CHOPDocumentTransformer(PromptFakeChatModel(), splitter=splitter).transform_documents(
        [Document(t) for t in texts]
    )
    assert len(out) == 4
    assert [d.metadata["chop_continues"] for d in out] == [False, True, False, True]
    assert [d.metadata["chop_model"] for d in out] == ["KX-200", "KX-200", "KX-300", "KX-300"]
    assert all("_chop_parent" not in d.metadata and "_chop_group" not in d.metadata for d in out)
    assert out[1].metadata["start_index"] == texts[0].index(KX200[1])


def test_rejects_what_is_not_a_document() -> None:
    with pytest.raises(InputError, match="Document"):
        CHOPDocumentTransformer().transform_documents(["plain text"])  # type: ignore[list-item]


class _Names(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_chat_model_start(self, serialized, messages, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("parent_run_id") is None:
            self.names.append(kwargs.get("name"))

    def on_chain_start(self, serialized, inputs, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("parent_run_id") is None:  # structured output: a chain around the chat model
            self.names.append(kwargs.get("name"))


def test_callbacks_see_our_run_names() -> None:
    handler = _Names()
    docs = _docs()
    docs[1] = Document("Error codes of the KX-900 series: E1 means the lens is blocked.", metadata=docs[1].metadata)
    CHOPDocumentTransformer(PromptFakeChatModel(), llm_config={"callbacks": [handler]}).transform_documents(docs)
    assert "chop.continuity" in handler.names
    assert set(handler.names) <= {"chop.continuity", "chop.cnm"}


class _AsyncOnly(PromptFakeChatModel):
    """Native async fake: counts calls in flight; the sync path must not be used."""

    in_flight: int = 0
    peak: int = 0

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        raise AssertionError("atransform_documents must not run the sync path")

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        prompt = "\n".join(str(m.content) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text_answer(prompt)))])


async def test_atransform_documents_is_native_async_with_bounded_concurrency() -> None:
    model = _AsyncOnly(structured=False)
    docs = [
        Document(f"Part {j} of the KX-{i}00 manual: step {j}.", metadata={"source": f"kx{i}00.txt"})
        for i in range(2, 14)
        for j in range(3)
    ]
    out = await CHOPDocumentTransformer(model, max_concurrency=3).atransform_documents(docs)
    assert len(out) == 36
    assert 2 <= model.peak <= 3


def test_decisions_and_an_extended_lexicon_pass_through_to_the_engine() -> None:
    # parity with CHOPExtractor: both options reach CHOPChunker through **options
    espresso = OfflineCNMExtractor(lexicon=Lexicon(extra={"espresso machine": ["espresso", "portafilter"]}))
    docs = [Document("Espresso Pro: lock the portafilter before brewing.", metadata={"source": "Espresso_Pro.txt"})]
    out = CHOPDocumentTransformer(offline_extractor=espresso).transform_documents(docs)
    assert out[0].metadata["chop_category"] == "espresso machine"
    model = PromptFakeChatModel()
    transformer = CHOPDocumentTransformer(model, decisions="pair")
    transformer.transform_documents(_docs())
    assert transformer.chop.config.decisions == "pair"
    assert not any(p.startswith("Passages [1]..") for p in model.prompts)
    assert any(p.startswith("A and B are adjacent passages") and '"continues"' in p for p in model.prompts)


def test_source_key_names_the_document_and_config_and_corpus_reach_the_engine() -> None:
    from chop_integrations import CHOPConfig, CorpusState

    docs = [Document(t, metadata={"file": "kx200.pdf"}) for t in KX200] + [
        Document(t, metadata={"file": "kx300.pdf"}) for t in KX300
    ]
    by_file = CHOPDocumentTransformer(source_key="file").transform_documents(docs)
    by_source = CHOPDocumentTransformer().transform_documents(docs)  # no "source": one run of pieces, one document
    assert [d.metadata["chop_continues"] for d in by_file] == [False, True, False, True]
    assert by_source[2].metadata["chop_continues"] is True
    assert all("file" in d.metadata for d in by_file)
    corpus = CorpusState()
    chop = CHOPDocumentTransformer(config=CHOPConfig(decisions="pair", source_key="file"), corpus=corpus, timeout=3)
    assert chop.config.source_key == "file" and chop.chop.corpus is corpus
    assert (chop.chop.config.decisions, chop.chop.config.timeout) == ("pair", 3)
