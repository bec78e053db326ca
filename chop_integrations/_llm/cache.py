"""Answer caches: a persistent SQLite cache and an in-memory one.

A repeated ingest of the same documents with the same model asks the same
questions; with a cache it makes no LLM call at all. Keys come from
:func:`chop_integrations._llm.runner.cache_key` (model identity including decoding
settings, schema and prompt), so two models or two temperatures never share
an answer.

:class:`SQLiteCache` is built on the standard library's :mod:`sqlite3`, which
gives what a cache shared by many workers needs without a new dependency:

* **Concurrent writers.** WAL journal mode (readers never block the writer)
  plus a busy timeout (a writer waits for the lock instead of failing). Each
  thread gets its own connection and each process reopens its own after a
  ``fork``, so threads and processes may share one file.
* **Crash safety.** Every write is one SQLite transaction: a process killed
  mid-write leaves either the whole row or nothing.
* **No wrong answer.** Every row stores a SHA-256 over key and value; a row
  whose checksum does not match is deleted and reported as a miss.
* **No crash.** A corrupt or truncated cache file is logged at WARNING,
  moved aside (``<name>.corrupt-<timestamp>``) and rebuilt empty; any other
  database error during ``get``/``set`` is logged and treated as a miss or a
  skipped write. A cache can cost a call, never a run.
* **No data loss.** Only this package's own cache file is ever repaired: it
  carries a marker in its SQLite header (``PRAGMA application_id``). Any other
  file (another application's database, a text file) is a
  :class:`~chop_integrations.ConfigurationError` naming the path, and nothing is
  written, moved or created beside it; a path that stops being the cache
  mid-run is left alone and the run goes on without a cache.
* **A bad path fails at once.** A path that cannot hold a cache (a FIFO or other
  special file, a parent that is a file, a read-only or unwritable place) is a
  :class:`~chop_integrations.ConfigurationError` naming the path, raised
  when the cache is built (before any LLM call), never a raw ``sqlite3`` or
  ``OSError`` mid-run. We chose the error over a warning and no cache: a user
  who asked for a cache and silently got none pays for every call again.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any, Protocol, runtime_checkable

from .._errors import ConfigurationError
from .sqlite_cache import SQLiteCache

logger = logging.getLogger("chop_integrations")


@runtime_checkable
class CacheLike(Protocol):
    """Anything with ``get(key) -> str | None`` and ``set(key, value)`` can serve as a cache."""

    def get(self, key: str) -> str | None:
        """Return the stored answer for ``key``, or None."""
        ...

    def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``."""
        ...


class InMemoryCache:
    """A thread-safe answer cache that lives as long as the object (tests, notebooks).

    It pickles with its answers, so a copy sent to a worker process starts warm; what
    workers add stays in their copies (use :class:`SQLiteCache` to share answers).

    Args:
        backing: A slower store behind the memory (an :class:`SQLiteCache`): a lookup the
            memory cannot answer asks it and keeps its answer; every answer stored is written
            through to it. ``None``: memory only.

    Attributes:
        hits: Lookups answered (from the memory or the backing store).
        misses: Lookups that found nothing.
    """

    def __init__(self, *, backing: CacheLike | None = None) -> None:
        self._data: dict[str, str] = {}
        self._backing = backing
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> str | None:
        """Return the stored answer for ``key``, or None."""
        with self._lock:
            value = self._data.get(key)
            if value is None and self._backing is not None:
                value = self._backing.get(key)
                if value is not None:
                    self._data[key] = value
            if value is None:
                self.misses += 1
            else:
                self.hits += 1
            return value

    def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` (and in the backing store)."""
        with self._lock:
            self._data[key] = value
        if self._backing is not None:
            self._backing.set(key, value)

    def clear(self) -> None:
        """Forget every answer."""
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the answers and counters, not the lock (a worker process gets its own copy)."""
        with self._lock:
            return {"data": dict(self._data), "backing": self._backing, "hits": self.hits, "misses": self.misses}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._data = dict(state["data"])
        self._backing = state.get("backing")
        self._lock = threading.Lock()
        self.hits, self.misses = state["hits"], state["misses"]


def resolve_cache(cache: CacheLike | str | os.PathLike[str] | bool | None) -> CacheLike | None:
    """Turn a ``cache=`` argument into a cache object.

    Args:
        cache: ``None`` or ``False`` (no cache), a path (a :class:`SQLiteCache`
            file, or a directory to hold one), or any object with ``get`` and ``set``.

    Raises:
        ConfigurationError: When ``cache`` is none of these.
    """
    if cache is None or cache is False:
        return None
    if isinstance(cache, (str, os.PathLike)):
        if not str(cache):
            raise ConfigurationError("cache= got an empty path; pass a file path, a directory, or None to disable")
        return SQLiteCache(cache)
    if callable(getattr(cache, "get", None)) and callable(getattr(cache, "set", None)):
        return cache  # type: ignore[return-value]
    raise ConfigurationError(
        "cache must be None (disabled), a path to an SQLite cache file or directory, "
        f"or an object with get(key) and set(key, value); got {type(cache).__name__}"
    )
