"""The Ray adapter on a local cluster (2 CPUs): the rows of one process, one limit on calls, one shared cache."""

from __future__ import annotations

import asyncio
import time
from functools import partial

import pyarrow as pa
import pytest

from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.sqlite_cache import SQLiteCache
from chop_integrations.ray import LLMLimit, RayActorCache, apply_prefix, chunk_dataset, fit_prefix, one_process_rows
from chop_integrations.testing import FaultyLLM, valid_answer

from .conftest import by_chunk, readme, real_table, synthetic_table

pytestmark = pytest.mark.slow  # each test starts actors: seconds each, on a shared 2-core machine


def collect(ds) -> pa.Table:
    import ray

    return by_chunk(pa.concat_tables(ray.get(ds.to_arrow_refs())))


def test_chop_offline_rows_equal_one_process(ray_cluster) -> None:
    table = pa.concat_tables(
        [
            real_table(4).append_column("id", pa.array(["a", "b", "c", "d"])),
        ]
    )
    rows = collect(chunk_dataset(ray_cluster.data.from_arrow(table), workers=2, batch_size=1))
    assert rows.equals(by_chunk(one_process_rows(table)))
    assert len(set(rows["chop_model"].to_pylist())) == 4 and all(rows["chop_prefix"].to_pylist())


def test_lumber_rows_equal_one_process(ray_cluster) -> None:
    table = synthetic_table(8)
    rows = collect(chunk_dataset(ray_cluster.data.from_arrow(table), engine="lumber", batch_size=3, max_tokens=40))
    assert rows.equals(by_chunk(one_process_rows(table, engine="lumber", max_tokens=40)))


def test_chop_with_an_llm_rows_equal_one_process(ray_cluster) -> None:
    table = synthetic_table(8)
    # valid_answer answers from the prompt alone: deterministic, whoever asks. A plain function pickles.
    rows = collect(chunk_dataset(ray_cluster.data.from_arrow(table), llm=valid_answer, batch_size=2))
    reference = by_chunk(one_process_rows(table, llm=valid_answer))
    assert rows.equals(reference)
    # The LLM's answers, not the offline deciders': every later chunk continues the one before.
    assert set(reference["chop_continues"].to_pylist()) == {False, True}
    assert False in one_process_rows(table)["chop_continues"].to_pylist()
    # FaultyLLM holds a lock: it cannot travel, so it is built in each actor.
    with pytest.raises(ConfigurationError, match="llm_factory"):
        chunk_dataset(ray_cluster.data.from_arrow(table), llm=FaultyLLM(rate=0.0))
    built = collect(chunk_dataset(ray_cluster.data.from_arrow(table), llm_factory=partial(FaultyLLM, rate=0.0)))
    assert set(built["chop_continues"].to_pylist()) == {False, True}
    assert built.select(["chop_document", "chop_index", "chop_text", "start", "end"]).equals(
        rows.select(["chop_document", "chop_index", "chop_text", "start", "end"])
    )


def _slow_run(ray_cluster, table: pa.Table, **options) -> dict[str, int]:
    from .fakes import InFlight, SlowLLM

    counter = InFlight.remote()
    ds = ray_cluster.data.from_arrow(table)
    chunk_dataset(ds, llm=SlowLLM(counter), batch_size=4, max_concurrency=8, **options).materialize()
    return dict(ray_cluster.get(counter.stats.remote()))


def test_one_limit_on_calls_in_flight_across_actors(ray_cluster) -> None:
    table = synthetic_table(16)
    free = _slow_run(ray_cluster, table)
    assert free["peak"] > 2  # without the limit two actors overlap more calls than that
    limit = LLMLimit(2)
    bounded = _slow_run(ray_cluster, table, llm_limit=limit)
    assert bounded["peak"] <= 2
    assert bounded["calls"] == free["calls"] == limit.stats()["granted"]
    assert limit.stats()["in_flight"] == 0


