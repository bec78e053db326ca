"""Content-defined window boundaries: windows that re-synchronise right after an edit.

Both engines ask the LLM about *windows*: runs of consecutive units (LumberChunker)
or chunks (CHOP's window decisions), each up to a size limit. Tiled by position
(fill each window to the limit), one inserted sentence shifts every later window,
so every later prompt, and hence every later cache key, changes: a re-ingest
after a small edit re-asks the rest of the document.

Here a window may close after an item whose *content* says so, the rsync/FastCDC
idea applied to units instead of bytes: once the window holds ``min_share`` of
its capacity, it closes after an item whose content hash falls under a threshold
proportional to the item's size (so the expected run between such items is
``expected_share`` of the capacity, whatever the items' sizes); it must close
before it would pass the capacity. An edit then changes the window it falls in
(and, at most, the next one or two while the tiling re-synchronises); every
window after that starts and ends where it did before, with the same prompt.

The decision for an item depends only on the item and on how full the window is,
so a tiling is determined left to right from the items: a streaming reader can
place windows as items arrive.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .._errors import ConfigurationError

__all__ = ["ContentCuts", "WindowCuts", "content_hash"]

_SPAN = 2**64


def content_hash(text: str) -> int:
    """A stable 64-bit hash of ``text`` (the same in every process; Python's ``hash`` is salted)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class ContentCuts:
    """Where a window may close by content (see the module docstring).

    An item is a *candidate* when its content hash falls under a threshold proportional to
    its size: candidates come every ``expected_share`` of the capacity on average. A
    window may close after a candidate that lies at least ``min_share`` of the capacity
    past both the window's start and the window's previous candidate. Within the window,
    that gap looks back only at items of the same document, so the rule is the same
    wherever the window started: the cuts after an edit fall on the same items as before.

    Attributes:
        min_share: The least gap, as a share of the capacity, before a candidate may close a window.
        expected_share: The mean gap between candidates, as a share of the capacity.

    Raises:
        ConfigurationError: When ``min_share`` is not in [0, 1] or ``expected_share`` not in (0, 1].
    """

    min_share: float
    expected_share: float

    def __post_init__(self) -> None:
        if not 0 <= self.min_share <= 1:
            raise ConfigurationError(f"min_share must be in [0, 1], got {self.min_share!r}")
        if not 0 < self.expected_share <= 1:
            raise ConfigurationError(f"expected_share must be in (0, 1], got {self.expected_share!r}")

    def window(self, capacity: int) -> WindowCuts:
        """A fresh window of ``capacity`` to feed items to, left to right."""
        return WindowCuts(self, capacity)


class WindowCuts:
    """One window being filled: says after which item it may close by content.

    When the window fills up before any item qualifies, the caller closes it at
    :attr:`backup` (the strongest candidate past ``min_share`` of the capacity, the "two
    thresholds" fallback of TTTD chunking), so even a full window most often ends on a
    content-defined item; only a window without any such candidate ends where it is full.

    Args:
        cuts: The rule.
        capacity: The window's capacity (the same unit as the items' sizes).

    Attributes:
        filled: The size of the items added so far.
        backup: Items in the window up to its strongest candidate (lowest hash per token) past
            ``min_share`` of the capacity (``None``: none).
    """

    def __init__(self, cuts: ContentCuts, capacity: int) -> None:
        self.filled = 0
        self.backup: int | None = None
        self._items = 0
        self._gap = cuts.min_share * capacity
        self._threshold = _SPAN / (cuts.expected_share * max(capacity, 1))
        self._candidate: int | None = None  # ``filled`` after the window's last candidate
        self._best: float | None = None  # the backup's score (hash per token: lower is stronger)

    def add(self, text: str, size: int) -> bool:
        """Add an item (its content and size); True when the window may close after it."""
        self.filled += size
        self._items += 1
        score = content_hash(text) / max(size, 1)
        if score >= self._threshold:
            return False
        previous, self._candidate = self._candidate, self.filled
        if self.filled < self._gap:
            return False
        if self._best is None or score < self._best:
            self.backup, self._best = self._items, score
        return previous is None or self.filled - previous >= self._gap
