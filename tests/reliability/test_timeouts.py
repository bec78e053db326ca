"""``timeout=1`` bounds every sync and async entry point when the model hangs for 20 s.

The models here block until the test releases them (at most 20 s). No test measures
speed: each checks that the entry point returned *before the hang ended* (the
model's ``finished`` event is still unset), which a call that waited for the hung
thread (``asyncio.to_thread`` under ``asyncio.run``, a blocking call on the event
loop) cannot do.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_openai import ChatOpenAI
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.schema import Document as LIDocument
from llama_index.core.schema import TextNode
from pydantic import ConfigDict

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from tests.support.openai_server import Fault, OpenAITestServer

HANG_S = 20.0
DOC = (
    "KX-200 camera manual.\n\nInsert the battery into the KX-200 until it clicks.\n\n"
    "KX-300 drone manual.\n\nThe KX-300 flies for twenty minutes on one battery."
)
ONE_TRY = RetryPolicy(max_attempts=1)


class Hang:
    """Shared by a hanging model: ``release`` ends every hang, ``finished`` is set when one ends."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.finished = threading.Event()
        self.started = threading.Event()

    def block(self) -> None:
        self.started.set()
        self.release.wait(HANG_S)
        self.finished.set()


class HangingChatModel(BaseChatModel):
    """A sync-only LangChain chat model whose every call blocks (like a stalled HTTP request)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    hang: Any = Field(exclude=True)

    @property
    def _llm_type(self) -> str:
        return "hanging"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.hang.block()
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="TRUE"))])


class HangingCustomLLM(CustomLLM):
    """A LlamaIndex CustomLLM with LlamaIndex's default async methods (they call the blocking sync one)."""

    _hang: Any = PrivateAttr(default=None)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="hanging", is_chat_model=False, is_function_calling_model=False)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self._hang.block()
        return CompletionResponse(text="TRUE")

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt)


@pytest.fixture
def hang() -> Iterator[Hang]:
    state = Hang()
    yield state
    state.release.set()


def _lumber(llm: Any) -> LumberChunker:
    return LumberChunker(llm, max_tokens=16, timeout=1, retry=ONE_TRY)


def _chop(llm: Any) -> CHOPChunker:
    return CHOPChunker(llm, max_tokens=16, timeout=1, retry=ONE_TRY)


def _texts(result: Any) -> str:
    """The text of a result of any entry point (chunks, lists of chunks, Documents, nodes)."""
    items = result if isinstance(result, list) else [result]
    parts = []
    for item in items:
        if isinstance(item, list):
            parts.append(_texts(item))
        else:
            parts.append(getattr(item, "text", None) or getattr(item, "page_content", None) or str(item))
    return "".join(parts)


#: name -> (engine factory, call). The call returns a result or an awaitable.
ENGINE_CALLS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "lumber.chunk": (_lumber, lambda e: e.chunk(DOC)),
    "lumber.achunk": (_lumber, lambda e: e.achunk(DOC)),
    "lumber.chunk_many": (_lumber, lambda e: e.chunk_many([DOC])),
    "lumber.achunk_many": (_lumber, lambda e: e.achunk_many([DOC])),
    "chop.chunk": (_chop, lambda e: e.chunk(DOC)),
    "chop.achunk": (_chop, lambda e: e.achunk(DOC)),
    "chop.chunk_many": (_chop, lambda e: e.chunk_many([DOC])),
    "chop.achunk_many": (_chop, lambda e: e.achunk_many([DOC])),
    "chop.annotate": (_chop, lambda e: e.annotate(DOC.split("\n\n"))),
    "chop.aannotate": (_chop, lambda e: e.aannotate(DOC.split("\n\n"))),
    "splitter.split_text": (
        lambda m: LumberChunkerTextSplitter(m, max_tokens=16, timeout=1, retry=ONE_TRY),
        lambda s: s.split_text(DOC),
    ),
    "splitter.split_documents": (
        lambda m: LumberChunkerTextSplitter(m, max_tokens=16, timeout=1, retry=ONE_TRY),
        lambda s: s.split_documents([LCDocument(DOC)]),
    ),
    "splitter.create_documents": (
        lambda m: LumberChunkerTextSplitter(m, max_tokens=16, timeout=1, retry=ONE_TRY),
        lambda s: s.create_documents([DOC]),
    ),
    "splitter.atransform_documents": (
        lambda m: LumberChunkerTextSplitter(m, max_tokens=16, timeout=1, retry=ONE_TRY),
        lambda s: s.atransform_documents([LCDocument(DOC)]),
    ),
    "transformer.transform_documents": (
        lambda m: CHOPDocumentTransformer(m, chunk=True, max_tokens=16, timeout=1, retry=ONE_TRY),
        lambda t: t.transform_documents([LCDocument(DOC)]),
    ),
    "transformer.atransform_documents": (
        lambda m: CHOPDocumentTransformer(m, chunk=True, max_tokens=16, timeout=1, retry=ONE_TRY),
        lambda t: t.atransform_documents([LCDocument(DOC)]),
    ),
}


