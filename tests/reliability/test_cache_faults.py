"""Cache faults end to end, through the engines: concurrent writers, a killed process, a corrupt file.

The cache itself is tested in tests/efficiency; here the question is what a
user sees: the run never crashes, and a cached run gives exactly the chunks
and signatures of an uncached one (no wrong answer is ever served).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.sqlite_cache import SQLiteCache
from chop_integrations.testing import ScriptedLLM, SimulatedLLM

DOCS = [
    "\n\n".join(f"# Part {d}.{i}\nThe unit {d} step {i} moves the valve {i * d} times, then stops." for i in range(12))
    for d in range(1, 5)
]
METAS = [{"source": f"unit-{d}.txt"} for d in range(1, 5)]


def _engine(kind: str, llm: Any, cache: Any = None, **options: Any) -> Any:
    if kind == "lumber":
        return LumberChunker(llm, max_tokens=40, cache=cache, **options)
    return CHOPChunker(llm, max_tokens=40, cache=cache, **options)


def _view(per_doc: list[list[Any]]) -> list[list[tuple[int, int, str]]]:
    return [[(c.start, c.end, c.prefix) for c in chunks] for chunks in per_doc]


def _reference(kind: str) -> list[list[tuple[int, int, str]]]:
    return _view(_engine(kind, SimulatedLLM(latency_ms=0)).chunk_many(DOCS, metadatas=METAS))


def _cache_only(kind: str, path: Path) -> Any:
    """An engine whose LLM fails every call: it can only answer from the cache."""
    refuse = ScriptedLLM(default=RuntimeError("the cache should have answered"), model_id=SimulatedLLM().model_id)
    return _engine(kind, refuse, SQLiteCache(path), on_llm_error="raise")


def _fill(kind: str, path: str, rounds: int) -> None:
    for _ in range(rounds):
        _engine(kind, SimulatedLLM(latency_ms=0), SQLiteCache(path)).chunk_many(DOCS, metadatas=METAS)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["lumber", "chop"])
def test_concurrent_writers_threads_and_processes(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "shared.sqlite"
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_fill, args=(kind, str(path), 2)) for _ in range(2)]
    threads = [threading.Thread(target=_fill, args=(kind, str(path), 2)) for _ in range(3)]
    for worker in (*processes, *threads):
        worker.start()
    for thread in threads:
        thread.join(timeout=120)
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    engine = _cache_only(kind, path)
    assert _view(engine.chunk_many(DOCS, metadatas=METAS)) == _reference(kind)
    assert engine.last_usage.calls == 0 and engine.last_usage.cache_hits > 0


KILLER = """
import os, signal, sys
from chop_integrations import {cls}
from chop_integrations._llm.cache import SQLiteCache
from chop_integrations.testing import SimulatedLLM

class Dying(SimulatedLLM):
    def complete(self, prompt):
        if self.calls >= {after}:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().complete(prompt)

    async def acomplete(self, prompt):
        if self.calls >= {after}:
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().acomplete(prompt)

docs = {docs!r}
metas = {metas!r}
{cls}(Dying(latency_ms=0), max_tokens=40, max_concurrency=1, cache=SQLiteCache(sys.argv[1])).chunk_many(
    docs, metadatas=metas
)
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["lumber", "chop"])
def test_a_process_killed_mid_run_leaves_a_cache_that_serves_only_right_answers(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "killed.sqlite"
    cls = "LumberChunker" if kind == "lumber" else "CHOPChunker"
    script = KILLER.format(cls=cls, after=2, docs=DOCS, metas=METAS)
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, timeout=120, check=False)
    assert done.returncode == -9, done.stderr.decode()[-2000:]
    engine = _engine(kind, SimulatedLLM(latency_ms=0), SQLiteCache(path))
    assert _view(engine.chunk_many(DOCS, metadatas=METAS)) == _reference(kind)
    assert engine.last_usage.cache_hits >= 1 and engine.last_usage.calls >= 1


@pytest.mark.parametrize("damage", ["truncate", "scribble"])
@pytest.mark.parametrize("kind", ["lumber", "chop"])
def test_a_corrupt_cache_file_costs_calls_never_the_run_or_a_wrong_answer(
    tmp_path: Path, kind: str, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.sqlite"
    _fill(kind, str(path), 1)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    else:  # overwrite every page after the first with bytes that look like another answer
        path.write_bytes(data[:4096] + (b'{"starts": [2]}' * (len(data) // 15 + 1))[: len(data) - 4096])
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    engine = _engine(kind, SimulatedLLM(latency_ms=0), SQLiteCache(path))
    assert _view(engine.chunk_many(DOCS, metadatas=METAS)) == _reference(kind)
    again = _engine(kind, SimulatedLLM(latency_ms=0), SQLiteCache(path))
    assert _view(again.chunk_many(DOCS, metadatas=METAS)) == _reference(kind)
    assert again.last_usage.calls == 0  # rebuilt and refilled


def test_a_cache_file_damaged_while_open_does_not_crash_the_next_run(tmp_path: Path) -> None:
    path = tmp_path / "open.sqlite"
    cache = SQLiteCache(path)
    engine = _engine("chop", SimulatedLLM(latency_ms=0), cache)
    engine.chunk_many(DOCS, metadatas=METAS)
    path.write_bytes(os.urandom(path.stat().st_size))
    assert _view(engine.chunk_many(DOCS, metadatas=METAS)) == _reference("chop")


def test_a_file_of_garbage_is_refused_before_any_call_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    llm = SimulatedLLM(latency_ms=0)
    with pytest.raises(ConfigurationError, match="not a chop-integrations answer cache"):
        _engine("chop", llm, str(path))
    assert llm.calls == 0 and path.read_bytes() == garbage
