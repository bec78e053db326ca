"""Timed-out calls to a hung sync model leave no growing pile of threads behind.

A sync-only model is called from a daemon worker thread so that a ``timeout`` can abandon it
(Python cannot stop a thread). Each abandoned call used to keep its own thread: 94, 187, 280 live
threads over three runs. The calls now run on one process-wide pool of at most
:data:`~chop_integrations._llm.aio.MAX_CALL_THREADS` daemon threads; a call queued behind hung
ones times out like any other, and one abandoned before it started is never made.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._llm import aio
from chop_integrations._llm.aio import CallThreads, acall_in_daemon_thread
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations.testing import valid_answer

CAP = 6
DOCUMENT = "\n\n".join(f"Part {i}: the KX-{i} pump needs a clean filter every month." for i in range(30))


class Hang:
    """A sync model that blocks until released, counting the calls it started."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self._lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self._lock:
            self.started += 1
        self.release.wait(30)
        return valid_answer(prompt)


@pytest.fixture
def hang(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hang]:
    """A hung model, on a fresh pool capped at CAP threads for the test; released (threads freed) at the end."""
    monkeypatch.setattr(aio, "CALL_THREADS", CallThreads(CAP))
    model = Hang()
    yield model
    model.release.set()


def _call_threads_since(before: set[int | None]) -> int:
    """Live threads of the call pool started since ``before`` (another test's threads may end meanwhile)."""
    return sum(t.name == "chop-llm-call" and t.ident not in before for t in threading.enumerate())


def _no_sleep(seconds: float) -> None:
    return None


async def _ano_sleep(seconds: float) -> None:
    return None


@pytest.mark.parametrize("engine", ["chop", "lumber"])
def test_three_runs_against_a_hung_model_do_not_add_threads(hang: Hang, engine: str) -> None:
    retry = RetryPolicy(max_attempts=2, sleep=_no_sleep, asleep=_ano_sleep)
    before = {thread.ident for thread in threading.enumerate()}
    counts = []
    for _ in range(3):
        if engine == "chop":
            chunker: CHOPChunker | LumberChunker = CHOPChunker(
                hang, max_tokens=30, decisions="separate", timeout=0.05, retry=retry, max_concurrency=8
            )
        else:
            chunker = LumberChunker(hang, max_tokens=30, timeout=0.05, retry=retry, max_concurrency=8)
        chunks = chunker.chunk(DOCUMENT)
        assert "".join(c.text for c in chunks) == DOCUMENT
        assert chunker.last_usage.fallbacks >= 1
        counts.append(_call_threads_since(before))
    assert 0 < counts[0] == counts[1] == counts[2] <= CAP  # the hung calls hold the pool: no more threads
    assert hang.started <= CAP  # a call that timed out while queued was never made


def test_a_call_abandoned_while_queued_is_never_made(hang: Hang) -> None:
    async def run() -> None:
        for _ in range(CAP):  # occupy every thread of the pool
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(acall_in_daemon_thread(hang, "p"), 0.05)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(acall_in_daemon_thread(hang, "queued"), 0.05)

    asyncio.run(run())
    assert hang.started == CAP
    hang.release.set()
    ran: list[int] = []

    def healthy() -> str:
        ran.append(1)
        return "ok"

    assert asyncio.run(acall_in_daemon_thread(healthy)) == "ok"  # the pool works again
    assert ran == [1] and hang.started == CAP  # the abandoned queued call was dropped, not made late


def test_results_and_errors_cross_back() -> None:
    async def run() -> None:
        assert await acall_in_daemon_thread(str.upper, "abc") == "ABC"
        with pytest.raises(ZeroDivisionError):
            await acall_in_daemon_thread(lambda: 1 / 0)

    asyncio.run(run())
