"""The usage report says what a run spent: after a raise too, and every HTTP request a client sent.

Two gaps: a run that raised reported ``wall_s=0.00 token_counter=?``; and under a persistent 429,
``ChatOpenAI`` (which retries by itself, ``max_retries=2``) sent 12 requests while the report said
``calls=4 retries=0``. Now ``calls`` counts every request the package can observe (event hooks on
the client's httpx clients: the client's own retries included, also in ``retries``), and a client
that retries by itself out of sight is named in a warning that says its calls count one each.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_openai import ChatOpenAI

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._errors import LLMCallError
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations._llm.runner import LLMRunner
from chop_integrations._llm.usage import UsageReport
from chop_integrations.langchain import LangChainLLM
from tests.support.openai_server import Fault, OpenAITestServer

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
def rate_limited() -> Iterator[OpenAITestServer]:
    """A local OpenAI-compatible server on a free loopback port that answers 429 to every request."""
    with OpenAITestServer(port=0, fault=Fault("rate_limit")) as running:
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


# -- after a run that raised -------------------------------------------------------------------------


def failing(prompt: str) -> str:
    raise RuntimeError("the provider is gone")  # not transient: one attempt, then the policy raises


@pytest.mark.parametrize(
    "engine",
    [
        lambda: CHOPChunker(failing, max_tokens=20, on_llm_error="raise", token_counter="chars"),
        lambda: LumberChunker(failing, max_tokens=20, on_llm_error="raise", token_counter="chars"),
        lambda: LumberChunker(failing, max_tokens=50, mode="paper", on_llm_error="raise", token_counter="chars"),
    ],
    ids=["chop", "lumber-default", "lumber-paper"],
)
def test_a_run_that_raised_reports_its_time_and_token_counter(engine: Any) -> None:
    chunker = engine()
    with pytest.raises(LLMCallError):
        chunker.chunk(TWO_TOPICS)
    usage = chunker.last_usage
    assert usage.calls >= 1
    assert usage.wall_s > 0
    assert usage.token_counter == "chars"
    assert "token_counter=chars" in usage.summary()


# -- every request a client sent -----------------------------------------------------------------------


@pytest.mark.parametrize("run", ["sync", "async"])
def test_persistent_429_with_chat_openai_counts_every_request_the_server_got(
    rate_limited: OpenAITestServer, run: str
) -> None:
    chop = CHOPChunker(chat_openai(rate_limited), max_tokens=24, retry=FAST_RETRY)  # max_retries=2: 3 per call
    if run == "sync":
        chunks = chop.chunk(TWO_TOPICS)
    else:
        chunks = asyncio.run(chop.achunk(TWO_TOPICS))
    assert "".join(c.text for c in chunks) == TWO_TOPICS
    usage = chop.last_usage
    assert usage.fallbacks >= 1
    assert usage.calls == len(rate_limited.requests) == 3 * usage.fallbacks
    assert usage.retries == 2 * usage.fallbacks  # the client's own retries


def test_a_runner_counts_the_client_requests_of_one_call(rate_limited: OpenAITestServer) -> None:
    usage = UsageReport()
    runner = LLMRunner(LangChainLLM(chat_openai(rate_limited, max_retries=4)), usage=usage, token_counter=len)
    with pytest.raises(LLMCallError):
        runner.ask("Does B continue A?")
    assert (usage.calls, usage.retries) == (5, 4) == (len(rate_limited.requests), len(rate_limited.requests) - 1)


class SelfRetrying:
    """A model whose client retries by itself where nobody can see it (no httpx client to watch)."""

    model_id = "opaque"
    retries_itself = True

    def complete(self, prompt: str) -> str:
        return "TRUE"

    async def acomplete(self, prompt: str) -> str:
        return "TRUE"


def test_a_client_retrying_out_of_sight_is_named_in_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    usage = UsageReport()
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        runner = LLMRunner(SelfRetrying(), usage=usage, token_counter=len)
        runner.ask("p")
    assert usage.calls == 1
    assert any("opaque" in r.message and "cannot be observed" in r.message for r in caplog.records)
