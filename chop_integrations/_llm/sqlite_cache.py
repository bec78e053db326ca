"""The SQLite answer cache: one file shared by runs and processes, checked, rebuilt when damaged.

Only a file that is this package's cache is ever repaired: it carries :data:`APPLICATION_ID` in its
SQLite header (``PRAGMA application_id``), or (a cache made before the marker) holds nothing but the
cache's own tables. Any other file is refused before anything is written, moved or created beside it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from .._errors import ConfigurationError
from .sqlite_files import (
    APPLICATION_ID,
    NOT_OURS,
    SCHEMA_VERSION,
    SIDE_SUFFIXES,
    ForeignFile,
    connect,
    file_identity,
    is_blank,
    is_busy,
    is_corruption,
    is_ours,
    looks_healthy,
    marked,
    not_ours,
)

logger = logging.getLogger("chop_integrations")


#: File name used when ``cache=`` names a directory.
DEFAULT_FILE_NAME = "chop-cache.sqlite"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS answers ("
    " key TEXT PRIMARY KEY, value TEXT NOT NULL, checksum TEXT NOT NULL, created REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def cache_file(path: str | os.PathLike[str]) -> Path:
    """The file a cache at ``path`` uses: ``path``, or :data:`DEFAULT_FILE_NAME` inside it when it is a folder."""
    target = Path(path).expanduser()
    return target / DEFAULT_FILE_NAME if target.is_dir() else target


def _checksum(key: str, value: str) -> str:
    digest = hashlib.sha256()
    digest.update(key.encode("utf-8", "surrogatepass"))
    digest.update(b"\x00")
    digest.update(value.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class SQLiteCache:
    """A persistent answer cache in one SQLite file, safe for many threads and processes.

    Args:
        path: The database file; its parent directories are created. A directory
            gets :data:`DEFAULT_FILE_NAME` inside it.
        timeout: Seconds a writer waits for the lock held by another writer
            (SQLite's busy timeout) before the write is skipped with a warning.
        synchronous: SQLite ``synchronous`` pragma. ``"NORMAL"`` (default) is
            durable against process crashes in WAL mode; ``"FULL"`` also
            against power loss, at the cost of an fsync per write.

    Attributes:
        hits: Lookups answered by this object.
        misses: Lookups that found nothing (or a damaged row).
        rebuilds: Times a corrupt file of this cache was moved aside and rebuilt.

    Raises:
        ConfigurationError: When ``timeout`` is negative, ``synchronous`` is unknown, or ``path``
            cannot hold a cache (a special file, a parent that is a file, an unwritable place) or
            is not this package's cache (another application's database, any other file): such a
            file is left exactly as it is.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0, synchronous: str = "NORMAL") -> None:
        if timeout < 0:
            raise ConfigurationError(f"timeout must be >= 0 seconds, got {timeout}")
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ConfigurationError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}")
        self.path = cache_file(path)
        self.timeout = float(timeout)
        self.synchronous = synchronous.upper()
        self.hits = 0
        self.misses = 0
        self.rebuilds = 0
        self._lock = threading.RLock()
        self._local = threading.local()
        self._generation = 0
        self._foreign = False
        self._identity: tuple[int, int] | None = None
        self._check_path()
        try:
            self._connect()  # open (and repair) now, so a bad path fails here, not mid-run
        except ForeignFile as exc:
            raise ConfigurationError(
                f"answer cache path {str(self.path)!r} is {NOT_OURS} ({exc}); it was left untouched. "
                "Pass another path (a new file or a folder) or cache=None"
            ) from exc
        except sqlite3.Error as exc:
            raise self._bad_path(f"SQLite cannot open or write it ({exc})") from exc
        self._identity = file_identity(self.path)

    # -- public API ------------------------------------------------------------------------

    def get(self, key: str) -> str | None:
        """Return the stored answer for ``key``, or None (also for a damaged row or file)."""
        if self._foreign:
            self.misses += 1
            return None
        try:
            row = self._connect().execute("SELECT value, checksum FROM answers WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            self._on_error("read", exc)
            self.misses += 1
            return None
        if row is None:
            self.misses += 1
            return None
        value, checksum = row
        if not isinstance(value, str) or checksum != _checksum(key, value):
            logger.warning("answer cache %s: damaged entry %s... ignored and removed", self.path, key[:12])
            self._delete(key)
            self.misses += 1
            return None
        self.hits += 1
        return value

    def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` in one transaction (a failed write is logged, never raised)."""
        value = str(value)
        row = (key, value, _checksum(key, value), time.time())
        if self._foreign:
            return
        try:
            connection = self._connect()
            with connection:
                connection.execute(
                    "INSERT OR REPLACE INTO answers (key, value, checksum, created) VALUES (?, ?, ?, ?)", row
                )
        except sqlite3.DatabaseError as exc:
            self._on_error("write", exc)

    def clear(self) -> None:
        """Forget every answer."""
        try:
            connection = self._connect()
            with connection:
                connection.execute("DELETE FROM answers")
        except sqlite3.DatabaseError as exc:
            self._on_error("clear", exc)

    def close(self) -> None:
        """Close this thread's connection (other threads' connections close when they are collected)."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    def __len__(self) -> int:
        try:
            return int(self._connect().execute("SELECT COUNT(*) FROM answers").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            self._on_error("count", exc)
            return 0

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __enter__(self) -> SQLiteCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteCache({str(self.path)!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"path": str(self.path), "timeout": self.timeout, "synchronous": self.synchronous}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], timeout=state["timeout"], synchronous=state["synchronous"])  # type: ignore[misc]

    # -- connections and repair ------------------------------------------------------------

    def _bad_path(self, why: str) -> ConfigurationError:
        return ConfigurationError(
            f"answer cache path {str(self.path)!r} cannot hold a cache: {why}; "
            "pass another path (a writable folder or .sqlite file) or cache=None"
        )

    def _check_path(self) -> None:
        """Create the parent folders and refuse a path that is no regular file.

        Raises:
            ConfigurationError: When the path or a parent is unusable.
        """
        if self.path.exists() and not self.path.is_file():
            raise self._bad_path("it exists and is not a regular file (a FIFO, socket or device?)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError as exc:
            raise self._bad_path(f"a parent is a file, not a folder ({exc.filename})") from exc
        except NotADirectoryError as exc:
            raise self._bad_path(f"a parent is a file, not a folder ({exc.filename})") from exc
        except OSError as exc:
            raise self._bad_path(f"its folder cannot be created ({exc.strerror or exc})") from exc
        if not os.access(self.path.parent, os.W_OK | os.X_OK):
            raise self._bad_path("its folder is not writable (SQLite needs it for the WAL journal)")

    def _delete(self, key: str) -> None:
        try:
            connection = self._connect()
            with connection:
                connection.execute("DELETE FROM answers WHERE key = ?", (key,))
        except sqlite3.DatabaseError as exc:
            self._on_error("delete", exc)

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection, opened (and the file repaired) on first use or after a fork/rebuild."""
        local = self._local
        connection = getattr(local, "connection", None)
        if connection is not None and local.pid == os.getpid() and local.generation == self._generation:
            return connection
        if connection is not None and local.pid == os.getpid():
            connection.close()
        try:
            connection = self._open()
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise
            if not self._rebuild(exc):
                raise ForeignFile("damaged, and it is not the file this cache opened") from exc
            connection = self._open()
        local.connection, local.pid, local.generation = connection, os.getpid(), self._generation
        return connection

    def _open(self) -> sqlite3.Connection:
        """Connect, after checking the file is ours (or new), and set up the schema, the marker and WAL mode.

        The schema and the marker are committed before the switch to WAL mode: a new file is stamped in its
        own header by its first write, so a process opening it at the same moment never finds a cache
        without its marker (and never has to read one through SQLite while it is being built).

        Raises:
            ForeignFile: When the file is not this package's cache (nothing was written to it).
        """
        why = not_ours(self.path, self.timeout)
        if why is not None:
            raise ForeignFile(why)
        connection = connect(self.path, self.timeout)
        try:
            connection.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            # One write transaction: a racing process sees either no tables or the complete schema.
            connection.execute("BEGIN IMMEDIATE")
            try:
                mark = connection.execute("PRAGMA application_id").fetchone()[0]
                if mark not in (0, APPLICATION_ID) or not (is_blank(connection) or is_ours(connection)):
                    raise ForeignFile("an SQLite database of another application")
                for statement in _SCHEMA:
                    connection.execute(statement)
                connection.execute(
                    "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                )
                if mark != APPLICATION_ID:
                    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            mode = self._enable_wal(connection)
            if mode is None or str(mode[0]).lower() != "wal":
                logger.debug("answer cache %s: WAL mode unavailable, journal mode is %s", self.path, mode)
            elif mark != APPLICATION_ID:  # the marker may sit in the WAL (an older cache): copy it to the header now
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            connection.execute(f"PRAGMA synchronous = {self.synchronous}")
        except BaseException:
            connection.close()
            raise
        return connection

    def _enable_wal(self, connection: sqlite3.Connection) -> Any:
        """Switch the file to WAL mode, waiting out a racing opener for up to ``timeout`` seconds.

        Switching the journal mode needs a moment's exclusive lock, and SQLite does not always call the busy
        handler for it: several processes opening a new file at once see "database is locked" at once.
        A file already in WAL mode (the mode persists) is left as it is.
        """
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        while True:
            try:
                mode = connection.execute("PRAGMA journal_mode").fetchone()
                if mode is not None and str(mode[0]).lower() == "wal":
                    return mode
                return connection.execute("PRAGMA journal_mode = WAL").fetchone()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.1)

    def _on_error(self, action: str, exc: sqlite3.DatabaseError) -> None:
        """Log a failed cache operation; rebuild the file when it is a corrupt cache of ours."""
        if isinstance(exc, ForeignFile):
            self._give_up(str(exc))
        elif is_corruption(exc):
            self._rebuild(exc)
        else:
            logger.warning("answer cache %s: %s failed (%s); continuing without it", self.path, action, exc)

    def _give_up(self, why: str) -> None:
        """Stop using a path that no longer holds this cache (every lookup a miss); the file is left alone."""
        with self._lock:
            if not self._foreign:
                logger.warning(
                    "answer cache %s is %s (%s); left it untouched and continuing without a cache",
                    self.path,
                    NOT_OURS,
                    why,
                )
            self._foreign = True
            self.close()

    def _rebuild(self, exc: BaseException) -> bool:
        """Move a corrupt file of this cache (and its WAL/SHM companions) aside and start an empty cache.

        A file is only moved when its header carries :data:`APPLICATION_ID` or it is the very file
        this object checked and opened; any other file is left alone and the cache is given up.

        Returns:
            False when the file was not ours and nothing was done.
        """
        with self._lock:
            self.close()
            if self.path.exists() and file_identity(self.path) != self._identity and not marked(self.path):
                self._give_up(f"damaged, and its header carries no cache marker ({exc})")
                return False
            if not self.path.exists() or looks_healthy(self.path, self.timeout):
                # Another thread or process already rebuilt it (or the error was transient).
                logger.warning("answer cache %s: %s, but the file checks out now; reopened it", self.path, exc)
                self._generation += 1
                return True
            stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{self.rebuilds}"
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
            logger.warning(
                "answer cache %s is corrupt or not a cache (%s); moved it to %s and started an empty cache",
                self.path,
                exc,
                aside,
            )
            for suffix in ("", *SIDE_SUFFIXES):
                source = Path(f"{self.path}{suffix}")
                try:
                    if suffix:
                        source.unlink(missing_ok=True)
                    else:
                        source.replace(aside)
                except OSError as err:  # pragma: no cover - racing processes, read-only media
                    logger.warning("answer cache %s: could not move %s aside: %s", self.path, source, err)
            self.rebuilds += 1
            self._generation += 1
            return True
