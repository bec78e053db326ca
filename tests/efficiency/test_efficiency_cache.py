"""The answer caches: persistence, concurrent writers, crashes and corrupt files never cost a run or a right answer."""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cache_worker import value_for
from efficiency_fakes import FlakyLLM

from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.cache import InMemoryCache, resolve_cache
from chop_integrations._llm.runner import LLMRunner, cache_key
from chop_integrations._llm.sqlite_cache import DEFAULT_FILE_NAME, SQLiteCache
from chop_integrations._llm.usage import UsageReport

WORKER = Path(__file__).with_name("cache_worker.py")


def worker(*args: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER.parent), os.environ.get("PYTHONPATH", "")])}
    return [sys.executable, str(WORKER), *args], env  # type: ignore[return-value]


def fill(cache: SQLiteCache, n: int, name: str = "k") -> dict[str, str]:
    data = {f"{name}-{i}": value_for(name, i) for i in range(n)}
    for key, value in data.items():
        cache.set(key, value)
    return data


def checkpoint(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def assert_never_wrong(cache: SQLiteCache, data: dict[str, str]) -> int:
    served = 0
    for key, value in data.items():
        got = cache.get(key)
        assert got in (None, value), f"wrong answer served for {key}"
        served += got is not None
    return served


# -- basics --------------------------------------------------------------------------------


def test_in_memory_cache_roundtrip() -> None:
    cache = InMemoryCache()
    assert cache.get("a") is None
    cache.set("a", "1")
    assert cache.get("a") == "1" and "a" in cache and len(cache) == 1
    assert (cache.hits, cache.misses) == (1, 1)
    cache.clear()
    assert cache.get("a") is None


def test_in_memory_cache_fronts_a_backing_store(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "answers.sqlite") as disk:
        disk.set("old", "from disk")
        cache = InMemoryCache(backing=disk)
        cache.set("new", "written through")
        assert disk.get("new") == "written through"
        assert cache.get("old") == "from disk" and "old" in cache  # kept in memory once read
        assert cache.get("none") is None
        assert (cache.hits, cache.misses) == (1, 1)
        copy = pickle.loads(pickle.dumps(cache))
        disk.set("later", "seen by the copy")
        assert copy.get("later") == "seen by the copy"


def test_sqlite_cache_persists_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "answers.sqlite"
    with SQLiteCache(path) as cache:
        cache.set("a", "first")
        cache.set("a", "second")
        cache.set("empty", "")
        cache.set("unicode", "Grüße \u202e \U0001f600")
    reopened = SQLiteCache(path)
    assert reopened.get("a") == "second"
    assert reopened.get("empty") == ""
    assert reopened.get("unicode") == "Grüße \u202e \U0001f600"
    assert reopened.get("missing") is None
    assert len(reopened) == 3
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_directory_path_gets_the_default_file(tmp_path: Path) -> None:
    cache = resolve_cache(tmp_path)
    assert isinstance(cache, SQLiteCache) and cache.path == tmp_path / DEFAULT_FILE_NAME


def test_resolve_cache_accepts_none_paths_and_objects(tmp_path: Path) -> None:
    assert resolve_cache(None) is None
    assert resolve_cache(False) is None
    assert isinstance(resolve_cache(str(tmp_path / "c.sqlite")), SQLiteCache)
    memory = InMemoryCache()
    assert resolve_cache(memory) is memory
    with pytest.raises(ConfigurationError, match="get\\(key\\)"):
        resolve_cache(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="empty path"):
        resolve_cache("")


def test_pickled_cache_reopens_the_same_file(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "c.sqlite")
    cache.set("a", "1")
    clone = pickle.loads(pickle.dumps(cache))
    assert clone.get("a") == "1" and clone.path == cache.path


# -- the runner and the cache --------------------------------------------------------------


def make_runner(llm: FlakyLLM, cache: object) -> LLMRunner:
    return LLMRunner(llm, usage=UsageReport(), token_counter=lambda t: len(t.split()), cache=cache)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_repeated_run_makes_zero_calls(tmp_path: Path, kind: str) -> None:
    prompts = [f"prompt number {i}" for i in range(25)]
    shared = InMemoryCache() if kind == "memory" else None

    def run() -> tuple[FlakyLLM, LLMRunner, list[str]]:
        cache = shared if shared is not None else SQLiteCache(tmp_path / "c.sqlite")
        llm = FlakyLLM([], default="answer")
        r = make_runner(llm, cache)
        return llm, r, [r.ask(p) for p in prompts]

    first_llm, first, answers = run()
    assert first_llm.calls == 25 and first.usage.cache_hits == 0
    second_llm, second, again = run()
    assert second_llm.calls == 0 and second.usage.calls == 0
    assert second.usage.cache_hits == 25 and again == answers
    assert second.usage.prompt_tokens == first.usage.prompt_tokens  # amplification counts cached prompts too


def test_disabled_cache_calls_every_time() -> None:
    llm = FlakyLLM([], default="answer")
    r = make_runner(llm, resolve_cache(None))
    r.ask("same")
    asyncio.run(r.aask("same"))
    assert llm.calls == 2 and r.usage.cache_hits == 0


def test_model_identity_and_schema_are_part_of_the_key() -> None:
    from chop_integrations._types import CNM

    assert cache_key("m:temperature=0", "p", None) != cache_key("m:temperature=0.7", "p", None)
    assert cache_key("m", "p", None) != cache_key("m", "p", CNM)
    assert cache_key("m", "p", None) != cache_key("m", "p ", None)  # the prompt, to the last character


#: Keys as this package has written them since the cache format was set (a change makes every cached answer of
#: every user a miss: change them only with the format, and say so in the changelog). Schema keys are left out:
#: they hold pydantic's JSON schema, whose text a pydantic release may change.
PINNED_KEYS = {
    ("m:temperature=0", "p"): "2b498b35711d9bc9b8ccb5527ea171cd932668bc753abebcd11c4bd818aaec9d",
    ("gpt-4o-mini:max_tokens=4", "数据库 \ud800?"): "65636de7da7f548a0e64daa85eb9718a02b26084b8a0e174dabb95fbaf63d221",
}
_KEYS_SCRIPT = """
import json, sys
from chop_integrations._llm.runner import cache_key
from chop_integrations._types import CNM
pairs = json.loads(sys.stdin.read())
print(json.dumps([cache_key(m, p, None) for m, p in pairs] + [cache_key("m", "p", CNM)]))
"""


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_cache_keys_are_the_pinned_ones_in_a_fresh_process(hash_seed: str) -> None:
    """A key written by one process is found by every other: no hash seed, set order or address enters it."""
    from chop_integrations._types import CNM

    pairs = list(PINNED_KEYS)
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", _KEYS_SCRIPT], input=json.dumps(pairs), env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    *keys, schema_key = json.loads(done.stdout)
    assert keys == list(PINNED_KEYS.values()) == [cache_key(m, p, None) for m, p in pairs]
    assert schema_key == cache_key("m", "p", CNM)


def test_failing_user_cache_costs_a_call_not_the_run(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def get(self, key: str) -> str | None:
            raise OSError("disk gone")

        def set(self, key: str, value: str) -> None:
            raise OSError("disk gone")

    llm = FlakyLLM([], default="answer")
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert make_runner(llm, Broken()).ask("p") == "answer"
    assert "lookup failed" in caplog.text and "write failed" in caplog.text


# -- concurrent writers ----------------------------------------------------------------------


def test_concurrent_writers_from_threads(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    shared = SQLiteCache(path)
    errors: list[BaseException] = []

    def write(name: str, own: bool) -> None:
        try:
            cache = SQLiteCache(path) if own else shared
            for i in range(150):
                cache.set(f"{name}-{i}", value_for(name, i))
                assert cache.get(f"{name}-{i}") == value_for(name, i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(f"t{n}", n % 2 == 0)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    check = SQLiteCache(path)
    assert len(check) == 8 * 150
    assert all(check.get(f"t{n}-{i}") == value_for(f"t{n}", i) for n in range(8) for i in range(150))


def test_concurrent_writers_from_processes(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    procs = []
    for n in range(4):
        cmd, env = worker(str(path), f"p{n}", "200")
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "done" in out
        assert "WARNING" not in err, err  # no write was skipped for a busy lock
    check = SQLiteCache(path)
    assert len(check) == 4 * 200
    assert all(check.get(f"p{n}-{i}") == value_for(f"p{n}", i) for n in range(4) for i in range(200))


def _child_writes(cache: SQLiteCache, name: str) -> None:
    for i in range(50):
        cache.set(f"{name}-{i}", value_for(name, i))


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX only")
def test_cache_object_survives_fork(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "c.sqlite")
    cache.set("parent", "before fork")
    context = multiprocessing.get_context("fork")
    children = [context.Process(target=_child_writes, args=(cache, f"f{n}")) for n in range(3)]
    for child in children:
        child.start()
    cache.set("parent2", "during")
    for child in children:
        child.join(60)
        assert child.exitcode == 0
    assert cache.get("f2-49") == value_for("f2", 49)
    assert len(cache) == 2 + 3 * 50


# -- crashes and damage ----------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX only")
def test_process_killed_mid_write_leaves_a_usable_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cmd, env = worker(str(path), "w", "300", "--forever")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    cache = SQLiteCache(path)
    data = {f"w-{i}": value_for("w", i) for i in range(300)}
    assert assert_never_wrong(cache, data) >= 20
    cache.set("after", "crash")
    assert cache.get("after") == "crash"
    assert cache.rebuilds == 0  # a killed writer is not corruption: nothing was thrown away


def test_uncommitted_transaction_is_rolled_back(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    cache.set("kept", "yes")
    cache.close()
    cmd, env = worker(str(path), "x", "1", "--uncommitted")
    subprocess.run(cmd, env=env, check=True, timeout=60)
    reopened = SQLiteCache(path)
    assert reopened.get("half-written") is None
    assert reopened.get("kept") == "yes"
    assert len(reopened) == 1


def test_an_empty_file_becomes_a_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"")
    cache = SQLiteCache(path)
    assert cache.get("a") is None
    cache.set("a", "1")
    assert cache.get("a") == "1" and cache.rebuilds == 0  # an empty file is a valid, empty database


@pytest.mark.parametrize("name", ["__init__.py", "notes.txt", "lock"])
def test_an_empty_file_not_named_like_a_database_is_refused_and_left_empty(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(ConfigurationError, match="empty file not named like a database"):
        SQLiteCache(path)
    assert path.read_bytes() == b"" and [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("content", [b"not a database at all\n" * 500, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_file_that_is_not_a_cache_is_refused_never_moved(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(content)
    with pytest.raises(ConfigurationError, match="not a chop-integrations answer cache"):
        SQLiteCache(path)
    assert path.read_bytes() == content and [p.name for p in tmp_path.iterdir()] == ["c.sqlite"]


def test_truncated_file_never_serves_a_wrong_answer(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    data = fill(cache, 400)
    cache.close()
    checkpoint(path)
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        damaged = SQLiteCache(path)
        assert_never_wrong(damaged, data)
        damaged.set("new", "value")
        assert damaged.get("new") == "value"
    assert damaged.rebuilds == 1 and "corrupt" in caplog.text


@pytest.mark.parametrize("seed", range(6))
def test_random_byte_damage_never_serves_a_wrong_answer(tmp_path: Path, seed: int) -> None:
    import random

    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    data = fill(cache, 300)
    cache.close()
    checkpoint(path)
    rng = random.Random(seed)
    blob = bytearray(path.read_bytes())
    for _ in range(40):
        position = rng.randrange(100, len(blob))
        blob[position] = rng.randrange(256)
    path.write_bytes(bytes(blob))
    damaged = SQLiteCache(path)
    assert_never_wrong(damaged, data)
    damaged.set("new", "value")
    assert damaged.get("new") == "value"


def test_tampered_row_fails_its_checksum(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    cache.set("a", "the right answer")
    raw = sqlite3.connect(path)
    raw.execute("UPDATE answers SET value = 'a wrong answer' WHERE key = 'a'")
    raw.commit()
    raw.close()
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert cache.get("a") is None
    assert "damaged entry" in caplog.text
    assert len(cache) == 0  # the damaged row was removed, the next answer is stored afresh


def test_foreign_sqlite_database_is_not_mistaken_for_a_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE answers (key TEXT, value TEXT)")
    other.execute("INSERT INTO answers VALUES ('a', 'foreign')")
    other.commit()
    other.close()
    with pytest.raises(ConfigurationError, match="not a chop-integrations answer cache"):
        SQLiteCache(path)
    still = sqlite3.connect(path)
    assert still.execute("SELECT value FROM answers").fetchall() == [("foreign",)]  # left as it was
    still.close()
