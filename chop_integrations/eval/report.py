"""Writing the benchmark's results: ``results.json``, ``results.md`` and ``results.png``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Metric columns of the markdown table, in order.
METRIC_COLUMNS = ("doc@1", "doc@5", "doc@10", "span@1", "span@5", "span@10", "mrr@10", "ndcg@10")


def write_json(results: dict[str, Any], out: Path) -> Path:
    """Write ``results.json`` (indented, UTF-8) and return its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _row_name(run: dict[str, Any]) -> str:
    return f"{run['strategy']} (reference)" if run.get("reference") else run["strategy"]


def markdown_table(runs: Sequence[dict[str, Any]]) -> str:
    """One row per strategy x retriever: every metric, chunk count and size, chunking time, LLM calls."""
    head = ["strategy", "retriever", *METRIC_COLUMNS, "chunks", "mean tok", "max tok", "chunk s", "LLM calls"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
    for run in runs:
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
    for run in runs:
        m = run["metrics"]
        cells = [run["strategy"], run["retriever"], *(f"{m.get(c, 0.0):.3f}" for c in cols), str(run["chunks"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_markdown(results: dict[str, Any], out: Path, *, command: str | None = None) -> Path:
    """Write ``results.md``: the run's corpus, the table, skipped strategies and the GutenQA smoke table."""
    corpus = results["corpus"]
    parts = [
        "# Retrieval benchmark\n",
        f"{corpus['documents']} documents ({corpus['characters']:,} characters), {corpus['queries']} queries; "
        f"top {10} chunks per query; dense = {results['config']['dense_model']}, bm25 = bm25s. "
        f"Run took {results['seconds']:.0f} s.\n",
    ]
    if command:
        parts.append(f"Command: `{command}`\n")
    parts.append(markdown_table(results["runs"]))
    parts.append(
        "\n`doc@k`: a top-k chunk comes from the gold manual; `span@k`: a top-k chunk from the gold manual overlaps "
        "the gold section by at least half of the shorter of the two; `mrr@10`: document-level; `ndcg@10`: graded "
        "(2 span hit, 1 other chunk of the gold manual). Rows marked (reference) are not competitors.\n"
    )
    for name, reason in results.get("skipped", {}).items():
        parts.append(f"- skipped `{name}`: {reason}\n")
    if results.get("gutenqa"):
        g = results["gutenqa"]
        parts.append(
            f"\n## GutenQA smoke set ({g['title']}): {g['questions']} questions, "
            f"{g['answerable']} with their answer text in the book\n\n"
        )
        parts.append(gutenqa_table(g["runs"]))
    path = out / "results.md"
    path.write_text("\n".join(p.rstrip("\n") + "\n" for p in parts), encoding="utf-8")
    return path


def write_chart(runs: Sequence[dict[str, Any]], out: Path) -> Path:
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
    fig.suptitle("Top-1 retrieval: right manual (doc@1) and right section (span@1)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = out / "results.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
