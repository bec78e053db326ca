"""LangChainLLM: the wrapper that turns a LangChain chat model into the core LLM protocol."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tracers.context import collect_runs
from langchain_openai import ChatOpenAI

from chop_integrations._errors import AnswerParseError, ConfigurationError, LLMAnswerError
from chop_integrations._llm.aio import run_sync
from chop_integrations._llm.policy import CURRENT_TASK, Decision, adecide
from chop_integrations._llm.protocol import as_llm, supports_structured
from chop_integrations._llm.runner import LLMRunner
from chop_integrations._llm.usage import UsageReport
from chop_integrations.langchain import LangChainLLM
from chop_integrations.langchain._model_info import langchain_model_id, message_text
from tests.support.langchain_fakes import PromptFakeChatModel, StructuredFakeChatModel, Verdict


def test_as_llm_wraps_a_chat_model() -> None:
    llm = as_llm(FakeListChatModel(responses=["x"]))
    assert isinstance(llm, LangChainLLM)


def test_rejects_what_is_not_a_chat_model() -> None:
    with pytest.raises(ConfigurationError, match="BaseChatModel"):
        LangChainLLM(lambda prompt: "x")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_concurrency"):
        LangChainLLM(FakeListChatModel(responses=["x"]), max_concurrency=0)


def test_model_id_holds_decoding_params_and_no_secret() -> None:
    cold = ChatOpenAI(model="gpt-4o-mini", api_key="sk-very-secret", temperature=0, base_url="http://127.0.0.1:9/v1")
    warm = ChatOpenAI(model="gpt-4o-mini", api_key="sk-very-secret", temperature=0.7, base_url="http://127.0.0.1:9/v1")
    assert "gpt-4o-mini" in langchain_model_id(cold)
    assert langchain_model_id(cold) != langchain_model_id(warm)
    assert langchain_model_id(cold) == langchain_model_id(
        ChatOpenAI(model="gpt-4o-mini", api_key="other", temperature=0, base_url="http://127.0.0.1:9/v1")
    )
    assert "secret" not in langchain_model_id(cold)


_ID_SCRIPT = """
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI
from chop_integrations.langchain._model_info import langchain_model_id
print(langchain_model_id(GenericFakeChatModel(messages=iter([AIMessage("y"), AIMessage("z")]))))
print(langchain_model_id(ChatOpenAI(model="m", api_key="sk-x", max_tokens=4, default_headers={"X-Route": "small"})))
"""


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_model_id_is_the_same_in_another_process(hash_seed: str) -> None:
    """An id made by another process (another hash seed, other addresses, other messages) is this one's."""
    import os
    import subprocess
    import sys

    model = GenericFakeChatModel(messages=iter([AIMessage("x")]))
    headers = ChatOpenAI(model="m", api_key="sk-y", max_tokens=4, default_headers={"X-Route": "small"})
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", _ID_SCRIPT], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [langchain_model_id(model), langchain_model_id(headers)]
    assert " at 0x" not in langchain_model_id(model)
    # the headers enter as the package's salted digest, pinned: a change would orphan every cached answer
    assert "sha256:003b013a7e9ae076" in langchain_model_id(headers) and "small" not in langchain_model_id(headers)


def test_complete_uses_invoke_and_returns_text() -> None:
    llm = LangChainLLM(GenericFakeChatModel(messages=iter([AIMessage("first"), AIMessage("second")])))
    assert llm.complete("a") == "first"
    assert asyncio.run(llm.acomplete("b")) == "second"


def test_message_text_joins_text_blocks() -> None:
    message = AIMessage(content=[{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}}, "b"])
    assert message_text(message) == "ab"


def test_stock_fakes_have_no_structured_path_so_the_engine_parses_text() -> None:
    llm = LangChainLLM(FakeListChatModel(responses=["x"]))
    assert llm.structured is False
    assert not supports_structured(llm)


def test_structured_output_where_the_model_supports_it() -> None:
    model = StructuredFakeChatModel(script=['{"continues": false}'])
    llm = LangChainLLM(model)
    assert supports_structured(llm)
    assert llm.complete_json("pair?", Verdict) == Verdict(continues=False)


