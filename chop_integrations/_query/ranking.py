"""Putting hits in order by a reading, whatever the framework's hit type.

The adapters and the benchmark share these: the test of a hit's metadata against a reading's
conditions (for stores filtered on the client), the named model's hits first (a stable partition)
and the merge of several result lists (filtered hits, then the plain ones, none twice).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["meets", "merged", "partitioned"]

T = TypeVar("T")


def meets(metadata: Mapping[str, Any], conditions: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` holds every value of ``conditions`` (true when there are none)."""
    return all(metadata.get(key) == value for key, value in conditions.items())


def partitioned(items: Iterable[T], first: Callable[[T], bool]) -> list[T]:
    """``items`` with those ``first`` holds for in front, each part in its order."""
    items = list(items)
    return [item for item in items if first(item)] + [item for item in items if not first(item)]


def merged(groups: Iterable[Iterable[T]], key: Callable[[T], Hashable], limit: int) -> list[T]:
    """The items of ``groups`` in order, each ``key`` once, at most ``limit``."""
    seen: set[Hashable] = set()
    out: list[T] = []
    for group in groups:
        for item in group:
            if (found := key(item)) not in seen:
                seen.add(found)
                out.append(item)
                if len(out) >= limit:
                    return out[:limit]
    return out
