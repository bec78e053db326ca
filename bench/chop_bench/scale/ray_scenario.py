"""``bench-scale --scenario ray``: Ray Data with W workers against one process, offline CHOP over the manuals.

1. One pass of ``CHOPChunker().chunk_many`` over the manuals is timed; the manuals are then repeated, each
   copy a distinct document (its own ``source``), until one process needs at least ``--min-seconds``.
2. One process: :func:`~chop_integrations.ray.one_process_rows` over all copies (read the files, chunk, sign,
   build the rows), timed.
3. Ray: ``ray.init(num_cpus=W)``, then the corpus's names (:func:`~chop_integrations.ray.find_corpus_names`,
   timed apart as ``names_pass_s`` and counted in ``ray_s``) and :func:`~chop_integrations.ray.chunk_dataset`
   with W actors over the same documents (given as file paths: the actors read them), until every row is
   materialised.

Ray starts its workers at niceness 15 by default; here at 0, the one process's priority, so that both
compete on equal terms with whatever else runs on the machine. ``startup_s`` is the cluster's start-up:
``ray.init`` and W task workers with the package imported (``ray_init_s``), plus the actors' warm-up (from
the start of the run until the first actor has built its engine, reported by the actor itself:
``actor_warm_up_s``); it is left out of ``ray_s`` and of the speed-up ``one_process_s / ray_s``.
``identical`` says whether the two runs gave the same rows.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chop_integrations._chop.chunker import CHOPChunker
from chop_integrations._errors import ConfigurationError

#: Ray's setting for the niceness of its worker processes (read from the environment when the cluster starts).
_NICENESS = "RAY_worker_niceness"
#: The corpus when none is given: the project's shared data next to the checkout (its ``manuals/``).
DEFAULT_CORPUS = Path(__file__).resolve().parents[4] / "shared" / "data"


def _add(parser: argparse.ArgumentParser, flag: str, **kwargs: Any) -> None:
    """Add ``flag`` unless another scenario already did (they share one parser)."""
    if flag not in parser._option_string_actions:
        parser.add_argument(flag, **kwargs)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ray scenario's options."""
    _add(
        parser,
        "--corpus",
        help="folder of *.txt documents, or one holding manuals/ (default: the evaluation data beside the checkout, "
        "../shared/data; see docs/benchmarks.md)",
    )
    _add(parser, "--workers", type=int, default=2, help="ray: actors (and CPUs given to ray.init) (default: 2)")
    _add(
        parser,
        "--min-seconds",
        type=float,
        default=60.0,
        help="ray: repeat the manuals until one process needs at least this long (default: 60)",
    )
    _add(parser, "--batch-size", type=int, default=None, help="ray: documents per batch (default: the adapter's)")


class _TimedCHOP(CHOPChunker):
    """CHOPChunker that tells the bench's clock when this actor's engine is built (its warm-up is over)."""

    def __init__(self, llm: Any = None, *, clock: Any = None, **options: Any) -> None:
        super().__init__(llm, **options)
        if clock is not None:
            clock.ready.remote(time.time())


def _clock() -> Any:
    import ray

    class Clock:
        def __init__(self) -> None:
            self.times: list[float] = []

        def ready(self, at: float) -> None:
            self.times.append(at)

        def first(self) -> float | None:
            return min(self.times) if self.times else None

    actor: Any = ray.remote(num_cpus=0)(Clock)
    return actor.remote()


@contextlib.contextmanager
def _niceness(value: int) -> Iterator[None]:
    """Start Ray's workers at this niceness (Ray's own default is 15, below everything else on the machine).

    The one process runs at the machine's default priority (0); at 15 the actors would lose every contest for
    a core with other programs, and the speed-up would measure the machine's load, not Ray Data.
    """
    previous = os.environ.get(_NICENESS)
    os.environ[_NICENESS] = str(value)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(_NICENESS, None)
        else:
            os.environ[_NICENESS] = previous


