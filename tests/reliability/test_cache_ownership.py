"""``cache=`` never moves, renames, truncates or writes a file that is not this package's answer cache.

Another application's SQLite database (open, in WAL mode, with committed rows), a plain text file or a
file of zeros given as the cache path is a ConfigurationError naming the path, and every file beside it
stays byte for byte as it was. Only a file that carries the cache's own marker may be rebuilt.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from chop_integrations import LumberChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.sqlite_cache import SQLiteCache
from chop_integrations.testing import SimulatedLLM


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` and its bytes (the -shm file is shared memory and left out of the bytes)."""
    return {p.name: (b"" if p.name.endswith("-shm") else p.read_bytes()) for p in sorted(folder.iterdir())}


def _other_app(path: Path, *, wal: bool) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    if wal:
        connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    connection.execute("INSERT INTO invoices (total) VALUES (12.5), (99.0)")
    return connection


@pytest.fixture
def open_wal_app(tmp_path: Path) -> Iterator[Path]:
    """Another application's database in WAL mode, rows committed, its connection still open."""
    path = tmp_path / "app.db"
    connection = _other_app(path, wal=True)
    yield path
    assert connection.execute("SELECT COUNT(*) FROM invoices").fetchone() == (2,)  # the app still sees its rows
    connection.close()


def _refused(path: Path) -> None:
    folder = path.parent
    before = _snapshot(folder)
    with pytest.raises(ConfigurationError) as caught:
        SQLiteCache(path)
    assert str(path) in str(caught.value) and "not a chop-integrations answer cache" in str(caught.value)
    with pytest.raises(ConfigurationError):
        LumberChunker(SimulatedLLM(latency_ms=0), cache=str(path))  # through the engines' cache= too
    assert _snapshot(folder) == before  # nothing moved, renamed, truncated, written or created


def test_an_open_wal_database_of_another_application_is_refused_and_untouched(open_wal_app: Path) -> None:
    assert Path(f"{open_wal_app}-wal").exists()
    _refused(open_wal_app)


@pytest.mark.parametrize("wal", [False, True])
def test_a_closed_database_of_another_application_is_refused_and_untouched(tmp_path: Path, wal: bool) -> None:
    path = tmp_path / "app.db"
    _other_app(path, wal=wal).close()
    _refused(path)


@pytest.mark.parametrize(
    "content",
    [b"my notes\n" * 300, b"\x00" * 50, b"SQLite format 3\x00" + b"\xff" * 4000],
    ids=["text", "zeros", "sqlite-header-garbage"],
)
def test_a_file_that_is_not_a_cache_is_refused_and_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(content)
    _refused(path)


def test_a_damaged_file_of_an_older_cache_without_the_marker_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    legacy = sqlite3.connect(path)
    legacy.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, value TEXT, checksum TEXT, created REAL)")
    legacy.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    legacy.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    legacy.commit()
    legacy.close()
    data = path.read_bytes()
    path.write_bytes(data[:100] + os.urandom(len(data) - 100))  # header kept, every page scrambled
    _refused(path)


@pytest.mark.parametrize("state", ["missing", "empty"])
def test_a_missing_or_empty_file_becomes_a_cache(tmp_path: Path, state: str) -> None:
    path = tmp_path / "c.sqlite"
    if state == "empty":
        path.write_bytes(b"")
    cache = SQLiteCache(path)
    cache.set("k", "v")
    assert cache.get("k") == "v" and cache.rebuilds == 0


def test_an_older_cache_without_the_marker_is_kept_and_marked(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    legacy = sqlite3.connect(path)
    legacy.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, value TEXT, checksum TEXT, created REAL)")
    legacy.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    legacy.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    legacy.commit()
    legacy.close()
    SQLiteCache(path).set("k", "v")
    again = SQLiteCache(path)
    assert again.get("k") == "v" and again.rebuilds == 0
    marked = sqlite3.connect(path)
    assert marked.execute("PRAGMA application_id").fetchone()[0] != 0
    marked.close()


def test_a_damaged_cache_of_ours_is_still_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    for n in range(200):
        cache.set(f"k{n}", "v" * 200)
    cache.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # truncated: the header (and its marker) survives
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        rebuilt = SQLiteCache(path)
        assert rebuilt.get("k150") is None
        rebuilt.set("new", "value")
    assert rebuilt.get("new") == "value" and rebuilt.rebuilds == 1
    assert len(list(tmp_path.glob("c.sqlite.corrupt-*"))) == 1


def test_a_cache_replaced_by_another_file_mid_run_is_left_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    cache.set("k", "v")
    cache.close()
    other = tmp_path / "other.db"
    _other_app(other, wal=False).close()
    other.replace(path)  # the path now names another application's database
    before = _snapshot(tmp_path)
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert cache.get("k") is None
        cache.set("k2", "v2")
        assert cache.get("k2") is None
    assert _snapshot(tmp_path) == before and cache.rebuilds == 0
    assert "not a chop-integrations answer cache" in caplog.text


@pytest.mark.parametrize(
    "statements",
    [
        ["CREATE VIEW answer_of_everything AS SELECT 42"],
        ["PRAGMA user_version = 7"],
        ["CREATE TEMP TABLE scratch (x)", "PRAGMA user_version = 3"],
    ],
    ids=["only-a-view", "only-a-user-version", "user-version-and-temp-table"],
)
def test_a_database_of_another_application_without_tables_is_refused_and_untouched(
    tmp_path: Path, statements: list[str]
) -> None:
    path = tmp_path / "app.db"
    connection = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        connection.execute(statement)
    connection.close()
    _refused(path)
