"""LlamaIndexLLM: the core LLM protocol over a LlamaIndex LLM (scripted CustomLLM, offline)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from li_fakes import ScriptedCustomLLM
from llama_index.core.base.llms.types import LLMMetadata
from llama_index.core.bridge.pydantic import Field
from llama_index.core.callbacks import CallbackManager, CBEventType, LlamaDebugHandler
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent

from chop_integrations._errors import ConfigurationError, LLMAnswerError
from chop_integrations._llm.protocol import as_llm, supports_structured
from chop_integrations._types import CNM
from chop_integrations.llama_index import LlamaIndexLLM

CNM_JSON = json.dumps({"category": "camera", "nouns": ["lens"], "model": "X-100"})


class ChatCustomLLM(ScriptedCustomLLM):
    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name=self.model_name, is_chat_model=True)


def test_model_id_names_class_model_and_decoding() -> None:
    a = LlamaIndexLLM(ScriptedCustomLLM(model_name="m1", temperature=0.0))
    b = LlamaIndexLLM(ScriptedCustomLLM(model_name="m1", temperature=0.7))
    c = LlamaIndexLLM(ScriptedCustomLLM(model_name="m2", temperature=0.0))
    assert a.model_id.startswith("llama_index:") and "m1" in a.model_id and '"temperature": 0.0' in a.model_id
    assert len({a.model_id, b.model_id, c.model_id}) == 3
    assert a.model_id == LlamaIndexLLM(ScriptedCustomLLM(model_name="m1")).model_id


async def test_complete_and_acomplete_go_through_the_llm() -> None:
    llm = ScriptedCustomLLM(responder=lambda p: f"answer to {p}")
    wrapped = LlamaIndexLLM(llm)
    assert wrapped.complete("one") == "answer to one"
    assert await wrapped.acomplete("two") == "answer to two"
    assert llm.prompts == ["one", "two"]


def test_chat_models_are_asked_through_chat() -> None:
    llm = ChatCustomLLM(responder=lambda p: "ok")
    assert LlamaIndexLLM(llm).complete("hello") == "ok"
    # CustomLLM.chat formats the messages into one prompt: proof the chat path was taken
    assert llm.prompts and llm.prompts[0] != "hello" and "hello" in llm.prompts[0]


def test_as_llm_wraps_llama_index_llms_and_rejects_others() -> None:
    assert isinstance(as_llm(ScriptedCustomLLM()), LlamaIndexLLM)
    with pytest.raises(ConfigurationError, match="LlamaIndex"):
        LlamaIndexLLM(object())


def test_text_models_leave_json_to_the_engine_parser() -> None:
    wrapped = LlamaIndexLLM(ScriptedCustomLLM())
    assert wrapped.structured is False
    assert not supports_structured(wrapped)  # the engine parses text answers, with its corrective retry


async def test_structured_predict_when_enabled() -> None:
    llm = ScriptedCustomLLM(responder=lambda p: CNM_JSON)
    wrapped = LlamaIndexLLM(llm, structured=True)
    assert supports_structured(wrapped)
    assert wrapped.complete_json("describe", CNM) == CNM(category="camera", nouns=["lens"], model="X-100")
    assert (await wrapped.acomplete_json("describe", CNM)).model == "X-100"
    assert len(llm.prompts) == 2 and all(p.startswith("describe") for p in llm.prompts)
    assert all("JSON schema" in p for p in llm.prompts)  # LlamaIndex's structured program built these prompts


class RateLimitError(Exception):
    """Stands for openai.RateLimitError: a transport error, not a bad answer."""

    status_code = 429


@pytest.mark.parametrize(
    ("error", "expected"), [(ValueError("tool not called"), LLMAnswerError), (RateLimitError("429"), RateLimitError)]
)
async def test_a_failed_structured_call_is_never_re_asked_as_text(
    monkeypatch: pytest.MonkeyPatch, error: Exception, expected: type[Exception]
) -> None:
    llm = ScriptedCustomLLM(responder=lambda p: CNM_JSON)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise error

    async def abroken(*args: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(ScriptedCustomLLM, "structured_predict", broken)
    monkeypatch.setattr(ScriptedCustomLLM, "astructured_predict", abroken)
    wrapped = LlamaIndexLLM(llm, structured=True)
    with pytest.raises(expected):
        wrapped.complete_json("p", CNM)
    with pytest.raises(expected):
        await wrapped.acomplete_json("p", CNM)
    assert llm.prompts == []  # no second request as plain text


def test_unparsable_structured_answer_raises_a_typed_error() -> None:
    wrapped = LlamaIndexLLM(ScriptedCustomLLM(responder=lambda p: "no idea"), structured=True)
    with pytest.raises(LLMAnswerError, match="no idea"):
        wrapped.complete_json("p", CNM)


class _Collect(BaseEventHandler):
    events: list[str] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "Collect"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        self.events.append(event.class_name())


def test_callbacks_and_instrumentation_pass_through() -> None:
    debug = LlamaDebugHandler()
    llm = ScriptedCustomLLM(callback_manager=CallbackManager([debug]))
    handler = _Collect(events=[])
    dispatcher = get_dispatcher()
    dispatcher.add_event_handler(handler)
    try:
        LlamaIndexLLM(llm).complete("hi")
    finally:
        dispatcher.event_handlers.remove(handler)
    assert len(debug.get_event_pairs(CBEventType.LLM)) == 1
    assert "LLMCompletionStartEvent" in handler.events and "LLMCompletionEndEvent" in handler.events


def test_structured_calls_do_not_share_a_mutable_prompt_template(monkeypatch: pytest.MonkeyPatch) -> None:
    """LlamaIndex's text program sets an output parser on its template: it must not leak into the next call."""
    llm = ScriptedCustomLLM(responder=lambda p: CNM_JSON)
    wrapped = LlamaIndexLLM(llm, structured=True)
    wrapped.complete_json("first passage", CNM)  # the text program sets an output parser on its template
    seen: list[Any] = []

    def capture(self: Any, output_cls: Any, prompt: Any, **kwargs: Any) -> Any:
        seen.append(prompt)
        return CNM()

    monkeypatch.setattr(ScriptedCustomLLM, "structured_predict", capture)
    wrapped.complete_json("second passage", CNM)
    assert seen and seen[0].output_parser is None  # a function-calling model would otherwise get schema text