def test_a_structured_answer_without_an_object_raises_once_and_is_never_re_asked_as_text() -> None:
    model = StructuredFakeChatModel(script=["not json", '{"continues": true}'])
    llm = LangChainLLM(model)
    with pytest.raises(LLMAnswerError, match="Verdict"):
        llm.complete_json("pair?", Verdict)
    assert model.prompts == ["pair?"]  # one request; the corrective retry is the policy's


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_bad_structured_answer_gets_the_corrective_retry_and_is_counted(run: str) -> None:
    model = StructuredFakeChatModel(script=["not json", '{"continues": true}'])
    usage = UsageReport()
    runner = LLMRunner(LangChainLLM(model), usage=usage, token_counter=len)
    decision = Decision(
        prompt="pair?",
        parse=lambda a: Verdict.model_validate_json(a),
        fallback=lambda: Verdict(continues=False),
        task="continuity",
        document="d",
        position=0,
        schema=Verdict,
    )
    result = (
        run_sync(adecide(decision, runner, "raise"))
        if run == "sync"
        else asyncio.run(adecide(decision, runner, "raise"))
    )
    assert result == Verdict(continues=True)
    assert len(model.prompts) == 2 and "could not be used" in model.prompts[1]  # a corrective retry, structured
    assert (usage.calls, usage.invalid_answers, usage.retries) == (2, 1, 1)


async def test_async_structured_failure_raises_a_typed_error_when_the_text_is_bad_too() -> None:
    llm = LangChainLLM(StructuredFakeChatModel(script=["no", "still no"]))
    with pytest.raises(LLMAnswerError, match="Verdict"):
        await llm.acomplete_json("pair?", Verdict)


def test_structured_false_hides_the_json_methods() -> None:
    llm = LangChainLLM(StructuredFakeChatModel(script=["x"]), structured=False)
    assert not supports_structured(llm)


def test_batch_keeps_order_and_bounds_concurrency() -> None:
    llm = LangChainLLM(PromptFakeChatModel(answer=lambda p: p.upper()), max_concurrency=2)
    assert llm.batch(["a", "b", "c"]) == ["A", "B", "C"]
    assert asyncio.run(llm.abatch(["d", "e"])) == ["D", "E"]
    assert llm.batch([]) == []
    assert llm.run_config(max_concurrency=2)["max_concurrency"] == 2


class _Names(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []
        self.tags: list[list[str]] = []

    def on_chat_model_start(self, serialized, messages, **kwargs):  # type: ignore[no-untyped-def]
        self.names.append(kwargs.get("name"))
        self.tags.append(kwargs.get("tags") or [])


def test_run_names_config_and_callbacks_reach_the_model() -> None:
    handler = _Names()
    llm = LangChainLLM(
        PromptFakeChatModel(),
        config={"callbacks": [handler], "tags": ["ingest"], "metadata": {"team": "docs"}},
    )
    token = CURRENT_TASK.set("continuity")
    try:
        with collect_runs() as runs:
            llm.complete("hello")
    finally:
        CURRENT_TASK.reset(token)
    assert handler.names == ["chop.continuity"]
    assert {"ingest", "chop"} <= set(handler.tags[0])
    run = runs.traced_runs[0]
    assert run.name == "chop.continuity"
    assert run.extra["metadata"]["chop_task"] == "continuity"
    assert run.extra["metadata"]["team"] == "docs"


def test_run_name_outside_a_decision() -> None:
    with collect_runs() as runs:
        LangChainLLM(PromptFakeChatModel(), run_name_prefix="ingest").complete("x")
    assert [r.name for r in runs.traced_runs] == ["ingest.llm"]


def _decision(prompt: str) -> Decision[bool]:
    def parse(answer: str) -> bool:
        found = {"TRUE": True, "FALSE": False}.get(answer.strip())
        if found is None:
            raise AnswerParseError("say TRUE or FALSE")
        return found

    return Decision(prompt=prompt, parse=parse, fallback=lambda: True, task="continuity", document="d", position=0)


def test_a_decision_through_the_policy_is_traced_by_its_task() -> None:
    llm = LangChainLLM(PromptFakeChatModel())
    runner = LLMRunner(llm, usage=UsageReport(), token_counter=len)
    prompt = "Continue? Answer TRUE or FALSE.\nA ends: the KX-200 lens\nB starts: The KX-300 body"
    with collect_runs() as runs:
        assert run_sync(adecide(_decision(prompt), runner, "raise")) is False
        assert asyncio.run(adecide(_decision(prompt), runner, "raise")) is False
    assert [r.name for r in runs.traced_runs] == ["chop.continuity", "chop.continuity"]
    assert CURRENT_TASK.get() is None
