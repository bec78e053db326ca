"""Processes that share one SQLite cache file keep every answer any of them stored.

The pattern of Ray actors (and of any pool of workers): each process builds the cache in one thread and asks
and answers in another (a second connection), and a process that finishes first exits, closing its
connections, while the others still write. Reading the file's header with a plain handle while a connection
was open dropped the process's SQLite locks; the exiting process then took itself for the file's last user,
checkpointed and deleted the WAL, and the answers the others wrote after that were lost without an error
(8 of 16 rows in a Ray run).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys
import threading
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path

import pytest

from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.sqlite_cache import SQLiteCache

KEYS = 8
FORK = multiprocessing.get_context("fork")
WRITE_ONE = "from chop_integrations._llm.sqlite_cache import SQLiteCache; SQLiteCache(p).set('c0', 'answer')"
COUNT = "print(sqlite3.connect(p).execute('SELECT COUNT(*) FROM answers').fetchone()[0])"


def _worker(path: str, name: str, start: Barrier, asked: Event, write: Event, done: Event, stay: Event) -> None:
    """Open the cache with the others, ask in a second thread, write when told, then exit (or stay open)."""
    start.wait(30)
    cache = SQLiteCache(path)

    def batch() -> None:
        for i in range(KEYS):
            cache.get(f"{name}-{i}")  # this thread's first call opens its own connection
        asked.set()
        write.wait(30)
        for i in range(KEYS):
            cache.set(f"{name}-{i}", "answer")
        done.set()
        stay.wait(30)
        cache.close()

    thread = threading.Thread(target=batch)
    thread.start()
    thread.join()
    cache.close()


@pytest.mark.parametrize("processes", [2, 3])
def test_answers_written_after_another_process_exits_are_kept(tmp_path: Path, processes: int) -> None:
    path = str(tmp_path / "answers.sqlite")
    start = FORK.Barrier(processes)
    events = [[FORK.Event() for _ in range(4)] for _ in range(processes)]  # asked, write, done, stay
    workers = [
        FORK.Process(target=_worker, args=(path, f"w{n}", start, *events[n]), daemon=True) for n in range(processes)
    ]
    for worker in workers:
        worker.start()
    try:
        for asked, *_ in events:
            assert asked.wait(30)
        for n, (_, write, done, stay) in enumerate(events):  # one after another; all but the last exit
            write.set()
            assert done.wait(30)
            if n < processes - 1:
                stay.set()
                workers[n].join(30)
        rows = sqlite3.connect(path).execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        assert rows == KEYS * processes  # the last process is still running, as an actor not yet scaled down
    finally:
        events[-1][3].set()
        for worker in workers:
            worker.join(30)
    assert all(worker.exitcode == 0 for worker in workers)
    assert len(SQLiteCache(path)) == KEYS * processes


def test_a_second_cache_object_in_one_process_keeps_the_first_one_s_answers(tmp_path: Path) -> None:
    """Two caches on one file in one process (two engines): opening the second must not drop the first's locks."""
    path = tmp_path / "answers.sqlite"
    first = SQLiteCache(path)
    first.set("a0", "answer")
    second = SQLiteCache(path)  # checks the file while the first one's connection is open
    second.set("b0", "answer")
    _in_a_new_process(path, WRITE_ONE)
    for i in range(1, KEYS):  # the other process closed its connection: it was the file's last user, or not
        first.set(f"a{i}", "answer")
    assert _in_a_new_process(path, COUNT) == f"{KEYS + 2}\n"


def _in_a_new_process(path: Path, code: str) -> str:
    """Run ``code`` with ``p`` the path in a fresh interpreter (a forked child would share this one's SQLite state)."""
    script = f"import sqlite3, sys; p = sys.argv[1]; {code}"
    return subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True).stdout


def test_an_older_cache_locked_by_another_connection_is_not_called_foreign(tmp_path: Path) -> None:
    """A lock is a wait, not a verdict: the error says the file is locked, and the file is a cache once free."""
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, value TEXT, checksum TEXT, created REAL)")
    connection.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    connection.execute("INSERT INTO meta VALUES ('schema_version', '1')")  # a cache made before the marker
    connection.execute("BEGIN EXCLUSIVE")
    with pytest.raises(ConfigurationError) as caught:
        SQLiteCache(path, timeout=0.2)
    assert "locked" in str(caught.value) and "not a chop-integrations answer cache" not in str(caught.value)
    connection.execute("COMMIT")
    connection.close()
    cache = SQLiteCache(path, timeout=0.2)
    cache.set("k", "v")
    assert cache.get("k") == "v"


def test_a_cache_locked_by_another_connection_is_never_moved_aside(tmp_path: Path) -> None:
    """A lock while the file is checked after an error means it is in use, not damaged: it stays where it is."""
    path = tmp_path / "answers.sqlite"
    cache = SQLiteCache(path, timeout=0.1)
    cache.set("k", "v")
    cache.close()  # the holder's exclusive lock needs the file to itself
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta VALUES ('held', 'by another program')")
    assert cache._rebuild(sqlite3.DatabaseError("database disk image is malformed"))
    holder.execute("COMMIT")
    holder.close()
    assert sorted(p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name) == []
    assert cache.get("k") == "v" and cache.rebuilds == 0
