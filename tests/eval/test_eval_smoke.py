"""End-to-end smoke run of ``bench`` on 2 manuals and 20 queries of the shared data (real MiniLM and BM25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chop_bench.cli import main as bench_main
from tests.support.data import SHARED_DATA

#: The shared evaluation data beside the checkout (CI checks the repo out with shared/ next to it).

pytestmark = pytest.mark.slow

STRATEGIES = ["native-500t", "native-500t+name", "chonkie-token", "lumber", "lumber+header-ours", "chop", "oracle"]


@pytest.mark.skipif(
    not (SHARED_DATA / "manuals").is_dir(),
    reason=f"the evaluation data is not beside the checkout ({SHARED_DATA}); check out shared/ next to the repo",
)
def test_bench_end_to_end_on_a_subset(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = [
        "bench",
        "--corpus",
        str(SHARED_DATA),
        "--queries",
        str(SHARED_DATA / "queries-dev.jsonl"),
        "--max-docs",
        "2",
        "--max-queries",
        "20",
        "--suite",
        "manuals",
        "--strategies",
        ",".join(STRATEGIES),
        "--retrievers",
        "dense,bm25",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert bench_main(argv) == 0
    for name in ("results.json", "results.md", "results.png"):
        assert (out / name).stat().st_size > 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["suites"]["manuals"]
    assert results["corpus"]["documents"] == 2
    assert 0 < results["corpus"]["queries"] <= 20
    ran = {(r["strategy"], r["retriever"]) for r in results["runs"]}
    assert ran == {(s, r) for s in STRATEGIES for r in ("dense", "bm25")}, results["skipped"]
    for run in results["runs"]:
        assert run["chunks"] > 0 and run["max_tokens"] >= run["mean_tokens"] > 0
        assert all(0.0 <= value <= 1.0 for value in run["metrics"].values()), run
    by = {(r["strategy"], r["retriever"]): r for r in results["runs"]}
    # Fixed 500-token windows: the two implementations agree, and no chunk passes 500 tokens.
    assert by[("native-500t", "dense")]["max_tokens"] <= 500
    assert by[("native-500t", "dense")]["metrics"] == by[("chonkie-token", "dense")]["metrics"]
    assert by[("chop", "dense")]["usage"]["documents"] == 2
    # Second run: every embedding comes from the cache.
    assert bench_main(argv) == 0
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["embedded_texts"] == 0
