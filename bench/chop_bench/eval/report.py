"""Writing the benchmark's results: ``results.json``, ``results.md`` and ``results.png``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Metric columns of the markdown table, in order.
METRIC_COLUMNS = (
    *("doc@1", "doc@5", "doc@10", "span@1", "span@5", "span@10", "mrr@10", "ndcg@10"),
    *("iou@1", "iou@5", "cover@1", "cover@5"),
)
#: This package's own strategies (everything else, including ``lumber+name``, is a baseline a user can build).
OURS = ("lumber", "chop", "lumber-llm", "chop-llm")
#: The retrievers' order in every table.
RETRIEVER_ORDER = ("dense", "bm25")


def write_json(results: dict[str, Any], out: Path) -> Path:
    """Write ``results.json`` (indented, UTF-8) and return its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _row_name(run: dict[str, Any]) -> str:
    return f"{run['strategy']} (reference)" if run.get("reference") else run["strategy"]


def _role(run: dict[str, Any]) -> int:
    return 2 if run.get("reference") else (1 if run["strategy"] in OURS else 0)


def ordered(runs: Sequence[dict[str, Any]], keys: Sequence[str] = ("doc@1", "span@1")) -> list[dict[str, Any]]:
    """Rows per retriever (dense, then BM25): baselines strongest first (by ``keys``), then ours, then references."""

    def rank(run: dict[str, Any]) -> tuple[Any, ...]:
        retriever = run["retriever"]
        where = RETRIEVER_ORDER.index(retriever) if retriever in RETRIEVER_ORDER else len(RETRIEVER_ORDER)
        strength = tuple(-run["metrics"].get(k, 0.0) for k in keys) if _role(run) == 0 else ()
        return (where, retriever, _role(run), strength)

    return sorted(runs, key=rank)