def test_a_cancelled_wait_gives_its_slot_back(ray_cluster) -> None:
    from .fakes import InFlight, SlowLLM

    limit = LLMLimit(1)
    model = limit.wrap(SlowLLM(InFlight.remote(), delay=0.5))

    async def scenario() -> str:
        first = asyncio.ensure_future(model.acomplete("x"))
        await asyncio.sleep(0.1)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(model.acomplete("y"), timeout=0.05)
        await first
        return await asyncio.wait_for(model.acomplete("z"), timeout=30)

    assert asyncio.run(scenario()) == "TRUE"
    deadline = time.monotonic() + 10
    while limit.stats()["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert limit.stats() == {"limit": 1, "in_flight": 0, "peak": 1, "granted": 3}


def test_actor_cache_serves_every_actor(ray_cluster) -> None:
    table = synthetic_table(8)
    cache = RayActorCache()
    first = _slow_run(ray_cluster, table, cache=cache)
    assert first["calls"] > 0 and len(cache) == first["calls"]  # answers only
    again = _slow_run(ray_cluster, table, cache=cache)
    assert again["calls"] == 0
    assert cache.stats()["hits"] >= first["calls"]


def test_one_sqlite_file_shared_by_actors(ray_cluster, tmp_path) -> None:
    table = synthetic_table(8)
    path = tmp_path / "answers.sqlite"
    first = _slow_run(ray_cluster, table, cache=str(path))
    assert first["calls"] > 0 and len(SQLiteCache(path)) == first["calls"]
    assert _slow_run(ray_cluster, table, cache=str(path))["calls"] == 0


def test_actor_cache_keeps_answers_on_disk(ray_cluster, tmp_path) -> None:
    path = tmp_path / "store.sqlite"
    cache = RayActorCache(path=str(path))
    cache.set("k", "v")
    assert cache.get("k") == "v" and cache.get("missing") is None
    assert SQLiteCache(path).get("k") == "v"


def test_a_corpus_state_counts_as_in_one_process(ray_cluster) -> None:
    from chop_integrations import CHOPChunker, CorpusState

    table = synthetic_table(1)  # one document: alone, its name would not print
    seeds = [CorpusState(), CorpusState()]
    for state in seeds:  # an earlier run, with the same state, saw another manual
        CHOPChunker(corpus=state).chunk_many(
            ["Zeta Z-9\nOwner's Manual\n\nCleaning\n\nWipe the filter."], metadatas=[{"source": "zeta_z-9.txt"}]
        )
    reference = by_chunk(one_process_rows(table, corpus=seeds[0]))
    assert any("Nimbus AC-0" in p for p in reference["chop_prefix"].to_pylist())
    rows = collect(chunk_dataset(ray_cluster.data.from_arrow(table), corpus=seeds[1]))
    assert rows.equals(reference)


def test_a_repeated_sub_heading_keeps_its_parent_as_in_one_process(ray_cluster) -> None:
    from chop_integrations import CHOPChunker, CorpusState

    names = ["Alpha", "Beta", "Gamma"]
    table = pa.table({"id": list("abc"), "text": [readme(n) for n in names], "source": [f"{n}.md" for n in names]})
    # One document per batch: an actor's first batch sees one name and prints no prefix, so the rows are rendered
    # again under the fitted choice; the README's later "API > Examples" must keep its parent there.
    rows = collect(chunk_dataset(ray_cluster.data.from_arrow(table), workers=2, batch_size=1, max_tokens=60))
    chunker = CHOPChunker(max_tokens=60, corpus=CorpusState(model=names))
    chunks = [c for n in names for c in chunker.chunk(readme(n), metadata={"source": f"{n}.md"})]
    assert rows["chop_prefix"].to_pylist() == [c.prefix for c in chunks]
    assert rows["chop_text"].to_pylist() == [c.text for c in chunks]
    assert {f"{n}: [API > Examples | {n}] " for n in names} <= set(rows["chop_prefix"].to_pylist())
    assert rows.equals(by_chunk(one_process_rows(table, max_tokens=60)))
    # Rendered again from blocks of one row each, in reverse order (rows that kept the internal columns).
    deferred = by_chunk(one_process_rows(table, max_tokens=60, internal=True))
    blocks = ray_cluster.data.from_arrow([deferred.slice(i, 1) for i in reversed(range(deferred.num_rows))])
    assert collect(apply_prefix(blocks, fit_prefix(blocks))).equals(rows)
