"""After an async run raised under ``on_llm_error="raise"``, the model is never called again.

``achunk_many`` used to raise the first ``LLMCallError`` while the rest of its tasks went on
calling the model in the caller's event loop (CHOP's window mode 11 more calls; pair and separate
28 calls in the next 3 s; LumberChunker's paper mode 8). Now the pending work is cancelled before
the error reaches the caller: no call starts after the raise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._errors import LLMCallError
from chop_integrations._llm.aio import gather_limited
from chop_integrations.testing import valid_answer

DOCS = [
    "\n\n".join(f"Document {d}, part {i}: the KX-{d}{i} pump needs a clean filter." for i in range(8))
    for d in range(12)
]


class FailsOnce:
    """An async model that answers validly after a short wait, but fails its ``fail_at``-th call for good."""

    def __init__(self, fail_at: int = 4) -> None:
        self.model_id = "fails-once"
        self.calls = 0
        self.fail_at = fail_at

    def complete(self, prompt: str) -> str:
        raise AssertionError("the async path is under test")

    async def acomplete(self, prompt: str) -> str:
        self.calls += 1
        number = self.calls
        await asyncio.sleep(0.01)
        if number == self.fail_at:
            raise RuntimeError("the provider is gone")  # not transient: no retry
        return valid_answer(prompt)


ENGINES: dict[str, Callable[[FailsOnce], CHOPChunker | LumberChunker]] = {
    "chop-window": lambda llm: CHOPChunker(
        llm, max_tokens=30, decisions="window", on_llm_error="raise", max_concurrency=2
    ),
    "chop-pair": lambda llm: CHOPChunker(llm, max_tokens=30, decisions="pair", on_llm_error="raise", max_concurrency=2),
    "chop-separate": lambda llm: CHOPChunker(
        llm, max_tokens=30, decisions="separate", on_llm_error="raise", max_concurrency=2
    ),
    "lumber-paper": lambda llm: LumberChunker(
        llm, max_tokens=120, theta=60, mode="paper", on_llm_error="raise", max_concurrency=2
    ),
    "lumber-default": lambda llm: LumberChunker(llm, max_tokens=30, on_llm_error="raise", max_concurrency=2),
}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_no_model_call_after_achunk_many_raised(name: str) -> None:
    llm = FailsOnce()
    engine = ENGINES[name](llm)

    async def run() -> tuple[int, int]:
        with pytest.raises(LLMCallError):
            await engine.achunk_many(DOCS)
        at_raise = llm.calls
        await asyncio.sleep(0.3)  # the caller's loop goes on: anything left running would call now
        return at_raise, llm.calls

    at_raise, later = asyncio.run(run())
    assert at_raise >= llm.fail_at
    assert later == at_raise


def test_gather_limited_cancels_the_rest_on_the_first_error() -> None:
    started: list[int] = []

    async def one(index: int) -> int:
        started.append(index)
        await asyncio.sleep(0.01 if index else 0)
        if index == 0:
            raise ValueError("first")
        await asyncio.sleep(0.05)
        return index

    async def run() -> None:
        factories = [lambda i=i: one(i) for i in range(20)]
        with pytest.raises(ValueError, match="first"):
            await gather_limited(factories, 4)
        count = len(started)
        await asyncio.sleep(0.2)
        assert len(started) == count and count <= 4 + 1

    asyncio.run(run())
