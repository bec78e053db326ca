"""The in-memory answer cache and ``resolve_cache``: counts that add up, a backing store asked once, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.cache import CacheLike, InMemoryCache, resolve_cache
from chop_integrations._llm.sqlite_cache import SQLiteCache


class Backing:
    """A slow store that records what it is asked."""

    def __init__(self, data: dict[str, str]) -> None:
        self.data = dict(data)
        self.asked: list[str] = []
        self.written: list[tuple[str, str]] = []

    def get(self, key: str) -> str | None:
        self.asked.append(key)
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:
        self.written.append((key, value))
        self.data[key] = value


def test_hits_and_misses_are_counted_one_by_one() -> None:
    cache = InMemoryCache()
    assert cache.get("a") is None and cache.get("b") is None
    cache.set("a", "1")
    assert cache.get("a") == "1" and cache.get("a") == "1" and cache.get("a") == "1"
    assert (cache.hits, cache.misses) == (3, 2)
    assert "a" in cache and "b" not in cache and len(cache) == 1
    cache.clear()
    assert len(cache) == 0 and cache.get("a") is None and cache.misses == 3


def test_a_backing_store_is_asked_once_per_key_and_written_through() -> None:
    backing = Backing({"old": "answer"})
    cache = InMemoryCache(backing=backing)
    assert cache.get("old") == "answer" and cache.get("old") == "answer"
    assert backing.asked == ["old"]  # the second lookup is answered from memory
    assert cache.get("new") is None and cache.get("new") is None
    assert backing.asked == ["old", "new", "new"]  # nothing found is not remembered
    assert (cache.hits, cache.misses) == (2, 2)
    cache.set("new", "fresh")
    assert backing.written == [("new", "fresh")] and cache.get("new") == "fresh" and len(cache) == 2


def test_resolve_cache_takes_none_a_path_or_a_cache(tmp_path: Path) -> None:
    assert resolve_cache(None) is None and resolve_cache(False) is None
    assert isinstance(resolve_cache(tmp_path / "c.sqlite"), SQLiteCache)
    assert isinstance(resolve_cache(str(tmp_path / "d.sqlite")), SQLiteCache)
    own = Backing({})
    assert resolve_cache(own) is own and isinstance(own, CacheLike)


def test_an_empty_path_is_refused_with_the_way_out() -> None:
    with pytest.raises(ConfigurationError) as caught:
        resolve_cache("")
    assert str(caught.value) == "cache= got an empty path; pass a file path, a directory, or None to disable"


class OnlyGet:
    def get(self, key: str) -> str | None:
        return None


class SetNotCallable(OnlyGet):
    set = "not a method"


@pytest.mark.parametrize("bad", [OnlyGet(), SetNotCallable(), 3, True])
def test_anything_else_is_refused_naming_its_type(bad: object) -> None:
    with pytest.raises(ConfigurationError) as caught:
        resolve_cache(bad)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "cache must be None (disabled), a path to an SQLite cache file or directory, "
        f"or an object with get(key) and set(key, value); got {type(bad).__name__}"
    )
