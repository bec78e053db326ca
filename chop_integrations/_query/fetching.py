"""Searching deeper until a filter applied on the client has ``k`` hits, for stores that cannot filter themselves.

A store with no native filter (and no LangChain translator), or an index that ignores ``filters=``, is searched
without the model's condition and its hits are kept on the client. A fixed over-fetch can leave fewer than ``k``
hits; :class:`Deepening` asks again deeper (twice as deep by default) until ``k`` are kept, the store has no more,
or its limit is reached. Framework-free: both adapters drive it with their own (sync or async) search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["MAX_FETCH", "Deepening"]

T = TypeVar("T")

#: The deepest a search filtered on the client goes: a bound on one query's cost, set by design (a few pages of a
#: large store). A model with ``k`` hits further down than this is not found by a store that cannot filter.
MAX_FETCH = 10_000


class Deepening(Generic[T]):
    """The depths of one client-filtered search and when it is done.

    Usage: ``while (done := deepening.take(search(deepening.depth))) is None: pass``.

    Args:
        k: How many kept hits are wanted.
        start: The first depth (``fetch_k``); at least ``k``.
        keep: Whether a hit is kept.
        limit: The deepest search (:data:`MAX_FETCH` by default).
        growth: How many times deeper each further search goes (2 by default).
    """

    def __init__(self, k: int, start: int, keep: Callable[[T], bool], limit: int = MAX_FETCH, growth: int = 2) -> None:
        self.k, self.keep, self.limit, self.growth = k, keep, max(limit, k), growth
        self.depth = min(max(start, k), self.limit)
        self._before = -1  # hits the last search returned

    def take(self, found: Sequence[T]) -> list[T] | None:
        """The first ``k`` kept hits when this search settles it, else ``None`` (search again at :attr:`depth`).

        It is settled when ``k`` hits are kept, when the store returned fewer than it was asked for or no more
        than the last time (it holds no more: an index that ignores the depth gives all it has each time), or at
        the limit.
        """
        kept = [hit for hit in found if self.keep(hit)]
        if len(kept) >= self.k or len(found) < self.depth or len(found) <= self._before or self.depth >= self.limit:
            return kept[: self.k]
        self._before = len(found)
        self.depth = min(self.depth * self.growth, self.limit)
        return None
