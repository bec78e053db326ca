"""The bench-scale stream scenario: a generated file streamed by a child process, losslessly."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from chop_bench.cli import main as bench_main
from chop_bench.scale.stream import add_arguments, generate, run, stream_file


def test_generate_is_deterministic_structured_and_at_least_the_size(tmp_path: Path) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    assert generate(a, 0.2) == generate(b, 0.2)
    text = a.read_text(encoding="utf-8")
    assert a.read_bytes() == b.read_bytes() and a.stat().st_size >= 0.2 * (1 << 20)
    assert "\n## " in text and "\n- " in text and "\n```\n" in text and "| name | value |" in text
    assert len(set(text.splitlines())) > len(text.splitlines()) // 3  # not one repeated line


def test_stream_file_is_lossless(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    chars, crc = generate(path, 0.1)
    result = stream_file(path, "lumber")
    assert (result["chars"], result["crc"], result["contiguous"]) == (chars, crc, True)
    assert result["chunks"] > 10


def test_the_scenario_prints_one_row_from_a_child_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--stream-mib", "0.2", "--stream-dir", str(tmp_path)])
    (row,) = run(args)
    assert row["scenario"] == "stream" and row["method"] == "lumber" and row["lossless"] is True
    assert row["input_mib"] >= 0.2 and row["peak_mib"] > 0 and row["chunks"] > 10
    assert list(tmp_path.iterdir()) == []  # the temporary document is gone
    assert bench_main(["bench-scale", "--scenario", "stream", "--stream-mib", "0.1", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["scenario"] == "stream" and printed["lossless"] is True
