"""``chop-integrations bench``: the retrieval benchmark from the command line.

Chunk each corpus (manuals, anonymised manuals, GutenQA Emma, general documents, held-out general documents, the
same without headings, and German and Chinese manuals) with each strategy, retrieve the top 10 chunks per query with
dense MiniLM and BM25, check the must-show criteria, and write results.json, results.md and results.png.

Its record is ``bench`` in :mod:`chop_bench.commands`: ``chop-integrations bench`` and ``chop-bench bench`` run it.
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

from chop_integrations._errors import ChopError

from .query_strategies import QUERY_MODES
from .splits import SPLITS
from .strategies import LLM_STRATEGIES, OPTIONAL_STRATEGIES
from .suites import DEFAULT_SUITES, SUITE_GROUPS, SUITES

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
        "--corpus",
        type=Path,
        help="folder with manuals/*.txt, sections.jsonl and gutenqa-emma/ (needed by the manuals, anon, emma suites)",
    )
    parser.add_argument(
        "--suite",
        type=_csv,
        default=list(DEFAULT_SUITES),
        help=f"comma-separated corpora: {','.join(SUITES)}; groups: {','.join(SUITE_GROUPS)} (the family suites "
        f"of the tune or held-out families); default: {','.join(DEFAULT_SUITES)}",
    )
    parser.add_argument(
        "--split",
        type=_csv,
        default=list(SPLITS),
        help=f"splits of the dev questions reported for manuals and anon: {','.join(SPLITS)} (default: all three)",
    )
    parser.add_argument(
        "--queries",
        type=Path,
        help="queries JSONL (qid, query, manual, start, end); default: <corpus>/queries-dev.jsonl",
    )
    parser.add_argument(
        "--strategies",
        type=_csv,
        help="comma-separated, the same for every suite (default: each suite's list, see "
        "chop_bench.eval.suites; "
        f"plus {','.join(LLM_STRATEGIES)} when --llm-model is given); any strategy "
        f"+name, +header or +header-ours; llamaindex; also: {','.join(OPTIONAL_STRATEGIES)}, cosine, chonkie-token, "
        "chonkie-recursive; fixed-size baselines at any size: recursive-N, native-Nt (N tokens); "
        "and CHOP read at query time (the question's model, from CHOP's own signatures): "
        f"{','.join('chop+' + s for s in QUERY_MODES)} (filter, boost, filter + section-run context; "
        "chop-llm+... with an LLM)",
    )
    parser.add_argument("--retrievers", type=_csv, default=["dense", "bm25"], help="dense,bm25 (default: both)")
    parser.add_argument("--out", type=Path, default=Path("bench-out"), help="output folder (default: bench-out)")
    parser.add_argument("--cache-dir", type=Path, help="embedding and chunk cache (default: <out>/.cache)")
    parser.add_argument("--max-docs", type=_positive, help="only the first N manuals (by file name)")
    parser.add_argument("--max-queries", type=_positive, help="only the first N queries (of those manuals)")
    parser.add_argument(
        "--docs-dir",
        type=Path,
        help="where scripts/fetch_docs.py unpacked the Debian packages of the multilingual suites "
        "(default: $CHOP_DOCS_DIR, else .cache/docs)",
    )
    parser.add_argument(
        "--gutenqa", type=Path, help="the emma suite's GutenQA file (default: <corpus>/gutenqa-emma/emma.json)"
    )
    parser.add_argument("--threads", type=_positive, default=1, help="torch threads for the dense model (default: 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    llm = parser.add_argument_group("LLM (for lumber-llm and chop-llm)")
    llm.add_argument("--llm-base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    llm.add_argument("--llm-model", metavar="NAME", help="model name; enables lumber-llm and chop-llm")
    llm.add_argument("--llm-api-key-env", metavar="VAR", help="environment variable holding the key (OPENAI_API_KEY)")
    llm.add_argument("--llm-concurrency", type=_positive, default=8, metavar="N", help="concurrent LLM calls (8)")
    parser.set_defaults(func=run)


def _command_line(argv: Sequence[str] | None) -> str:
    words = list(sys.argv[1:] if argv is None else argv)
    return "chop-integrations " + " ".join(shlex.quote(w) for w in words)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark the parsed ``args`` describe; 0 on success, 2 on a usage or input error."""
    from . import bench, report
    from .mustshow import check_must_show
    from .suites import run_suites

    began = time.perf_counter()
    try:
        llm = None
        if args.llm_model or args.llm_base_url:
            from chop_integrations._llm.config import build_llm

            llm = build_llm(base_url=args.llm_base_url, model=args.llm_model, api_key_env=args.llm_api_key_env)
        for name in args.retrievers:
            if name not in {"dense", "bm25"}:
                raise ChopError(f"unknown retriever {name!r}: choose from dense, bm25")
        for split in args.split:
            if split not in SPLITS:
                raise ChopError(f"unknown split {split!r}: choose from {', '.join(SPLITS)}")
        config = bench.BenchConfig(
            strategies=[],
            retrievers=list(args.retrievers),
            out=args.out,
            cache_dir=args.cache_dir or (args.out / ".cache"),
            llm=llm,
            max_concurrency=args.llm_concurrency,
            threads=args.threads,
            progress=not args.no_progress,
            splits=list(args.split),
        )
        results = run_suites(
            config,
            suites=list(args.suite),
            corpus_dir=args.corpus,
            queries=args.queries,
            gutenqa=args.gutenqa,
            strategies=args.strategies,
            llm_strategies=list(LLM_STRATEGIES) if args.llm_model and not args.strategies else [],
            max_docs=args.max_docs,
            max_queries=args.max_queries,
            docs_dir=args.docs_dir,
        )
    except ChopError as err:
        print(f"chop-integrations bench: error: {err}", file=sys.stderr)
        return 2
    results["must_show"] = check_must_show(results["suites"])
    results["config"] = {
        "suites": list(args.suite),
        "splits": list(args.split),
        "strategies": args.strategies,
        "retrievers": list(args.retrievers),
        "dense_model": bench.Embedder.model_id,
        "torch_threads": args.threads,
        "llm": None if llm is None else getattr(llm, "model_id", str(llm)),
    }
    results["seconds"] = round(time.perf_counter() - began, 1)
    results["command"] = getattr(args, "command_line", None) or _command_line(None)
    report.write_json(results, args.out)
    report.write_markdown(results, args.out, command=results["command"])
    chart, subtitle = _chart_runs(results["suites"])
    if chart:
        report.write_chart(chart, args.out, subtitle=subtitle)
    from .mustshow import format_must_show

    print(format_must_show(results["must_show"]), end="")
    print(f"wrote {args.out / 'results.json'}, results.md, results.png in {results['seconds']:.0f} s", file=sys.stderr)
    return 0


def _chart_runs(suites: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The rows of ``results.png`` and their subtitle: the first suite's held-out split when it ran, else all."""
    from .report import ordered, with_split

    for name, result in suites.items():
        if name == "emma" or not result.get("runs"):
            continue
        heldout = with_split(result["runs"], "heldout")
        return ordered(heldout or result["runs"]), f"{name}, {'held-out split' if heldout else 'all queries'}"
    return [], ""
