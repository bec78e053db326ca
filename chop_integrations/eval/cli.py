"""``chop-integrations bench``: the retrieval benchmark from the command line.

The top-level CLI calls :func:`add_parser`; ``python -m chop_integrations.eval``
runs the same command on its own (:func:`main`).
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ChopError
from .strategies import DEFAULT_STRATEGIES, LLM_STRATEGIES, OPTIONAL_STRATEGIES

logger = logging.getLogger("chop_integrations.eval")


def _csv(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list, e.g. native-500t,chop")
    return items


def _positive(value: str) -> int:
    number = int(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the benchmark's options to ``parser`` and set ``func``."""
    parser.add_argument(
        "--corpus", type=Path, required=True, help="folder with manuals/*.txt and, optionally, sections.jsonl"
    )
    parser.add_argument(
        "--queries",
        type=Path,
        help="queries JSONL (qid, query, manual, start, end); default: <corpus>/queries-dev.jsonl",
    )
    parser.add_argument(
        "--strategies",
        type=_csv,
        help=f"comma-separated (default: {','.join(DEFAULT_STRATEGIES)}, plus {','.join(LLM_STRATEGIES)} "
        f"when --llm-model is given); also: {','.join(OPTIONAL_STRATEGIES)}",
    )
    parser.add_argument("--retrievers", type=_csv, default=["dense", "bm25"], help="dense,bm25 (default: both)")
    parser.add_argument("--out", type=Path, default=Path("bench-out"), help="output folder (default: bench-out)")
    parser.add_argument("--cache-dir", type=Path, help="embedding and chunk cache (default: <out>/.cache)")
    parser.add_argument("--max-docs", type=_positive, help="only the first N manuals (by file name)")
    parser.add_argument("--max-queries", type=_positive, help="only the first N queries (of those manuals)")
    parser.add_argument("--gutenqa", type=Path, help="also score a GutenQA smoke set (e.g. gutenqa-emma/emma.json)")
    parser.add_argument("--threads", type=_positive, default=1, help="torch threads for the dense model (default: 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    llm = parser.add_argument_group("LLM (for lumber-llm and chop-llm)")
    llm.add_argument("--llm-base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    llm.add_argument("--llm-model", metavar="NAME", help="model name; enables lumber-llm and chop-llm")
    llm.add_argument("--llm-api-key-env", metavar="VAR", help="environment variable holding the key (OPENAI_API_KEY)")
    llm.add_argument("--llm-concurrency", type=_positive, default=8, metavar="N", help="concurrent LLM calls (8)")
    parser.set_defaults(func=run)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``bench`` on the top-level CLI's subparsers (the parser's ``func`` is :func:`run`)."""
    parser = subparsers.add_parser(
        "bench",
        help="retrieval benchmark: chunking strategies x retrievers on a corpus of manuals",
        description="Chunk a corpus with each strategy, retrieve the top 10 chunks per query with dense MiniLM and "
        "BM25, and write results.json, results.md and results.png.",
    )
    add_arguments(parser)
    return parser


def _strategies(args: argparse.Namespace) -> list[str]:
    if args.strategies:
        return list(args.strategies)
    return list(DEFAULT_STRATEGIES) + (list(LLM_STRATEGIES) if args.llm_model else [])


def _command_line(argv: Sequence[str] | None) -> str:
    words = list(sys.argv[1:] if argv is None else argv)
    return "chop-integrations " + " ".join(shlex.quote(w) for w in words)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark the parsed ``args`` describe; 0 on success, 2 on a usage or input error."""
    from . import bench, report
    from .corpus import load_corpus
    from .gutenqa import run_gutenqa

    try:
        llm = None
        if args.llm_model or args.llm_base_url:
            from ..llm_config import build_llm

            llm = build_llm(base_url=args.llm_base_url, model=args.llm_model, api_key_env=args.llm_api_key_env)
        queries = args.queries or (args.corpus / "queries-dev.jsonl")
        corpus = load_corpus(
            args.corpus,
            queries if queries.is_file() else None,
            max_docs=args.max_docs,
            max_queries=args.max_queries,
        )
        if not corpus.queries:
            raise ChopError(f"no queries for the selected manuals: pass --queries (looked for {queries})")
        config = bench.BenchConfig(
            strategies=_strategies(args),
            retrievers=list(args.retrievers),
            out=args.out,
            cache_dir=args.cache_dir or (args.out / ".cache"),
            llm=llm,
            max_concurrency=args.llm_concurrency,
            threads=args.threads,
            progress=not args.no_progress,
        )
        for name in config.retrievers:
            if name not in {"dense", "bm25"}:
                raise ChopError(f"unknown retriever {name!r}: choose from dense, bm25")
        embedder = bench.make_embedder(config)
        strategies, skipped = bench.build_strategies(config, corpus, embedder)
        results = bench.run_benchmark(config, corpus, strategies, embedder)
        results["skipped"] = {**skipped, **results["skipped"]}
        if args.gutenqa:
            t0 = time.perf_counter()
            results["gutenqa"] = run_gutenqa(args.gutenqa, config, strategies, embedder)
            results["gutenqa"]["seconds"] = round(time.perf_counter() - t0, 1)
            results["seconds"] = round(results["seconds"] + results["gutenqa"]["seconds"], 1)
        results["command"] = getattr(args, "command_line", None) or _command_line(None)
    except ChopError as err:
        print(f"chop-integrations bench: error: {err}", file=sys.stderr)
        return 2
    report.write_json(results, args.out)
    report.write_markdown(results, args.out, command=results["command"])
    if results["runs"]:
        report.write_chart(results["runs"], args.out)
    print(report.markdown_table(results["runs"]), end="")
    for name, reason in results["skipped"].items():
        print(f"skipped {name}: {reason}", file=sys.stderr)
    print(f"wrote {args.out / 'results.json'}, results.md, results.png in {results['seconds']:.0f} s", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The standalone parser of ``python -m chop_integrations.eval``."""
    parser = argparse.ArgumentParser(prog="python -m chop_integrations.eval", description=add_parser.__doc__)
    add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark standalone (``python -m chop_integrations.eval [bench] --corpus ...``)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["bench"]:
        words = words[1:]
    args = build_parser().parse_args(words)
    args.command_line = _command_line(["bench", *words])
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return int(args.func(args))
