"""``last_usage`` belongs to the thread that ran: another thread's run never replaces it."""

from __future__ import annotations

import asyncio
import threading
from contextvars import ContextVar
from typing import Any

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._llm.aio import run_sync

#: Which test thread a call serves (context variables follow the call into the engines' worker threads).
WHO: ContextVar[str] = ContextVar("who", default="")
DOC = "KX-200 manual.\n\nInsert the battery.\n\nKX-300 manual.\n\nThe KX-300 flies."


@pytest.mark.parametrize("engine", ["lumber", "chop"])
def test_a_thread_reads_its_own_run_even_when_another_finished_later(engine: str) -> None:
    b_ran, a_done = threading.Event(), threading.Event()

    def answer(prompt: str) -> str:
        if WHO.get() == "A":
            b_ran.wait(10)  # A's run ends only after B's run ended
        return '{"starts": []}' if "starts" in prompt else "TRUE"

    chunker: Any = LumberChunker(answer, max_tokens=16) if engine == "lumber" else CHOPChunker(answer, max_tokens=16)
    seen: dict[str, int] = {}

    def run_a() -> None:
        WHO.set("A")
        chunker.chunk_many([DOC])  # one document
        a_done.set()
        seen["A"] = chunker.last_usage.documents

    def run_b() -> None:
        chunker.chunk_many([DOC, DOC, DOC])  # three documents
        b_ran.set()
        a_done.wait(10)  # A's run has now finished after ours
        seen["B"] = chunker.last_usage.documents

    threads = [threading.Thread(target=run_a, name="A"), threading.Thread(target=run_b, name="B")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert b_ran.is_set() and a_done.is_set()
    assert seen == {"A": 1, "B": 3}


def test_a_sync_call_from_inside_a_running_loop_reports_to_the_caller() -> None:
    """run_sync runs the coroutine on a helper thread (Jupyter); the report still goes to the caller's thread."""
    chunker = LumberChunker(lambda prompt: '{"starts": []}', max_tokens=16)

    async def inside_a_loop() -> int:
        await chunker.achunk_many([DOC])  # this thread's earlier run: one document
        await asyncio.to_thread(lambda: None)
        chunker.chunk_many([DOC, DOC])  # a sync call inside the loop: run_sync uses a helper thread
        return chunker.last_usage.documents

    assert asyncio.run(inside_a_loop()) == 2
    assert run_sync(asyncio.sleep(0, result=1)) == 1