def _run(call: Callable[[Any], Any], engine: Any) -> Any:
    result = call(engine)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    return result


@pytest.mark.parametrize("name", list(ENGINE_CALLS))
def test_a_hanging_langchain_model_is_cut_at_the_timeout(hang: Hang, name: str) -> None:
    factory, call = ENGINE_CALLS[name]
    engine = factory(HangingChatModel(hang=hang))
    result = _run(call, engine)
    assert hang.started.is_set() and not hang.finished.is_set()  # returned while the model still hangs
    assert _texts(result).replace("\n", "") == DOC.replace("\n", "")  # every character, from the fallback
    assert engine.last_usage.fallbacks >= 1


LLAMA_CALLS: dict[str, Callable[[Any], Any]] = {
    "lumber.chunk_many": lambda llm: _lumber(llm).chunk_many([DOC]),
    "chop.achunk": lambda llm: _chop(llm).achunk(DOC),
    "parser.get_nodes_from_documents": lambda llm: LumberChunkerNodeParser(
        llm=llm, max_tokens=16, timeout=1, retry=ONE_TRY
    ).get_nodes_from_documents([LIDocument(text=DOC)]),
    "parser.aget_nodes_from_documents": lambda llm: LumberChunkerNodeParser(
        llm=llm, max_tokens=16, timeout=1, retry=ONE_TRY
    ).aget_nodes_from_documents([LIDocument(text=DOC)]),
    "extractor.extract": lambda llm: CHOPExtractor(llm=llm, timeout=1, retry=ONE_TRY).extract(
        [TextNode(text=part) for part in DOC.split("\n\n")]
    ),
    "extractor.aextract": lambda llm: CHOPExtractor(llm=llm, timeout=1, retry=ONE_TRY).aextract(
        [TextNode(text=part) for part in DOC.split("\n\n")]
    ),
}


@pytest.mark.parametrize("name", list(LLAMA_CALLS))
def test_a_hanging_llama_index_llm_is_cut_at_the_timeout(hang: Hang, name: str) -> None:
    llm = HangingCustomLLM()
    llm._hang = hang
    result = LLAMA_CALLS[name](llm)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    assert hang.started.is_set() and not hang.finished.is_set()
    assert len(result) >= 1


@pytest.mark.parametrize("name", ["lumber.chunk_many", "chop.chunk", "chop.achunk_many", "splitter.split_documents"])
def test_chat_openai_against_a_stalled_server_is_cut_at_the_timeout(name: str) -> None:
    fault = Fault("hang", hang_seconds=HANG_S)
    with OpenAITestServer(port=0, fault=fault) as server:
        model = ChatOpenAI(
            http_async_client=httpx.AsyncClient(),
            base_url=server.base_url,
            api_key="test",  # type: ignore[arg-type]
            model="gpt-4o-mini",
            max_retries=0,
        )
        factory, call = ENGINE_CALLS[name]
        result = _run(call, factory(model))
        assert fault.hung.is_set() and not fault.ended.is_set()
        assert _texts(result).replace("\n", "") == DOC.replace("\n", "")
