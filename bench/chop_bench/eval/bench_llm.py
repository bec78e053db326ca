"""``chop-integrations bench-llm``: what LumberChunker and CHOP cost in calls, tokens and time.

A :class:`~chop_integrations.testing.SimulatedLLM` with a fixed latency
and deterministic answers stands in for a real model, so the figures measure
the engines (prompt sizes, call counts, concurrency, caching), not a provider.
For each method the same documents are chunked

1. concurrently (``max_concurrency=--concurrency``) with a fresh persistent
   cache: ``calls``, ``prompt_tokens``, ``amplification``, ``wall_s``;
2. again with that cache (a re-ingest): ``reingest_calls``, which must be 0;
3. with the same algorithm forced sequential (``max_concurrency=1``, no
   cache): ``sequential_wall_s`` and ``speedup = sequential_wall_s / wall_s``.

chonkie's SlumberChunker runs side by side, given the same latency through its
Genie interface (it is sequential by design and has no cache, so its
``sequential_wall_s`` is its ``wall_s`` and ``reingest_calls`` is its ``calls``).
Token counts use tiktoken ``cl100k_base`` everywhere.

Run ``chop-integrations bench-llm --corpus ../shared/data/manuals --latency-ms 200
--concurrency 32 --json`` (or ``chop-bench bench-llm ...``).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chop_integrations._checks import positive_int
from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._llm.usage import UsageReport
from chop_integrations._text.tokens import TokenCounter, default_counter, share_tiktoken_cache
from chop_integrations.testing import SimulatedLLM

from ..command import bounded_number, read_corpus
from .simulated import simulated_genie

__all__ = ["METHODS", "add_arguments", "load_corpus", "run_bench"]

#: Methods the benchmark knows, in the order it runs them.
METHODS = ("lumber", "chop", "slumber")
#: The human-readable table: (field, header, width, format).
_COLUMNS = (
    ("method", "method", 8, "{}"),
    ("documents", "docs", 5, "{}"),
    ("calls", "calls", 7, "{}"),
    ("prompt_tokens", "prompt_tok", 11, "{}"),
    ("document_tokens", "doc_tok", 9, "{}"),
    ("amplification", "ampl", 6, "{:.3f}"),
    ("wall_s", "wall_s", 8, "{:.2f}"),
    ("sequential_wall_s", "seq_wall_s", 10, "{:.2f}"),
    ("speedup", "speedup", 8, "{:.1f}"),
    ("reingest_calls", "reingest", 8, "{}"),
)


@dataclass(frozen=True)
class Corpus:
    """The documents of a benchmark run, with their ``source`` metadata."""

    texts: list[str]
    metadatas: list[dict[str, Any]]


def load_corpus(directory: str | os.PathLike[str], *, max_docs: int | None = None) -> Corpus:
    """Read the ``*.txt`` files of ``directory`` in name order (at most ``max_docs``).

    Raises:
        InputError: When the directory does not exist or holds no ``.txt`` file.
    """
    root = Path(directory)
    try:
        is_dir = root.is_dir()
    except (OSError, ValueError):  # a name too long, a NUL byte
        is_dir = False
    if not is_dir:
        raise InputError(f"--corpus {str(root)[:80]} is not a directory; point it at a folder of .txt files")
    files = sorted(root.glob("*.txt"))
    if not files:
        raise InputError(f"--corpus {root} holds no .txt files")
    files = files[:max_docs] if max_docs else files
    texts = read_corpus(files, "--corpus")
    metadatas = [{"source": f.name, "title": f.stem.replace("_", " ")} for f in files]
    return Corpus(texts, metadatas)


def _engine(method: str, llm: SimulatedLLM, concurrency: int, cache: Any, counter: TokenCounter) -> Any:
    if method == "lumber":
        from chop_integrations._lumber.chunker import LumberChunker

        return LumberChunker(llm, max_concurrency=concurrency, cache=cache, token_counter=counter)
    from chop_integrations._chop.chunker import CHOPChunker

    return CHOPChunker(llm, max_concurrency=concurrency, cache=cache, token_counter=counter)


def _timed_run(
    method: str, corpus: Corpus, *, latency_ms: float, concurrency: int, cache: Any, counter: TokenCounter
) -> tuple[UsageReport, float, list[list[Any]], SimulatedLLM]:
    llm = SimulatedLLM(latency_ms)
    engine = _engine(method, llm, concurrency, cache, counter)
    started = time.perf_counter()
    chunks = engine.chunk_many(corpus.texts, metadatas=corpus.metadatas)
    wall = time.perf_counter() - started
    return engine.last_usage, wall, chunks, llm


def bench_engine(
    method: str,
    corpus: Corpus,
    *,
    latency_ms: float,
    concurrency: int,
    cache_dir: Path,
    counter: TokenCounter,
    sequential: bool = True,
) -> dict[str, Any]:
    """Benchmark ``lumber`` or ``chop``: a concurrent cached run, a re-ingest, and a sequential run."""
    from chop_integrations._llm.sqlite_cache import SQLiteCache

    cache_path = cache_dir / f"{method}.sqlite"

    def run(workers: int, cache: Any) -> tuple[UsageReport, float, list[list[Any]], SimulatedLLM]:
        return _timed_run(method, corpus, latency_ms=latency_ms, concurrency=workers, cache=cache, counter=counter)

    usage, wall, chunks, llm = run(concurrency, SQLiteCache(cache_path))
    again, _, rechunks, _ = run(concurrency, SQLiteCache(cache_path))
    sequential_wall = run(1, None)[1] if sequential else None
    same = [[c.text for c in doc] for doc in chunks] == [[c.text for c in doc] for doc in rechunks]
    return _row(
        method,
        usage,
        wall=wall,
        sequential_wall=sequential_wall,
        reingest_calls=again.calls,
        chunks=sum(len(doc) for doc in chunks),
        extra={
            "completion_tokens": usage.completion_tokens,
            "fallbacks": usage.fallbacks,
            "max_in_flight": llm.max_in_flight,
            "reingest_cache_hits": again.cache_hits,
            "reingest_same_chunks": same,
        },
    )


def bench_slumber(corpus: Corpus, *, latency_ms: float, counter: TokenCounter, chunk_size: int) -> dict[str, Any]:
    """Benchmark chonkie's SlumberChunker with a simulated genie of the same latency (sequential, no cache)."""
    share_tiktoken_cache()  # chonkie loads tiktoken itself
    from chonkie import SlumberChunker

    from chop_integrations._text.tokens import get_encoding

    genie = simulated_genie(latency_ms, token_counter=counter)
    chunker = SlumberChunker(genie=genie, tokenizer=get_encoding("cl100k_base"), chunk_size=chunk_size, verbose=False)
    started = time.perf_counter()
    chunks = [chunker.chunk(text) for text in corpus.texts]
    wall = time.perf_counter() - started
    usage = UsageReport(
        calls=genie.calls,
        prompt_tokens=genie.prompt_tokens,
        document_tokens=sum(counter(t) for t in corpus.texts),
        documents=len(corpus.texts),
    )
    return _row(
        "slumber",
        usage,
        wall=wall,
        sequential_wall=wall,
        reingest_calls=genie.calls,
        chunks=sum(len(c) for c in chunks),
        extra={"chunk_size": chunk_size, "note": "chonkie: sequential by design, no cache"},
    )


