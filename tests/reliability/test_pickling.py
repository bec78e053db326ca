"""Every public engine and adapter round-trips through stdlib ``pickle`` and runs in a spawned worker.

``multiprocessing`` spawn, ``ProcessPoolExecutor``, Spark and Dask pickle what they
ship to workers; a lambda tokenizer, a lock or a dropped cache breaks them.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chop_integrations import CHOPChunker, InMemoryCache, Lexicon, LumberChunker, OfflineCNMExtractor
from chop_integrations._llm.sqlite_cache import SQLiteCache
from chop_integrations._llm.usage import UsageReport
from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from tests.support.pickling_workers import answer_true, run

TEXT = (
    "KX-200 camera manual.\n\nInsert the battery into the KX-200 until it clicks.\n\n"
    "KX-300 drone manual.\n\nThe KX-300 flies for twenty minutes on one battery."
)

FACTORIES: dict[str, Callable[[], Any]] = {
    "LumberChunker": lambda: LumberChunker(max_tokens=24),
    "CHOPChunker": lambda: CHOPChunker(max_tokens=24),
    "LumberChunkerTextSplitter": lambda: LumberChunkerTextSplitter(max_tokens=24),
    "CHOPDocumentTransformer": lambda: CHOPDocumentTransformer(chunk=True, max_tokens=24),
    "LumberChunkerNodeParser": lambda: LumberChunkerNodeParser(max_tokens=24),
    "CHOPExtractor": lambda: CHOPExtractor(),
    "LumberChunker+llm+cache": lambda: LumberChunker(answer_true, max_tokens=24, cache=InMemoryCache()),
    "CHOPChunker+word counter": lambda: CHOPChunker(max_tokens=24, token_counter="words"),
    "LumberChunkerNodeParser+cache": lambda: LumberChunkerNodeParser(max_tokens=24, cache=InMemoryCache()),
    "CHOPExtractor+cache": lambda: CHOPExtractor(cache=InMemoryCache()),
    "CHOPExtractor+pair+lexicon": lambda: CHOPExtractor(
        llm=answer_true,
        decisions="pair",
        offline_extractor=OfflineCNMExtractor(lexicon=Lexicon(extra={"drone": ["drone"]})),
    ),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_round_trips_through_pickle_and_chunks_the_same(name: str) -> None:
    component = FACTORIES[name]()
    expected = run(component, TEXT)
    copy = pickle.loads(pickle.dumps(component))
    assert run(copy, TEXT) == expected
    if getattr(component, "cache", None) is not None:
        assert type(copy.cache) is type(component.cache)  # the cache travels (LlamaIndex used to drop it)
    if getattr(component, "offline_extractor", None) is not None:
        assert type(copy.offline_extractor) is type(component.offline_extractor)
        assert copy.object_ids == component.object_ids and copy.decisions == component.decisions


def test_caches_pickle_with_their_answers_and_fresh_locks(tmp_path: Path) -> None:
    memory = InMemoryCache()
    memory.set("k", "v")
    copy = pickle.loads(pickle.dumps(memory))
    assert copy.get("k") == "v"
    copy.set("k2", "v2")  # its own lock works
    sqlite = SQLiteCache(tmp_path / "c.sqlite")
    sqlite.set("k", "v")
    assert pickle.loads(pickle.dumps(sqlite)).get("k") == "v"


def test_last_usage_pickles() -> None:
    chunker = LumberChunker(answer_true, max_tokens=24)
    chunker.chunk(TEXT)
    copy = pickle.loads(pickle.dumps(chunker))
    assert isinstance(copy.last_usage, UsageReport)
    assert copy.last_usage.calls == chunker.last_usage.calls


def test_a_spawn_pool_runs_every_component() -> None:
    """What multiprocessing spawn (and ProcessPoolExecutor, Spark, Dask) do: pickle, ship, run."""
    names = list(FACTORIES)
    components = [FACTORIES[name]() for name in names]
    expected = [run(component, TEXT) for component in components]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.starmap(run, [(component, TEXT) for component in components])
    assert dict(zip(names, got, strict=True)) == dict(zip(names, expected, strict=True))
