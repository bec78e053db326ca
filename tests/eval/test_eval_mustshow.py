"""The must-show checker and the table order, on hand-made results; the suites end to end on a tiny corpus (BM25)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chop_bench.cli import main as bench_main
from chop_bench.eval.mustshow import check_must_show, format_must_show
from chop_bench.eval.report import ordered


def _run(strategy: str, retriever: str, split: str | None = None, **metrics: float) -> dict[str, Any]:
    run: dict[str, Any] = {"strategy": strategy, "retriever": retriever, "metrics": dict(metrics)}
    if split is not None:
        run["splits"] = {split: {"queries": 3, "metrics": dict(metrics)}}
    return run


def _manuals(chop_span: float) -> dict[str, Any]:
    runs = []
    for retriever in ("dense", "bm25"):
        runs += [
            _run("lumber+name", retriever, "heldout", **{"doc@1": 0.90, "span@1": 0.60}),
            _run("lumber+header-ours", retriever, "heldout", **{"doc@1": 0.92, "span@1": 0.70}),
            _run("chop", retriever, "heldout", **{"doc@1": 0.92, "span@1": chop_span}),
        ]
    for run in runs:
        run["chunk_seconds"] = 1.0
    runs.append({**_run("lumber", "dense", "heldout", **{"doc@1": 0.1}), "chunk_seconds": 0.6})
    return {"runs": runs}


def test_manuals_criterion_uses_the_best_baseline_and_the_span_margin() -> None:
    checks = check_must_show({"manuals": _manuals(chop_span=0.66)})
    manuals = [c for c in checks if c["criterion"].startswith("manuals")]
    assert [c["result"] for c in manuals] == ["PASS", "PASS"]
    assert "lumber+header-ours 0.920" in manuals[0]["detail"]  # best doc@1 among +name/+header rows
    failing = check_must_show({"manuals": _manuals(chop_span=0.65)})
    assert [c["result"] for c in failing if c["criterion"].startswith("manuals")] == ["FAIL", "FAIL"]


def test_unrun_criteria_are_not_passes_and_the_time_ratio_is_checked() -> None:
    checks = check_must_show({"manuals": _manuals(chop_span=0.7)})
    results = {c["criterion"].split(":")[0]: c["result"] for c in checks}
    assert results["anon heldout"] == "n/a" and results["emma"] == "n/a" and results["general"] == "n/a"
    assert results["general-heldout"] == "n/a"
    timing = checks[-1]
    assert timing["result"] == "PASS" and "ratio 1.67" in timing["detail"]
    slow = _manuals(chop_span=0.7)
    slow["runs"][-1]["chunk_seconds"] = 0.4
    assert check_must_show({"manuals": slow})[-1]["result"] == "FAIL"
    assert "**PASS**" in format_must_show(checks)


def test_no_prefix_criteria_allow_the_tolerance_on_every_metric() -> None:
    def emma(chop_hit: float, *, own_chunks_hit: float = 0.10) -> dict[str, Any]:
        runs = []
        for retriever in ("dense", "bm25"):
            runs.append(_run("lumber", retriever, **{"hit@1": 0.20, "mrr@10": 0.3}))
            runs.append(_run("chop-chunks", retriever, **{"hit@1": own_chunks_hit, "mrr@10": 0.3}))
            runs.append(_run("chop", retriever, **{"hit@1": chop_hit, "mrr@10": 0.3}))
        return {"runs": runs}

    ok = [c for c in check_must_show({"emma": emma(0.191)}) if c["criterion"].startswith("emma")]
    assert [c["result"] for c in ok] == ["PASS"] * 4  # vs lumber and vs chop-chunks, both retrievers
    bad = [c for c in check_must_show({"emma": emma(0.185)}) if c["criterion"].startswith("emma")]
    assert [c["result"] for c in bad] == ["FAIL", "PASS", "FAIL", "PASS"] and "hit@1 chop 0.185" in bad[0]["detail"]
    # The prefix must not hurt CHOP's own chunks either: better than LumberChunker is not enough.
    harm = [c for c in check_must_show({"emma": emma(0.25, own_chunks_hit=0.3)}) if c["criterion"].startswith("emma")]
    assert [c["result"] for c in harm] == ["PASS", "FAIL", "PASS", "FAIL"]
    assert "vs chop-chunks 0.300" in harm[1]["detail"]


def test_tables_lead_with_the_strongest_baseline_then_ours() -> None:
    runs = [
        _run("chop", "bm25", **{"doc@1": 0.9}),
        _run("lumber", "dense", **{"doc@1": 0.1}),
        _run("chop", "dense", **{"doc@1": 0.9}),
        _run("recursive-500", "dense", **{"doc@1": 0.2}),
        _run("lumber+name", "dense", **{"doc@1": 0.8}),
        {**_run("oracle", "dense", **{"doc@1": 1.0}), "reference": True},
    ]
    assert [(r["strategy"], r["retriever"]) for r in ordered(runs)] == [
        ("lumber+name", "dense"),
        ("recursive-500", "dense"),
        ("lumber", "dense"),
        ("chop", "dense"),
        ("oracle", "dense"),
        ("chop", "bm25"),
    ]


def test_cli_runs_suites_with_splits_and_writes_the_must_show_block(tiny_corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["bench", "--corpus", str(tiny_corpus), "--queries", str(tiny_corpus / "queries.jsonl")]
    argv += ["--suite", "manuals,anon", "--strategies", "recursive-500,recursive-500+name,lumber,chop"]
    argv += ["--retrievers", "bm25", "--out", str(out), "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    assert bench_main(argv) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert set(results["suites"]) == {"manuals", "anon"}
    manuals = results["suites"]["manuals"]
    assert {r["strategy"] for r in manuals["runs"]} == {"recursive-500", "recursive-500+name", "lumber", "chop"}
    for run in manuals["runs"]:
        assert set(run["splits"]) == {"tune", "heldout", "all"}
        assert run["splits"]["all"]["metrics"] == run["metrics"]
        assert sum(run["splits"][s]["queries"] for s in ("tune", "heldout")) == 6
        assert "iou@1" in run["metrics"]
    criteria = [c["criterion"] for c in results["must_show"]]
    assert any(c.startswith("anon") for c in criteria) and any(c.startswith("offline chop") for c in criteria)
    text = (out / "results.md").read_text(encoding="utf-8")
    assert "## Must show" in text and "### manuals, split `heldout`" in text and "## anon" in text
    assert bench_main([*argv[:-1], "--suite", "nope", "--no-progress"]) == 2


def test_paired_difference_is_the_mean_difference_with_a_bootstrap_interval() -> None:
    from chop_bench.eval.mustshow import paired_difference

    assert paired_difference([1, 0, 1], [1, 0, 1]) == (0.0, 0.0, 0.0)
    assert paired_difference([1.0] * 40, [0.0] * 40) == (1.0, 1.0, 1.0)
    ours, theirs = [1.0] * 30 + [0.0] * 10, [1.0] * 25 + [0.0] * 15  # 5 of 40 questions better, none worse
    mean, low, high = paired_difference(ours, theirs)
    assert mean == 0.125 and 0.0 <= low < mean < high <= 0.3
    noisy = paired_difference([1.0, 0.0] * 20, [0.0, 1.0] * 20)  # as many wins as losses: a tie
    assert noisy[0] == 0.0 and noisy[1] < 0.0 < noisy[2]
    for bad in (([1.0], [1.0, 0.0]), ([], [])):
        try:
            paired_difference(*bad)
        except ValueError as error:
            assert "same questions" in str(error)
        else:
            raise AssertionError(f"{bad} must raise")


def test_details_carry_the_interval_when_the_rows_kept_per_query_scores() -> None:
    suite = _manuals(chop_span=0.70)
    for run in suite["runs"]:
        if "splits" in run:
            metrics = run["splits"]["heldout"]["metrics"]
            run["splits"]["heldout"]["per_query"] = {
                m: [1.0] * round(v * 100) + [0.0] * (100 - round(v * 100)) for m, v in metrics.items()
            }
    manuals = [c for c in check_must_show({"manuals": suite}) if c["criterion"].startswith("manuals")]
    assert "(chop - lumber+header-ours: +0.000, 95% CI" in manuals[0]["detail"]
    assert "(chop - lumber+name: +0.100, 95% CI" in manuals[0]["detail"]
    plain = check_must_show({"manuals": _manuals(chop_span=0.70)})  # no per-query scores: no interval
    assert all("CI" not in c["detail"] for c in plain)


def test_the_time_ratio_uses_cpu_seconds_when_both_rows_have_them() -> None:
    suite = _manuals(chop_span=0.7)  # wall: chop 1.0 s, lumber 0.6 s
    for run in suite["runs"]:
        run["chunk_cpu_seconds"] = 3.0 if run["strategy"] == "chop" else 1.0
    timing = check_must_show({"manuals": suite})[-1]
    assert timing["result"] == "FAIL" and "(CPU), ratio 3.00" in timing["detail"]
    suite["runs"][-1]["chunk_cpu_seconds"] = None  # lumber's chunks came from a cache: wall time for both
    timing = check_must_show({"manuals": suite})[-1]
    assert timing["result"] == "PASS" and "(wall), ratio 1.67" in timing["detail"]
