"""Real clients (``ChatOpenAI``, LlamaIndex ``OpenAI``) against the local server's faults.

Each test starts :class:`~tests.support.openai_server.OpenAITestServer` on a free
loopback port with one fault (429 forever, empty ``choices``, an HTML body) and
counts the HTTP requests that reach it. No cassette: the faults are the point.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_openai import ChatOpenAI
from llama_index.llms.openai import OpenAI as LlamaOpenAI

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._chop.answers import ContinuityAnswer
from chop_integrations._errors import LLMAnswerError, LLMCallError, LLMResponseError
from chop_integrations._llm.aio import run_sync
from chop_integrations._llm.policy import Decision, adecide
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations._llm.runner import LLMRunner
from chop_integrations._llm.usage import UsageReport
from chop_integrations.langchain import LangChainLLM
from chop_integrations.llama_index import LlamaIndexLLM
from tests.support.openai_server import Fault, OpenAITestServer

PAIR = "Does B continue A? Answer TRUE or FALSE.\nA ends: ...the KX-200 lens.\nB starts: The KX-300 battery."
TWO_TOPICS = (
    "KX-200 camera manual.\n\nInsert the battery into the KX-200 until it clicks.\n\n"
    "Charging takes two hours.\n\nKX-300 drone manual.\n\nThe KX-300 flies for twenty minutes."
)


def _no_sleep(seconds: float) -> None:
    return None


async def _ano_sleep(seconds: float) -> None:
    return None


FAST_RETRY = RetryPolicy(max_attempts=3, sleep=_no_sleep, asleep=_ano_sleep)


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[OpenAITestServer]:
    """A server on a free port with the fault named by the test's ``fault`` parameter (or none)."""
    kind = getattr(request, "param", None)
    with OpenAITestServer(port=0, fault=Fault(kind) if kind else None) as running:
        yield running


def chat_openai(server: OpenAITestServer, **options: Any) -> ChatOpenAI:
    return ChatOpenAI(
        http_async_client=httpx.AsyncClient(),
        base_url=server.base_url,
        api_key="test",  # type: ignore[arg-type]
        model="gpt-4o-mini",
        temperature=0,
        **options,
    )


def llama_openai(server: OpenAITestServer, **options: Any) -> LlamaOpenAI:
    return LlamaOpenAI(model="gpt-4o-mini", api_base=server.base_url, api_key="test", temperature=0, **options)


def decision(schema: Any = None) -> Decision[Any]:
    return Decision(
        prompt=PAIR,
        parse=lambda answer: ("answered", answer),
        fallback=lambda: "offline",
        task="continuity",
        document="doc-1",
        position=42,
        schema=schema,
    )


# -- finding 2: retries never stack ---------------------------------------------------------------


@pytest.mark.parametrize("server", ["rate_limit"], indirect=True)
@pytest.mark.parametrize("schema", [None, ContinuityAnswer], ids=["text", "structured"])
@pytest.mark.parametrize("run", ["sync", "async"])
def test_persistent_429_costs_chat_openai_its_own_three_attempts(
    server: OpenAITestServer, schema: Any, run: str
) -> None:
    llm = LangChainLLM(chat_openai(server))  # ChatOpenAI's default max_retries=2: 3 requests
    assert llm.retries_itself
    usage = UsageReport()
    runner = LLMRunner(llm, usage=usage, token_counter=len, retry=FAST_RETRY)
    if run == "sync":
        assert run_sync(adecide(decision(schema), runner, "fallback")) == "offline"
    else:
        assert asyncio.run(adecide(decision(schema), runner, "fallback")) == "offline"
    assert len(server.requests) == 3
    assert (usage.calls, usage.retries, usage.fallbacks) == (3, 2, 1)  # every request the client was seen sending


@pytest.mark.parametrize("server", ["rate_limit"], indirect=True)
@pytest.mark.parametrize("schema", [None, ContinuityAnswer], ids=["text", "structured"])
@pytest.mark.parametrize("run", ["sync", "async"])
def test_persistent_429_costs_llama_index_openai_four_attempts(
    server: OpenAITestServer, schema: Any, run: str, fake_sleep: Any
) -> None:
    llm = LlamaIndexLLM(llama_openai(server))  # max_retries=3 by default
    assert llm.retry_attempts == 4 and llm.llm.max_retries == 0
    usage = UsageReport()
    runner = LLMRunner(llm, usage=usage, token_counter=len)
    runner.retry.sleep, runner.retry.asleep = fake_sleep, fake_sleep.asleep
    if run == "sync":
        assert run_sync(adecide(decision(schema), runner, "fallback")) == "offline"
    else:
        assert asyncio.run(adecide(decision(schema), runner, "fallback")) == "offline"
    assert len(server.requests) == 4
    assert (usage.calls, usage.retries, usage.fallbacks) == (4, 3, 1)
    assert len(fake_sleep.delays) == 3  # the server's Retry-After (1 ms) honoured between attempts


@pytest.mark.parametrize("server", ["rate_limit"], indirect=True)
def test_persistent_429_through_the_engines(server: OpenAITestServer) -> None:
    """Every decision of a whole run costs at most the client's attempts: requests <= 3 x fallbacks."""
    chop = CHOPChunker(chat_openai(server), max_tokens=24, retry=FAST_RETRY)
    chunks = chop.chunk(TWO_TOPICS)
    assert "".join(c.text for c in chunks) == TWO_TOPICS
    usage = chop.last_usage
    assert usage.fallbacks >= 1 and usage.calls == 3 * usage.fallbacks
    assert len(server.requests) == usage.calls


