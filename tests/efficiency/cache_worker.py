"""A separate process that writes to an SQLiteCache; run by the cache tests with ``python cache_worker.py``.

Usage: ``cache_worker.py PATH NAME COUNT [--forever]``. Writes ``COUNT`` rows ``NAME-i -> value``, printing
``ready`` after the first 20 commits; with ``--forever`` it keeps rewriting until killed. ``--uncommitted``
opens a transaction, writes a row and exits without committing, as a crash mid-write would.
"""

from __future__ import annotations

import os
import sqlite3
import sys

from chop_integrations._llm.sqlite_cache import SQLiteCache


def value_for(name: str, i: int) -> str:
    return f"{name}:{i}:" + "x" * (i % 97) * 40


def main() -> None:
    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if "--uncommitted" in sys.argv:
        SQLiteCache(path).close()
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO answers (key, value, checksum, created) VALUES ('half-written', 'v', 'bad', 0)")
        os._exit(0)
    cache = SQLiteCache(path)
    i = 0
    while True:
        cache.set(f"{name}-{i % count}", value_for(name, i % count))
        i += 1
        if i == 20:
            print("ready", flush=True)
        if i >= count and "--forever" not in sys.argv:
            break
    print("done", flush=True)


if __name__ == "__main__":
    main()
