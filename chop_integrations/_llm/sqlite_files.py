"""Reading an SQLite cache file without changing it: whose file it is, whether it is damaged.

Used by :mod:`.sqlite_cache` before it writes anything: a file that is not this package's cache
(another application's database, any other file) must never be repaired, moved or written.

The header is read with a plain file handle, and closing any handle of a file drops every POSIX lock the
process holds on it, SQLite's too (SQLite's "how to corrupt" page, section 2.2). Another process that then
closes its last connection believes it is the last user: it checkpoints and deletes the ``-wal`` file while
this process still writes into it, and those writes are lost without an error. So the cache opens its
connections through :func:`connect`, which registers them, and the header is never read with a plain
handle while this process has a connection to that file open.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import weakref
from pathlib import Path

SCHEMA_VERSION = "1"
#: The cache's mark in the SQLite header (``PRAGMA application_id``): "CHOP" in ASCII.
APPLICATION_ID = 0x43484F50
MAGIC = b"SQLite format 3\x00"
NOT_OURS = "not a chop-integrations answer cache"
#: The files SQLite keeps beside a database, by suffix of its name: ``-wal`` and ``-shm`` in WAL mode
#: (deleted at close), a ``-journal`` in rollback mode.
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")


class ForeignFile(sqlite3.DatabaseError):
    """The file at the cache path is not this package's cache: it is never repaired, moved or written."""


class CacheConnection(sqlite3.Connection):
    """A connection of the cache, known to :func:`connect`'s registry from its opening to its closing."""

    def close(self) -> None:
        """Close it and take it off the registry (a connection collected unclosed leaves it by itself)."""
        with _OPEN_LOCK:
            for identity, connections in list(_OPEN.items()):
                connections.discard(self)
                if not connections:
                    del _OPEN[identity]
        super().close()


#: This process's open cache connections, by the (device, inode) of their file; changed and read under the lock.
_OPEN: dict[tuple[int, int], weakref.WeakSet[CacheConnection]] = {}
_OPEN_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    """A forked child gets a free lock (another thread of the parent may have held it at the fork)."""
    global _OPEN_LOCK
    _OPEN_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_new_lock_in_child)


def connect(path: Path, timeout: float) -> CacheConnection:
    """A read-write connection to ``path`` (created when missing), registered before it takes any lock."""
    connection = sqlite3.connect(
        path, timeout=timeout, isolation_level=None, check_same_thread=False, factory=CacheConnection
    )
    identity = file_identity(path)
    if identity is not None:
        with _OPEN_LOCK:
            _OPEN.setdefault(identity, weakref.WeakSet()).add(connection)
    return connection


def is_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked"/"busy": another connection holds a lock for now."""
    name = getattr(exc, "sqlite_errorname", None)  # Python 3.11+
    if name is not None:
        return str(name).startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def is_corruption(exc: BaseException) -> bool:
    """True for errors that mean the file itself is bad (not a busy lock or a full disk).

    A file shorter than its header says (truncated: SQLITE_IOERR_SHORT_READ) is
    reported as an OperationalError "disk I/O error", but it is a bad file too.
    """
    if isinstance(exc, ForeignFile):
        return False
    if isinstance(exc, sqlite3.OperationalError):
        name = getattr(exc, "sqlite_errorname", None)  # Python 3.11+
        if name is None:  # Python 3.10 has no error names: fall back to SQLite's message
            return "disk I/O error" in str(exc)
        return name == "SQLITE_IOERR_SHORT_READ"
    return isinstance(exc, sqlite3.DatabaseError)


