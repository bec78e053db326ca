"""The adaptive prefix's corpus memory kept in a persistent answer cache, read back by a later process."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from chop_integrations import CHOPChunker
from chop_integrations.chop.prefix import MEMORY_KEY, PrefixPolicy
from chop_integrations.llm.sqlite_cache import SQLiteCache

TEXT = "\n\n".join(f"Step {i}\nTurn the dial {i} notches and wait." for i in range(30))
NAMES = [{"source": f"{name}.txt"} for name in ("Acme Kettle", "Zenith Toaster", "Orbit Blender")]


def _corpus(cache: object) -> list[list[object]]:
    return CHOPChunker(cache=cache).chunk_many([TEXT] * 3, metadatas=NAMES)


def test_a_later_process_reingesting_one_document_prints_what_the_corpus_run_printed(tmp_path: Path) -> None:
    path = tmp_path / "answers.sqlite"
    corpus = _corpus(str(path))
    assert corpus[1][0].prefix.startswith("Zenith Toaster")
    again = CHOPChunker(cache=str(path)).chunk(TEXT, metadata=NAMES[1])  # a fresh chunker: as a new process
    assert [(c.start, c.end, c.prefix) for c in again] == [(c.start, c.end, c.prefix) for c in corpus[1]]
    assert json.loads(SQLiteCache(path).get(MEMORY_KEY))["model"] == ["acme kettle", "orbit blender", "zenith toaster"]


def test_without_a_cache_a_lone_document_knows_no_corpus() -> None:
    alone = CHOPChunker().chunk(TEXT, metadata=NAMES[1])
    assert not alone[0].prefix.startswith("Zenith Toaster")  # one name so far: the model is left out


def test_fixed_prefixes_store_nothing_and_a_bad_entry_is_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = SQLiteCache(tmp_path / "answers.sqlite")
    CHOPChunker(cache=cache, prefix="fixed").chunk_many([TEXT] * 3, metadatas=NAMES)
    assert cache.get(MEMORY_KEY) is None
    cache.set(MEMORY_KEY, "[not an object")
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        chunks = CHOPChunker(cache=cache).chunk(TEXT, metadata=NAMES[0])
    assert "".join(c.text for c in chunks) == TEXT and "unreadable prefix memory" in caplog.text
    assert json.loads(cache.get(MEMORY_KEY))["model"] == ["acme kettle"]  # rewritten from what this run knows


def test_memories_merge_and_stay_bounded() -> None:
    one, two = PrefixPolicy(), PrefixPolicy()
    one.recall({"model": ["A", "b"], "category": ["kettle"], "unknown": ["x"]})
    two.recall({"model": [f"m{i}" for i in range(500)] + [3, ""]})  # type: ignore[list-item]
    one.recall(two.remembered())
    assert one.remembered()["category"] == ["kettle"] and {"a", "b"} <= set(one.remembered()["model"])
    assert len(one.remembered()["model"]) <= 64


def test_observing_the_corpus_first_makes_one_at_a_time_equal_to_the_batch() -> None:
    batch = CHOPChunker().chunk_many([TEXT] * 3, metadatas=NAMES)
    chunker = CHOPChunker()
    chunker.observe_corpus([TEXT] * 3, metadatas=NAMES)
    assert chunker.last_usage is None or chunker.last_usage.calls == 0
    one_by_one = [chunker.chunk(TEXT, metadata=meta) for meta in NAMES]
    assert [[(c.start, c.end, c.prefix) for c in doc] for doc in one_by_one] == [
        [(c.start, c.end, c.prefix) for c in doc] for doc in batch
    ]
    unobserved = CHOPChunker().chunk(TEXT, metadata=NAMES[0])
    assert [c.prefix for c in unobserved] != [c.prefix for c in batch[0]]  # what observing fixes