def _warm_workers(workers: int) -> None:
    """Start ``workers`` task workers with the package imported (part of the cluster's start-up)."""
    import ray

    @ray.remote(num_cpus=1)
    def warm() -> int:
        import chop_integrations.ray._rows  # noqa: F401

        time.sleep(0.2)  # hold the CPU so that each call lands in its own worker
        return 0

    ray.get([warm.remote() for _ in range(workers)])


def _documents(corpus: Path, copies: int) -> Any:
    """``copies`` of every manual as a table of ``path`` and a distinct ``source``."""
    import pyarrow as pa

    files = sorted((corpus / "manuals").glob("*.txt")) or sorted(corpus.glob("*.txt"))
    if not files:
        raise ConfigurationError(f"{corpus} has no *.txt nor manuals/*.txt: pass --corpus the folder of the manuals")
    paths = [str(f) for _ in range(copies) for f in files]
    sources = [f"{f.stem}-copy{k}.txt" if k else f.name for k in range(copies) for f in files]
    return pa.table({"path": paths, "source": sources})


def _one_pass_seconds(corpus: Path) -> float:
    from chop_integrations.ray import one_process_rows

    documents = _documents(corpus, 1)
    one_process_rows(documents.slice(0, 2))  # imports and the tokenizer, outside the timing
    started = time.perf_counter()
    one_process_rows(documents)
    return time.perf_counter() - started


def _sorted(table: Any) -> Any:
    return table.sort_by([("chop_document", "ascending"), ("chop_index", "ascending")])


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Time one process and Ray Data on the same documents; one JSON object."""
    import pyarrow as pa
    import ray

    from chop_integrations.ray import DEFAULT_BATCH_SIZE, chunk_dataset, find_corpus_names, one_process_rows

    corpus = Path(getattr(args, "corpus", None) or DEFAULT_CORPUS)
    workers, batch_size = int(args.workers), int(args.batch_size or DEFAULT_BATCH_SIZE)
    if workers < 1 or batch_size < 1:
        raise ConfigurationError("--workers and --batch-size must be >= 1")
    one_pass = _one_pass_seconds(corpus)
    copies = max(1, math.ceil(float(args.min_seconds) / one_pass))
    documents = _documents(corpus, copies)

    started = time.perf_counter()
    reference = _sorted(one_process_rows(documents))
    one_process_s = time.perf_counter() - started
    gc.collect()

    started = time.perf_counter()
    with _niceness(0):
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        clock = _clock()
        ray.get(clock.first.remote())
        _warm_workers(workers)
        init_s = time.perf_counter() - started
        ds = ray.data.from_arrow(documents)
        names_started = time.time()
        names = find_corpus_names(ds)  # work: counted in ray_s (chunk_dataset would run it before the actors)
        run_started = time.time()
        chunks = chunk_dataset(
            ds, engine=_TimedCHOP, workers=workers, batch_size=batch_size, corpus_names=names, clock=clock
        )
        chunks = chunks.materialize()
        finished = time.time()
        first_ready = ray.get(clock.first.remote()) or run_started
        rows = _sorted(pa.concat_tables(ray.get(chunks.to_arrow_refs())))
    finally:
        ray.shutdown()
    warm_up_s = max(0.0, first_ready - run_started)
    ray_s = finished - names_started - warm_up_s
    return [
        {
            "scenario": "ray",
            "workers": workers,
            "speedup": round(one_process_s / ray_s, 3),
            "startup_s": round(init_s + warm_up_s, 2),
            "one_process_s": round(one_process_s, 2),
            "ray_s": round(ray_s, 2),
            "ray_init_s": round(init_s, 2),
            "actor_warm_up_s": round(warm_up_s, 2),
            "names_pass_s": round(run_started - names_started, 2),
            "documents": documents.num_rows,
            "copies": copies,
            "chunks": rows.num_rows,
            "batch_size": batch_size,
            "identical": bool(rows.equals(reference)),
        }
    ]
