"""Searching deeper until a filter applied on the client has ``k`` hits, for stores that cannot filter themselves.

A store with no native filter (and no LangChain translator) is searched without the model's condition and its
hits are kept on the client. A fixed over-fetch can leave fewer than ``k`` hits; :class:`Deepening` asks again
twice as deep until ``k`` are kept, the store has no more, or :data:`MAX_FETCH` is reached. Framework-free: the
adapters drive it with their own (sync or async) search.
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
    """

    def __init__(self, k: int, start: int, keep: Callable[[T], bool], limit: int = MAX_FETCH) -> None:
        self.k, self.keep, self.limit = k, keep, max(limit, k)
        self.depth = min(max(start, k), self.limit)

    def take(self, found: Sequence[T]) -> list[T] | None:
        """The first ``k`` kept hits when this search settles it, else ``None`` (search again at :attr:`depth`).

        It is settled when ``k`` hits are kept, when the store returned fewer than it was asked for (it holds no
        more), or at the limit.
        """
        kept = [hit for hit in found if self.keep(hit)]
        if len(kept) >= self.k or len(found) < self.depth or self.depth >= self.limit:
            return kept[: self.k]
        self.depth = min(self.depth * 2, self.limit)
        return None