def file_identity(path: Path) -> tuple[int, int] | None:
    """The file's device and inode (the same file under any name), or None when it is missing."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _header(path: Path) -> bytes | None:
    """The first 100 bytes of the file: SQLite's database header (read without SQLite).

    Returns:
        None, without reading, when this process has a cache connection to the file open: closing the
        handle would drop that connection's locks (see the module's note). The registry's lock is held
        while the handle is open, so no connection can take a lock on the file in between.

    Raises:
        OSError: When the file cannot be read (FileNotFoundError when it is missing).
    """
    with _OPEN_LOCK:
        if _OPEN.get(file_identity(path) or (-1, -1)):
            return None
        with path.open("rb") as handle:
            return handle.read(100)


def _application_id(header: bytes) -> int:
    """The ``application_id`` a database header carries (0 for none)."""
    return int.from_bytes(header[68:72], "big")


def marked(path: Path) -> bool:
    """True when the file's header carries this cache's application id, or this process has it open as its cache."""
    try:
        header = _header(path)
    except OSError:
        return False
    return header is None or (header.startswith(MAGIC) and _application_id(header) == APPLICATION_ID)


#: An existing empty file becomes a cache only under one of these suffixes: an empty file of another name may be
#: another program's (``__init__.py``, a lock file), and a cache written over it would destroy it.
DATABASE_SUFFIXES = frozenset({".sqlite", ".sqlite3", ".db"})


def not_ours(path: Path, timeout: float) -> str | None:
    """Why the file at ``path`` must not be touched, or None when it is this cache, missing, or an empty ``.sqlite``.

    Reads only: the header bytes first, then (for an SQLite file without any application id, such as a
    cache made before the marker) its table names through a read-only connection that creates no file.
    A verdict against a file that changed while it was read (another process is creating or upgrading the
    cache), or a lock held by another connection, is not trusted: the file is read again, for up to
    ``timeout`` seconds.

    Raises:
        sqlite3.OperationalError: When the file stayed locked for ``timeout`` seconds (no verdict).
    """
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        before = _state(path)
        try:
            why = _verdict(path, timeout)
        except sqlite3.OperationalError:  # busy: another connection holds a lock
            if time.monotonic() >= deadline:
                raise
        else:
            if why is None or _state(path) == before or time.monotonic() >= deadline:
                return why
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _state(path: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """Inode, size and modification time of the file and of its WAL (None for a missing one): what a writer changes."""
    states: list[tuple[int, int, int] | None] = []
    for name in (str(path), f"{path}-wal"):
        try:
            stat = os.stat(name)
        except OSError:
            states.append(None)
        else:
            states.append((stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(states)


def _verdict(path: Path, timeout: float) -> str | None:
    """:func:`not_ours` read once.

    Raises:
        sqlite3.OperationalError: When SQLite finds the file locked (busy) by another connection.
    """
    try:
        header = _header(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if header is None:
        return None  # this process has it open as its cache (checked when it was opened)
    wal = Path(f"{path}-wal")
    if not header and not (wal.exists() and wal.stat().st_size):
        if path.suffix.lower() in DATABASE_SUFFIXES:
            return None  # an empty database file (made by tempfile, touch, a crash before the first write)
        return "it is an empty file not named like a database (another program's, such as an empty __init__.py?)"
    if header and (len(header) < 100 or not header.startswith(MAGIC)):
        return "it is not an SQLite database"
    application_id = _application_id(header)  # 0 for an empty file
    if application_id == APPLICATION_ID:
        return None
    if application_id != 0:
        return f"an SQLite database of another application (application_id {application_id:#010x})"
    # No WAL file beside a WAL-mode database: every page is in the main file, read it as immutable (no -shm/-wal).
    mode = "immutable=1" if header[18:19] == b"\x02" and not wal.exists() else "mode=ro"
    try:
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?{mode}", uri=True, timeout=timeout)
    except sqlite3.Error as exc:
        return f"it cannot be read ({exc})"
    try:
        if connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
            return None
        if is_blank(connection) or is_ours(connection):
            return None
        return "an SQLite database of another application (its schema is not the cache's)"
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):
            raise
        return f"damaged, and it carries no cache marker ({exc})"
    finally:
        connection.close()


def is_blank(connection: sqlite3.Connection) -> bool:
    """True for a new database: no table, view, index or trigger, and no ``user_version`` an application set."""
    if connection.execute("PRAGMA user_version").fetchone()[0] != 0:
        return False
    return connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None


def is_ours(connection: sqlite3.Connection) -> bool:
    """True when the database holds this module's schema, at this version."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"answers", "meta"} <= tables:
        return False
    columns = {row[1] for row in connection.execute("PRAGMA table_info(answers)")}
    version = connection.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
    return {"key", "value", "checksum"} <= columns and version is not None and version[0] == SCHEMA_VERSION


def looks_healthy(path: Path, timeout: float) -> bool:
    """True when ``path`` opens as a cache and passes SQLite's quick integrity check, or stays locked.

    A file locked by another connection for longer than ``timeout`` is in use, which is no evidence of
    damage: it is never moved aside.
    """
    try:
        connection = sqlite3.connect(path, timeout=timeout)
    except sqlite3.Error:
        return False
    try:
        result = connection.execute("PRAGMA quick_check").fetchone()
        return result is not None and result[0] == "ok" and is_ours(connection)
    except sqlite3.Error as exc:
        return is_busy(exc)
    finally:
        connection.close()
