"""bench-stress's answer series: huge answers cost no more time than small ones, and the command reports it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chop_bench.stress_answers import markdown, run_answer_stress
from chop_integrations._cli import main


def test_answers_past_the_limit_are_all_invalid_and_the_run_stays_lossless() -> None:
    result = run_answer_stress((0.1, 0.2))
    assert result["ok"] and len(result["rows"]) == 2
    for row in result["rows"]:
        assert row["calls"] > 0 and row["invalid_answers"] == row["calls"] and row["fallbacks"] > 0
        assert row["lossless"] and row["within_bound"]
    assert "| answer MB |" in markdown(result)


def test_the_command_writes_the_series_and_can_skip_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["bench-stress", "--paragraph-mb", "0.003", "--tiny-paragraphs", "20", "--methods", "lumber"]
    assert main([*base, "--answer-mb", "0.1,0.2", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "stress.json").read_text(encoding="utf-8"))
    assert [r["answer_mb"] for r in data["answers"]["rows"]] == [0.1, 0.2]
    assert "Answers of growing size" in (tmp_path / "stress.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main([*base, "--answer-mb", "0", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "stress.json").read_text(encoding="utf-8"))["answers"] is None
    assert main([*base, "--answer-mb", "big"]) == 2
