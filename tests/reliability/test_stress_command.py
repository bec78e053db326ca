"""bench-stress on tiny sizes: the command runs, checks losslessness and writes JSON and Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chop_bench.stress import build_document, run_stress
from chop_integrations._cli import main


def test_documents_are_hostile_and_sized() -> None:
    big = build_document("paragraph", 0.02)
    assert len(big) == 20_000 and "\n\n" not in big and "\u202e" in big and "Answer: ID 3" in big
    tiny = build_document("tiny", 300)
    assert tiny.count("\n\n") == 299
    assert build_document("tiny", 300) == tiny  # deterministic


def test_run_stress_reports_growth_and_losslessness() -> None:
    result = run_stress({"paragraph": (0.005, 0.01), "tiny": (50, 100)}, methods=("lumber", "chop-faulty"))
    assert len(result["rows"]) == 8
    assert all(row["lossless"] for row in result["rows"])
    second = [r for r in result["rows"] if r["size"] in (0.01, 100)]
    assert all(r["size_x"] and r["size_x"] > 1.5 and r["peak_mib"] > 0 for r in second)
    assert {(s["kind"], s["method"]) for s in result["series"]} == {
        ("paragraph", "lumber"),
        ("paragraph", "chop-faulty"),
        ("tiny", "lumber"),
        ("tiny", "chop-faulty"),
    }
    assert any(r["calls"] > 0 for r in result["rows"] if r["method"] == "chop-faulty")


def test_cli_bench_stress_writes_json_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench-stress", "--paragraph-mb", "0.003,0.006", "--tiny-paragraphs", "20,40", "--out", str(tmp_path)])
    assert code == 0
    data = json.loads((tmp_path / "stress.json").read_text(encoding="utf-8"))
    assert len(data["rows"]) == 2 * 2 * 4
    assert "| kind | method | time exponent |" in (tmp_path / "stress.md").read_text(encoding="utf-8")
    assert "time exponent" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--methods", "nope"], ["--kinds", "huge"], ["--paragraph-mb", "x"]])
def test_bad_options_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-stress", *argv]) == 2
    assert "error" in capsys.readouterr().err