def with_split(runs: Sequence[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    """The runs with ``metrics`` replaced by one split's metrics (runs without that split are left out)."""
    out = []
    for run in runs:
        chosen = run.get("splits", {}).get(split)
        if chosen is not None:
            out.append({**run, "metrics": chosen["metrics"]})
    return out


def markdown_table(runs: Sequence[dict[str, Any]]) -> str:
    """One row per strategy x retriever: every metric, chunk count and size, chunking time, LLM calls."""
    head = ["strategy", "retriever", *METRIC_COLUMNS, "chunks", "mean tok", "max tok", "chunk s", "LLM calls"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
    for run in ordered(runs):
        metrics = run["metrics"]
        usage = run.get("usage") or {}
        cells = [
            _row_name(run),
            run["retriever"],
            *(f"{metrics.get(m, 0.0):.3f}" for m in METRIC_COLUMNS),
            str(run["chunks"]),
            f"{run['mean_tokens']:.0f}",
            str(run["max_tokens"]),
            f"{run['chunk_seconds']:.1f}" + (" (cached)" if run.get("chunks_from_cache") else ""),
            str(usage.get("calls", "")) if usage else "",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def gutenqa_table(runs: Sequence[dict[str, Any]]) -> str:
    """The GutenQA smoke table: hit@k and MRR@10 per strategy x retriever."""
    cols = ("hit@1", "hit@5", "hit@10", "mrr@10")
    lines = ["| strategy | retriever | " + " | ".join(cols) + " | chunks |", "|---|---|" + "---:|" * (len(cols) + 1)]
    for run in ordered(runs, ("hit@1", "mrr@10")):
        m = run["metrics"]
        cells = [run["strategy"], run["retriever"], *(f"{m.get(c, 0.0):.3f}" for c in cols), str(run["chunks"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


_LEGEND = (
    "`doc@k`: a top-k chunk comes from the gold document; `span@k`: a top-k chunk from the gold document overlaps "
    "the gold span by at least half of the shorter of the two; `mrr@10`: document-level; `ndcg@10`: graded "
    "(2 span hit, 1 other chunk of the gold document); `iou@k`: characters shared by the gold span and the union of "
    "the top-k chunks from the gold document, over the characters of either (0 when none is from it); `cover@k`: the "
    "share of the gold span those chunks hold. Within each "
    "retriever, baselines come first, strongest first (by doc@1, then span@1), then ours (`lumber`, `chop`), then "
    "references. `+name`: the title (file stem, `_` as spaces) in front; `+header`: title + heading path "
    "(markdown/rst headings); `+header-ours`: the same with this package's structural headings; `llamaindex`: "
    "LlamaIndex's default embedded text (`file_path`) over `SentenceSplitter` chunks.\n"
)


#: How the report titles a question style (:data:`~.splits.STYLES`) or a language (:data:`~.splits.LANGS`).
_VIEW_TITLES = {
    "plain": "`plain` questions: a section's heading, the document not named",
    "named": "`named` questions: the heading and the document's name",
    "de": "German documents' questions",
    "zh": "Chinese documents' questions",
    "exact": "`exact` questions: the member named as its title writes it",
    "typed": "`typed` questions: the member named as people type it",
    "absent": "`absent` questions: a member the store lacks (a reader must read none)",
    "all": "all questions",
}


def _corpus_line(result: dict[str, Any]) -> str:
    corpus = result["corpus"]
    return (
        f"{corpus['documents']} documents ({corpus['characters']:,} characters), {corpus['queries']} queries; "
        f"top 10 chunks per query. Took {result.get('seconds', 0):.0f} s.\n"
    )


def suite_markdown(name: str, result: dict[str, Any]) -> str:
    """One suite's section of ``results.md``: a table per split (or one table), skipped strategies."""
    parts: list[str] = []
    if name == "emma":
        parts.append(
            f"## emma: GutenQA smoke set ({result['title']}), {result['questions']} questions, "
            f"{result['answerable']} with their answer text in the book\n"
        )
        parts.append(gutenqa_table(result["runs"]))
    else:
        parts.append(f"## {name}\n")
        parts.append(_corpus_line(result))
        splits = list(dict.fromkeys(s for run in result["runs"] for s in run.get("splits", {})))
        for split in splits or [None]:
            runs = result["runs"] if split is None else with_split(result["runs"], split)
            if split is not None:
                queries = next(r["splits"][split]["queries"] for r in result["runs"] if split in r.get("splits", {}))
                parts.append(f"### {name}, {_VIEW_TITLES.get(split, f'split `{split}`')} ({queries} queries)\n")
            parts.append(markdown_table(runs))
    for strategy, reason in result.get("skipped", {}).items():
        parts.append(f"- skipped `{strategy}`: {reason}\n")
    return "\n".join(p.rstrip("\n") + "\n" for p in parts)


def write_markdown(results: dict[str, Any], out: Path, *, command: str | None = None) -> Path:
    """Write ``results.md``: the must-show block, then every suite's tables and the legend."""
    from .mustshow import format_must_show

    config = results.get("config", {})
    parts = [
        "# Retrieval benchmark\n",
        f"dense = {config.get('dense_model', 'all-MiniLM-L6-v2')}, bm25 = bm25s. Run took {results['seconds']:.0f} s; "
        f"{results.get('embedded_texts', 0)} texts embedded (the rest from the cache).\n",
    ]
    if command:
        parts.append(f"Command: `{command}`\n")
    if results.get("must_show"):
        parts.append("## Must show\n")
        parts.append(format_must_show(results["must_show"]))
    for name, result in results.get("suites", {}).items():
        parts.append(suite_markdown(name, result))
    parts.append(_LEGEND)
    path = out / "results.md"
    path.write_text("\n".join(p.rstrip("\n") + "\n" for p in parts), encoding="utf-8")
    return path


def write_chart(runs: Sequence[dict[str, Any]], out: Path, *, subtitle: str = "") -> Path:
    """Write ``results.png``: doc@1 and span@1 per strategy, one panel per retriever (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    retrievers = list(dict.fromkeys(r["retriever"] for r in runs))
    strategies = list(dict.fromkeys(_row_name(r) for r in runs))
    fig, axes = plt.subplots(
        1, max(len(retrievers), 1), figsize=(6.0 * max(len(retrievers), 1), 0.5 * len(strategies) + 1.8), squeeze=False
    )
    height = 0.38
    for ax, retriever in zip(axes[0], retrievers, strict=True):
        by_name = {_row_name(r): r["metrics"] for r in runs if r["retriever"] == retriever}
        ys = list(range(len(strategies)))
        for offset, metric, color in ((-height / 2, "doc@1", "#4C72B0"), (height / 2, "span@1", "#DD8452")):
            values = [by_name.get(s, {}).get(metric, 0.0) for s in strategies]
            bars = ax.barh([y + offset for y in ys], values, height=height, label=metric, color=color)
            ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], padding=2, fontsize=8)
        ax.set_yticks(ys, strategies)
        ax.invert_yaxis()
        ax.set_xlim(0, 1.1)
        ax.set_xlabel("fraction of queries")
        ax.set_title(f"{retriever} retriever")
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, frameon=False)
    title = "Top-1 retrieval: right manual (doc@1) and right section (span@1)"
    fig.suptitle(f"{title}, {subtitle}" if subtitle else title)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = out / "results.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
