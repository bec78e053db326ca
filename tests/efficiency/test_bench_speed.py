"""``bench-speed``: every installed splitter timed on each set, one table, the size rows, and the JSON it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chop_bench import speed
from chop_bench.cli import main as bench_main
from chop_integrations._errors import ConfigurationError

TEXTS = [
    "# Setting up\n\nInsert the battery and close the cover. Hold the power key for three seconds.\n\n"
    "## Charging\n\nConnect the charger. The light turns green when the battery is full.\n" * 20,
    "Cleaning\n\nWipe the lens with a dry cloth. Do not use water or solvents on the screen.\n" * 30,
]


def test_every_installed_splitter_gets_a_row_and_a_missing_one_a_note() -> None:
    result = speed.measure_splitters(TEXTS, repeat=1)
    names = {r["splitter"] for r in result["rows"]} | set(result["notes"])
    assert names == set(speed._MAKERS)
    for name in ("LangChain RecursiveCharacterTextSplitter", "LumberChunker offline", "CHOPChunker offline"):
        row = next(r for r in result["rows"] if r["splitter"] == name)
        assert row["mb_s"] > 0 and row["chunks"] > 0
    assert next(r for r in result["rows"] if r["splitter"] == speed._REFERENCE)["vs_langchain"] == 1.0
    assert all("not installed" in note for note in result["notes"].values())


def test_the_size_rows_cover_both_engines_through_chunk_and_the_command() -> None:
    rows = speed.measure_sizes(TEXTS, (0.01, 0.02), cli=True, sample_mb=0)
    assert {(r["path"], r["method"]) for r in rows} == {
        (path, method) for path in ("chunk()", "CLI") for method in ("lumber", "chop")
    }
    assert all(r["s_per_mb"] > 0 for r in rows)
    assert all(r["vs_smallest"] == 1.0 for r in rows if r["size_mb"] == 0.01)


def test_a_small_size_runs_until_the_sample_went_through() -> None:
    rows = speed.measure_sizes(TEXTS, (0.01, 0.04), cli=False, sample_mb=0.03)
    assert {(r["size_mb"], r["runs"]) for r in rows} == {(0.01, 3), (0.04, 1)}
    assert all(r["cpu_s"] >= 0 for r in rows)


def test_the_big_document_has_the_size_asked_for() -> None:
    assert len(speed.big_document(TEXTS, 0.05)) == 50_000


def test_the_command_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, text in enumerate(TEXTS):
        (corpus / f"doc{i}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "speed.json"
    argv = ["--corpus", str(corpus), "--repeat", "1", "--sizes", "0.01", "--no-cli", "--sample-mb", "0"]
    code = bench_main(["bench-speed", *argv, "--json", str(out)])
    assert code == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["splitters"]["corpus"]["documents"] == 2 and {r["path"] for r in result["sizes"]} == {"chunk()"}
    assert "| LumberChunker offline |" in capsys.readouterr().out


def test_bad_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        speed._sizes("1,-4")
    assert bench_main(["bench-speed", "--corpus", str(tmp_path), "--sizes", "1"]) == 2  # no documents there
    assert bench_main(["bench-speed", "--corpus", str(tmp_path), "--sample-mb", "-1"]) == 2


def test_a_document_set_is_timed_instead_of_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    code = bench_main(["bench-speed", "--set", "general", "--repeat", "1", "--sizes", "", "--no-cli"])
    assert code == 0
    out = capsys.readouterr().out
    assert "| LumberChunker offline |" in out and "| CHOPChunker offline |" in out


def test_by_default_every_set_found_is_one_column_and_a_missing_one_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh clone has neither the Debian manuals nor ../shared/data: the general set alone still runs."""
    measure = speed.measure_splitters  # (on two documents of each set: the columns are checked, not the speed)
    monkeypatch.setattr(speed, "measure_splitters", lambda texts, repeat: measure(texts[:2], repeat=1))
    manuals = tmp_path / "manuals"
    manuals.mkdir()
    for i, text in enumerate(TEXTS):
        (manuals / f"m{i}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "speed.json"
    argv = ["--docs-dir", str(tmp_path / "no-docs"), "--manuals-dir", str(manuals), "--sizes", "0.01", "--no-cli"]
    argv += ["--sample-mb", "0"]  # (one run of the size, not 16 MB of runs)
    assert bench_main(["bench-speed", *argv, "--sizes-set", "manuals", "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert list(result["splitters"]) == ["general", "manuals"] and result["sizes_set"] == "manuals"
    assert "fetch_docs.py" in result["sets_left_out"]["multilingual"]
    printed = capsys.readouterr().out
    assert "| splitter | general MB/s | x LangChain | manuals MB/s | x LangChain |" in printed
    lumber = next(line for line in printed.splitlines() if line.startswith("| LumberChunker offline |"))
    assert lumber.count("|") == 6 and "multilingual: left out" in printed


def test_an_unknown_or_missing_set_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["bench-speed", "--set", "nonsense", "--sizes", ""]) == 2
    assert "unknown set 'nonsense'" in capsys.readouterr().err
    assert bench_main(["bench-speed", "--set", "multilingual", "--docs-dir", str(tmp_path), "--sizes", ""]) == 2
    assert "fetch_docs.py" in capsys.readouterr().err
    assert bench_main(["bench-speed", "--set", "general", "--sizes-set", "manuals", "--sizes", "1"]) == 2
    assert "--sizes-set 'manuals' is not among the sets timed" in capsys.readouterr().err
    assert (
        bench_main(["bench-speed", "--set", " , ", "--sizes", ""]) == 2
    )  # a list of no names: an error, not a StopIteration
    assert "--set names no set" in capsys.readouterr().err


def test_a_set_and_a_corpus_together_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["bench-speed", "--set", "general", "--corpus", str(tmp_path), "--sizes", ""]) == 2
    assert "pass --corpus or --set, not both" in capsys.readouterr().err
