"""An answer cache every actor of a Ray cluster shares, with nothing to install or start but Ray itself.

Which store to use (all are ``cache=`` values of the engines, any object with ``get``/``set`` works):

* **One node:** a path, ``cache="/data/chop-cache.sqlite"``. Every actor opens the same
  :class:`~chop_integrations.SQLiteCache` file (WAL journal, busy timeout: many processes
  read and write it at once); it outlives the cluster.
* **Several nodes:** :class:`RayActorCache`. One Ray actor holds the answers in a dict; every engine asks it
  (one round trip per LLM call, far below the call itself). With ``path=`` the actor also keeps them in an
  SQLite file on its node, so a later run starts warm; ``name=`` lets later jobs find the same actor.
* **Your own store** (Redis, a database): any object with ``get(key) -> str | None`` and ``set(key, value)``
  that pickles (it is sent to every actor).
"""

from __future__ import annotations

from typing import Any

import ray

from .._llm.cache import InMemoryCache
from .._llm.sqlite_cache import SQLiteCache

__all__ = ["RayActorCache"]


class _Answers(InMemoryCache):
    """The answers, in one actor: memory, optionally in front of an SQLite file on the actor's node."""

    def __init__(self, path: str | None) -> None:
        super().__init__(backing=SQLiteCache(path) if path else None)  # opened on the actor's node

    def stats(self) -> dict[str, int]:
        return {"entries": len(self), "hits": self.hits, "misses": self.misses}


#: The answers as a Ray actor class (no CPU: it only looks up).
_Store: Any = ray.remote(num_cpus=0)(_Answers)


class RayActorCache:
    """An answer cache held by one Ray actor, for every engine on every node of the cluster.

    Create it in the driver after ``ray.init()`` and pass it as ``cache=``; it pickles as a handle.

    Args:
        path: Also keep the answers in this SQLite file, on the node the actor runs on (a warm start for
            the next run); ``None``: in memory only, gone with the actor.
        name: Name the actor so that other jobs find the same cache (``get_if_exists``); ``None``: private.
        namespace: The Ray namespace of a named cache.
        detached: Keep a named cache alive after this driver exits (``lifetime="detached"``); end it with
            ``ray.kill(cache.handle)``.
    """

    def __init__(
        self, *, path: str | None = None, name: str | None = None, namespace: str | None = None, detached: bool = False
    ) -> None:
        options: dict[str, Any] = {}
        if name is not None:
            options.update(name=name, namespace=namespace, get_if_exists=True)
            if detached:
                options["lifetime"] = "detached"
        self.handle = _Store.options(**options).remote(path)

    def get(self, key: str) -> str | None:
        """Return the stored answer for ``key``, or None."""
        value = ray.get(self.handle.get.remote(key))
        return None if value is None else str(value)

    def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` (sent without waiting; a later ``get`` from this caller sees it)."""
        self.handle.set.remote(key, str(value))

    def stats(self) -> dict[str, int]:
        """``entries`` held, ``hits`` and ``misses`` so far (over all callers)."""
        return dict(ray.get(self.handle.stats.remote()))

    def __len__(self) -> int:
        return int(self.stats()["entries"])