@pytest.mark.parametrize("server", ["rate_limit"], indirect=True)
def test_a_429_under_raise_names_document_offset_and_task(server: OpenAITestServer) -> None:
    runner = LLMRunner(LangChainLLM(chat_openai(server, max_retries=0)), usage=UsageReport(), token_counter=len)
    runner.retry = FAST_RETRY
    with pytest.raises(LLMCallError, match=r"document 'doc-1', offset 42, task continuity") as caught:
        run_sync(adecide(decision(), runner, "raise"))
    assert "RateLimitError" in str(caught.value)
    assert len(server.requests) == 3  # max_retries=0 hands the retries to the runner's policy


# -- finding 3: malformed replies and bad structured answers --------------------------------------


@pytest.mark.parametrize("server", ["empty_choices", "html"], indirect=True)
@pytest.mark.parametrize("client", ["langchain", "llama_index"])
@pytest.mark.parametrize("schema", [None, ContinuityAnswer], ids=["text", "structured"])
def test_a_malformed_reply_is_a_clear_typed_error(server: OpenAITestServer, client: str, schema: Any) -> None:
    model = LangChainLLM(chat_openai(server, max_retries=0)) if client == "langchain" else None
    llm = model or LlamaIndexLLM(llama_openai(server, max_retries=0))
    usage = UsageReport()
    runner = LLMRunner(llm, usage=usage, token_counter=len, retry=FAST_RETRY)
    with pytest.raises(
        LLMResponseError, match=r"malformed reply.*(no choices|not a JSON chat completion).*document 'doc-1'"
    ):
        run_sync(adecide(decision(schema), runner, "raise"))
    assert len(server.requests) == 1  # not transient: no retry, no second request as text
    assert usage.calls == 1


def test_a_bad_structured_answer_from_chat_openai_gets_one_corrective_retry() -> None:
    answers = iter(['{"continues": "perhaps"}', '{"continues": false}'])

    def responder(body: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": next(answers)}

    with OpenAITestServer(port=0, responder=responder) as server:
        llm = LangChainLLM(chat_openai(server, max_retries=0), structured_method="json_schema")
        usage = UsageReport()
        runner = LLMRunner(llm, usage=usage, token_counter=len, retry=FAST_RETRY)
        _, answer = run_sync(adecide(decision(ContinuityAnswer), runner, "raise"))
        assert ContinuityAnswer.model_validate_json(answer) == ContinuityAnswer(continues=False)
        assert len(server.requests) == 2
        second = server.requests[1]
        assert "response_format" in second  # the corrective retry is structured again, not plain text
        assert "could not be used" in second["messages"][-1]["content"]
        assert (usage.calls, usage.invalid_answers, usage.retries) == (2, 1, 1)


def test_bad_structured_answers_under_raise_give_an_answer_error_and_a_usage_report() -> None:
    def responder(body: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": '{"continues": "perhaps"}'}

    with OpenAITestServer(port=0, responder=responder) as server:
        chop = CHOPChunker(
            chat_openai(server, max_retries=0), max_tokens=24, on_llm_error="raise", decisions="separate"
        )
        with pytest.raises(LLMAnswerError, match="task"):
            chop.chunk(TWO_TOPICS)
        assert chop.last_usage.calls == len(server.requests) >= 2
        assert chop.last_usage.invalid_answers >= 2


# -- finding 9: provider-reported tokens ------------------------------------------------------------


@pytest.mark.parametrize("client", ["langchain", "llama_index"])
@pytest.mark.parametrize("run", ["sync", "async"])
def test_usage_holds_the_provider_reported_tokens(server: OpenAITestServer, client: str, run: str) -> None:
    model = chat_openai(server) if client == "langchain" else llama_openai(server)
    lumber = LumberChunker(model, max_tokens=24, token_counter=len)  # len: estimates would be far larger
    if run == "sync":
        lumber.chunk(TWO_TOPICS)
    else:
        asyncio.run(lumber.achunk(TWO_TOPICS))
    usage = lumber.last_usage
    assert usage.calls == len(server.requests) >= 1
    assert usage.reported_calls == usage.calls and usage.estimated_calls == 0
    # The server counts whitespace-separated words: the provider's numbers, not len(prompt).
    assert usage.prompt_tokens < sum(len(m["content"]) for r in server.requests for m in r["messages"]) / 2


def test_structured_calls_without_reported_usage_count_the_schema() -> None:
    from chop_integrations.testing import ScriptedLLM

    class Structured(ScriptedLLM):
        def complete_json(self, prompt: str, schema: Any) -> Any:
            return schema.model_validate_json(self.complete(prompt))

        async def acomplete_json(self, prompt: str, schema: Any) -> Any:
            return schema.model_validate_json(await self.acomplete(prompt))

    usage = UsageReport()
    runner = LLMRunner(Structured(default='{"continues": true}'), usage=usage, token_counter=len)
    runner.ask("p", ContinuityAnswer)
    assert usage.estimated_calls == 1 and usage.reported_calls == 0
    assert usage.prompt_tokens == len("p") + len(__import__("json").dumps(ContinuityAnswer.model_json_schema()))