def _row(
    method: str,
    usage: UsageReport,
    *,
    wall: float,
    sequential_wall: float | None,
    reingest_calls: int,
    chunks: int,
    extra: dict[str, Any],
) -> dict[str, Any]:
    return {
        "method": method,
        "documents": usage.documents,
        "calls": usage.calls,
        "prompt_tokens": usage.prompt_tokens,
        "document_tokens": usage.document_tokens,
        "amplification": round(usage.amplification, 4),
        "wall_s": round(wall, 3),
        "sequential_wall_s": None if sequential_wall is None else round(sequential_wall, 3),
        "speedup": None if sequential_wall is None or wall <= 0 else round(sequential_wall / wall, 2),
        "reingest_calls": reingest_calls,
        "chunks": chunks,
        "avg_chunk_tokens": round(usage.document_tokens / chunks, 1) if chunks else 0.0,
        **extra,
    }


def run_bench(
    corpus: Corpus,
    *,
    latency_ms: float = 200.0,
    concurrency: int = 32,
    methods: Sequence[str] = METHODS,
    sequential: bool = True,
    slumber_chunk_size: int = 550,
    cache_dir: str | os.PathLike[str] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run the benchmark and return one row per method (see the module docstring).

    Args:
        corpus: The documents.
        latency_ms: Simulated milliseconds per call.
        concurrency: ``max_concurrency`` of the concurrent runs.
        methods: Which of :data:`METHODS` to run.
        sequential: Also run each engine forced sequential (for ``speedup``).
        slumber_chunk_size: chonkie's group size in tokens (550, the paper's theta).
        cache_dir: Where the persistent caches go (a temporary folder by default).
        on_row: Called with each row as soon as it is ready.

    Raises:
        ConfigurationError: On an unknown method or a bad number.
    """
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ConfigurationError(f"unknown methods {unknown}; choose from {', '.join(METHODS)}")
    if latency_ms < 0 or concurrency < 1:
        raise ConfigurationError(f"need --latency-ms >= 0 and --concurrency >= 1, got {latency_ms} and {concurrency}")
    counter = default_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="chop-bench-llm-") as scratch:
        folder = Path(cache_dir) if cache_dir is not None else Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for method in (m for m in METHODS if m in methods):
            if method == "slumber":
                row = bench_slumber(corpus, latency_ms=latency_ms, counter=counter, chunk_size=slumber_chunk_size)
            else:
                row = bench_engine(
                    method,
                    corpus,
                    latency_ms=latency_ms,
                    concurrency=concurrency,
                    cache_dir=folder,
                    counter=counter,
                    sequential=sequential,
                )
            row.update(latency_ms=latency_ms, concurrency=1 if method == "slumber" else concurrency)
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


def format_header() -> str:
    """The header line of the human-readable table."""
    return "  ".join(header.rjust(width) for _, header, width, _ in _COLUMNS)


def format_row(row: dict[str, Any]) -> str:
    """One line of the human-readable table."""
    cells = []
    for name, _, width, spec in _COLUMNS:
        value = row.get(name)
        cells.append(("-" if value is None else spec.format(value)).rjust(width))
    return "  ".join(cells)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (its record: :mod:`chop_bench.commands`); it runs :func:`run_command`."""
    parser.add_argument("--corpus", required=True, help="folder of .txt documents (e.g. ../shared/data/manuals)")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="simulated latency per call (default 200)")
    parser.add_argument("--concurrency", type=int, default=32, help="max_concurrency of the engines (default 32)")
    parser.add_argument("--max-docs", type=int, default=None, help="use only the first N documents (by name)")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma list of {', '.join(METHODS)}")
    parser.add_argument("--no-sequential", action="store_true", help="skip the sequential runs (no speedup)")
    parser.add_argument("--slumber-chunk-size", type=int, default=550, help="chonkie's group size in tokens")
    parser.add_argument("--cache-dir", default=None, help="keep the persistent caches here (default: temporary)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per method and line")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Run ``bench-llm`` from parsed arguments; returns the exit code."""
    if args.max_docs is not None and args.max_docs < 1:
        raise ConfigurationError(f"--max-docs must be >= 1, got {args.max_docs}")
    bounded_number(args.latency_ms, "--latency-ms", 0, 60_000)
    positive_int("--concurrency", args.concurrency)
    positive_int("--slumber-chunk-size", args.slumber_chunk_size)
    corpus = load_corpus(args.corpus, max_docs=args.max_docs)
    methods = [m.strip() for m in str(args.methods).split(",") if m.strip()]
    if not args.json:
        print(format_header(), flush=True)

    def emit(row: dict[str, Any]) -> None:
        print(json.dumps(row) if args.json else format_row(row), flush=True)

    run_bench(
        corpus,
        latency_ms=args.latency_ms,
        concurrency=args.concurrency,
        methods=methods,
        sequential=not args.no_sequential,
        slumber_chunk_size=args.slumber_chunk_size,
        cache_dir=args.cache_dir,
        on_row=emit,
    )
    return 0
