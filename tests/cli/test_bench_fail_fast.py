"""The bench commands check every option and output before any work: one line and exit code 2, no traceback.

A bad value (``nan``, ``inf``, ``1e400``), an output that cannot be written (a directory, a path below a
file) or a corpus file that is not UTF-8 used to end in a traceback (exit code 1), the outputs only after
the whole run, minutes in. The figures are written whole, and never through a symlink.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chop_bench import speed, stress
from chop_bench.cli import main as bench_main
from chop_integrations._cli import main


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any benchmark work fails the test: the options must be refused before it."""

    def started(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the work started before the options were checked")

    for module, name in ((speed, "measure_splitters"), (speed, "measure_sizes"), (stress, "run_stress")):
        monkeypatch.setattr(module, name, started)
    texts = speed._texts  # a given --corpus is read; the default one (the 30 manuals) is not
    monkeypatch.setattr(speed, "_texts", lambda args: texts(args) if args.corpus else ["Some text. " * 50])


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("The pump moves water. " * 40, encoding="utf-8")
    return folder


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.usefixtures("no_work")
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["bench-speed", "--sizes", "nan"], "--sizes must be a comma list of finite numbers"),
        (["bench-speed", "--sizes", "inf"], "--sizes must be a comma list of finite numbers"),
        (["bench-speed", "--sizes", "1e400"], "--sizes must be a comma list of finite numbers"),
        (["bench-speed", "--sizes", "1e-300"], "--sizes must be a comma list of numbers >= 0.001 and <= 1024"),
        (["bench-speed", "--sample-mb", "nan"], "--sample-mb must be a number >= 0 and <= 1024"),
        (["bench-speed", "--sample-mb", "inf"], "--sample-mb must be a number >= 0 and <= 1024"),
        (["bench-speed", "--repeat", "0"], "--repeat must be >= 1"),
        (["bench-stress", "--paragraph-mb", "nan"], "--paragraph-mb must be a comma list of finite numbers"),
        (["bench-stress", "--run-chars", "1e400", "--kinds", "runs"], "--run-chars must be a comma list of finite"),
        (["bench-stress", "--run-chars", "1e400"], "--run-chars must be a comma list of finite"),  # kind left out
        (["bench-stress", "--paragraph-mb", "nan", "--kinds", "tiny"], "--paragraph-mb must be a comma list of finite"),
        (["bench-stress", "--run-chars", "1e20", "--kinds", "spaces"], "--run-chars must be a comma list of numbers"),
        (["bench-stress", "--tiny-paragraphs=-inf"], "--tiny-paragraphs must be a comma list of finite"),
        (["bench-stress", "--answer-mb", "nan"], "--answer-mb must be a comma list of finite numbers"),
        (["bench-stress", "--max-tokens", "0"], "--max-tokens must be an integer >= 1"),
    ],
)
def test_a_bad_number_is_one_line_and_exit_code_2(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    assert said in one_error_line(capsys)


@pytest.mark.usefixtures("no_work")
@pytest.mark.parametrize("where", ["a directory", "below a file"])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(
    tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    path = str(tmp_path) if where == "a directory" else str(tmp_path / "file" / "figures.json")
    assert main(["bench-speed", "--sizes", "", "--json", path]) == 2
    assert "--json" in one_error_line(capsys)
    stress_out = str(tmp_path / "file") if where == "a directory" else str(tmp_path / "file" / "out")
    assert main(["bench-stress", "--out", stress_out]) == 2
    assert "--out" in one_error_line(capsys)


@pytest.mark.usefixtures("no_work")
def test_a_stress_output_file_that_is_a_directory_is_refused_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "stress.json").mkdir()
    assert main(["bench-stress", "--out", str(tmp_path)]) == 2
    assert "stress.json is a directory" in one_error_line(capsys)


def test_a_corpus_file_that_is_not_utf8_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    assert main(["bench-speed", "--corpus", str(tmp_path), "--sizes", ""]) == 2
    assert "latin1.txt is not UTF-8 text" in one_error_line(capsys)
    assert bench_main(["bench-speed", "--corpus", str(tmp_path), "--sizes", ""]) == 2


def _fake_splitters(texts: Any, *, repeat: int = 3) -> dict[str, Any]:
    return {"megabytes": 0.01, "documents": len(texts), "rows": [], "notes": {}}


def test_the_json_replaces_a_symlink_and_never_writes_through_it(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(speed, "measure_splitters", _fake_splitters)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    link = tmp_path / "figures.json"
    link.symlink_to(victim)
    assert main(["bench-speed", "--corpus", str(corpus), "--sizes", "", "--json", str(link)]) == 0
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert not link.is_symlink() and json.loads(link.read_text(encoding="utf-8"))["repeat"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "figures.json", "victim.txt"]  # no temp file


def test_the_json_is_written_whole_or_not_at_all(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(speed, "measure_splitters", _fake_splitters)
    out = tmp_path / "figures.json"
    out.write_text('{"earlier": true}\n', encoding="utf-8")

    def full_disk(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.fsync", full_disk)
    assert main(["bench-speed", "--corpus", str(corpus), "--sizes", "", "--json", str(out)]) == 1
    assert "No space left on device" in one_error_line(capsys)
    assert out.read_text(encoding="utf-8") == '{"earlier": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "figures.json"]


def test_the_stress_outputs_replace_symlinks(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stress.json").symlink_to(victim)
    (out / "stress.md").symlink_to(victim)
    args = ["bench-stress", "--paragraph-mb", "0.002", "--tiny-paragraphs", "10", "--methods", "lumber"]
    assert main([*args, "--answer-mb", "0", "--no-memory", "--out", str(out)]) == 0
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert not (out / "stress.json").is_symlink() and "series" in json.loads((out / "stress.json").read_text())
    assert not (out / "stress.md").is_symlink()


@pytest.mark.usefixtures("no_work")
@pytest.mark.parametrize(
    "args",
    [
        ["chunk", "--out=--", "doc.txt"],  # argparse drops a value of "--" and leaves a list
        ["bench-scale", "--out=--"],
        ["bench-speed", "--corpus", "1" * 5000],  # a name too long for the file system
        ["bench-speed", "--sizes", "", "--json", "1" * 5000],
        ["bench-stress", "--out", "1" * 5000],
        ["bench-llm", "--corpus", "1" * 5000],
        ["bench-structure", "--sizes", "1" * 5000],  # more digits than int() reads
    ],
    ids=["chunk-out-dashes", "scale-out-dashes", "long-corpus", "long-json", "long-out", "llm-corpus", "digits"],
)
def test_values_the_fuzz_found_are_one_line_and_exit_code_2(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doc.txt").write_text("The pump moves water.\n", encoding="utf-8")
    assert main(args) == 2
    assert len(one_error_line(capsys)) < 400


@pytest.mark.parametrize(
    "args",
    [["bench-structure", "--set", "general", "--json"], ["bench-scale", "--scenario", "stream", "--out"]],
    ids=["structure-json", "scale-out"],
)
def test_the_other_bench_outputs_are_checked_before_the_work(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from chop_bench import structure
    from chop_bench.scale import stream as scale_stream

    def started(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the work started before the output was checked")

    monkeypatch.setattr(structure, "run_set", started)
    monkeypatch.setattr(scale_stream, "run", started)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert main([*args, str(tmp_path / "file" / "below")]) == 2
    line = one_error_line(capsys)
    assert "below" in line and ("not a folder" in line or "cannot create" in line)
