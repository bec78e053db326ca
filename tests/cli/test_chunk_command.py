"""`chop-integrations chunk`: the JSON Lines it writes, bad inputs, the dry run, the LLM options."""

from __future__ import annotations

import io
import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from chop_integrations import _cli as cli
from chop_integrations._chop.base_chunks import METADATA_KEYS
from chop_integrations._cli import chunk as cli_chunk
from chop_integrations._llm import config as llm_config
from chop_integrations.testing import ScriptedLLM, valid_answer


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("method", ["lumber", "chop"])
def test_jsonl_shape_and_exact_offsets(tmp_path: Path, manuals: list[Path], method: str) -> None:
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--method", method, "--out", str(out), *map(str, manuals)]) == 0
    records = read_jsonl(out)
    assert records, "no chunks written"
    for record in records:
        chop_keys = list(METADATA_KEYS) if method == "chop" else []
        assert list(record) == [*cli.CHUNK_FIELDS, *chop_keys]  # a CHOP line carries the adapters' chop_* keys
        assert record["embed_text"].endswith(record["chop_text"])
        assert isinstance(record["token_count"], int) and record["token_count"] > 0
    for path in manuals:
        text = path.read_text(encoding="utf-8")
        mine = [r for r in records if r["doc"] == path.stem]
        assert mine, f"no chunks for {path.name}"
        assert "".join(r["chop_text"] for r in mine) == text
        for record in mine:
            assert text[record["start"] : record["end"]] == record["chop_text"]
        assert mine[0]["start"] == 0 and mine[-1]["end"] == len(text)
        assert all(a["end"] == b["start"] for a, b in itertools.pairwise(mine))
    if method == "lumber":
        assert all(r["cnm"] is None and r["embed_text"] == r["chop_text"] for r in records)
    else:
        assert all(isinstance(r["cnm"], dict) and set(r["cnm"]) >= {"category", "nouns", "model"} for r in records)
        assert any(r["embed_text"] != r["chop_text"] for r in records), "CHOP added no prefix anywhere"


def test_max_tokens_bounds_every_chunk(tmp_path: Path, manuals: list[Path]) -> None:
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--method", "lumber", "--max-tokens", "20", "--out", str(out), *map(str, manuals)]) == 0
    records = read_jsonl(out)
    assert max(r["token_count"] for r in records) <= 20
    assert len(records) > 2


def test_stdout_without_out_and_usage_on_stderr(manuals: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--method", "chop", str(manuals[0])]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert records and {r["doc"] for r in records} == {"nimbus_k20"}
    assert "usage: calls=0" in captured.err
    assert "documents=1" in captured.err


def test_utf8_text_and_bom_keep_offsets_exact(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    text = "Überblick\n\nDas Gerät 这是中文。测试！\n\nZweiter Absatz.\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    out = tmp_path / "o.jsonl"
    assert cli.main(["chunk", "--out", str(out), str(path)]) == 0
    records = read_jsonl(out)
    assert "".join(r["chop_text"] for r in records) == text
    assert all(text[r["start"] : r["end"]] == r["chop_text"] for r in records)


BAD_INPUTS = {
    "non-utf8": (lambda p: p.write_bytes("Größe".encode("latin-1")), "not valid UTF-8"),
    "binary": (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "looks binary"),
    "missing": (lambda p: None, "no such file"),
    "directory": (lambda p: p.mkdir(), "is a directory"),
}


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_is_reported_and_the_others_still_processed(
    tmp_path: Path, manuals: list[Path], capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    make, message = BAD_INPUTS[kind]
    bad = tmp_path / f"bad-{kind}.txt"
    make(bad)
    out = tmp_path / "chunks.jsonl"
    code = cli.main(["chunk", "--out", str(out), str(manuals[0]), str(bad), str(manuals[1])])
    assert code == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1
    assert bad.name in errors[0] and message in errors[0]
    assert {r["doc"] for r in read_jsonl(out)} == {"nimbus_k20", "nimbus_k30"}


def test_empty_file_is_a_note_not_an_error(
    tmp_path: Path, manuals: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--out", str(out), str(empty), str(manuals[0])]) == 0
    err = capsys.readouterr().err
    assert "empty.txt: empty file, no chunks" in err
    assert "error" not in err
    assert {r["doc"] for r in read_jsonl(out)} == {"nimbus_k20"}


def test_only_bad_files_still_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--out", str(out), str(tmp_path / "missing.txt")]) == 1
    assert read_jsonl(out) == []
    assert "missing.txt: no such file" in capsys.readouterr().err


def _script_llm(monkeypatch: pytest.MonkeyPatch, llm: ScriptedLLM) -> list[dict[str, object]]:
    """Make --llm-model build ``llm`` instead of an HTTP client; returns the recorded build options."""
    calls: list[dict[str, object]] = []

    def fake_build_llm(**options: object) -> ScriptedLLM | None:
        calls.append(options)
        return llm if options.get("model") else None

    monkeypatch.setattr(llm_config, "build_llm", fake_build_llm)
    return calls


@pytest.mark.parametrize("method", ["lumber", "chop"])
def test_dry_run_calls_nothing_and_prints_an_estimate(
    tmp_path: Path,
    manuals: list[Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    method: str,
) -> None:
    llm = ScriptedLLM(default=AssertionError("dry run must not call the LLM"))
    _script_llm(monkeypatch, llm)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    out = tmp_path / "chunks.jsonl"
    argv = ["chunk", "--method", method, "--dry-run", "--llm-model", "m", "--out", str(out)]
    assert cli.main([*argv, *map(str, manuals)]) == 0
    assert llm.prompts == []
    assert not out.exists()
    assert not (tmp_path / "xdg").exists(), "a dry run must not create the answer cache"
    stdout = capsys.readouterr().out
    assert "estimate for 2 document(s)" in stdout
    assert "calls=" in stdout and "(estimate)" in stdout


def test_llm_options_reach_the_builder_and_the_llm_is_used(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    llm = ScriptedLLM(default="not an answer anyone can parse")
    calls = _script_llm(monkeypatch, llm)
    out = tmp_path / "chunks.jsonl"
    argv = ["chunk", "--method", "chop", "--llm-base-url", "http://localhost:1/v1", "--llm-model", "m"]
    argv += ["--llm-api-key-env", "MY_KEY", "--cache", str(tmp_path / "cache.sqlite"), "--out", str(out)]
    assert cli.main([*argv, *map(str, manuals)]) == 0
    assert calls[0]["base_url"] == "http://localhost:1/v1"
    assert calls[0]["model"] == "m" and calls[0]["api_key_env"] == "MY_KEY"
    assert llm.prompts, "the configured LLM was never asked"
    err = capsys.readouterr().err
    assert "fallbacks=0" not in err, "garbage answers must be counted as fallbacks"
    assert "WARNING" in err
    records = read_jsonl(out)
    for path in manuals:
        assert "".join(r["chop_text"] for r in records if r["doc"] == path.stem) == path.read_text(encoding="utf-8")


def test_on_llm_error_raise_fails_the_file_with_its_name(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _script_llm(monkeypatch, ScriptedLLM(default="garbage"))
    out = tmp_path / "chunks.jsonl"
    argv = ["chunk", "--method", "chop", "--llm-model", "m", "--no-cache", "--on-llm-error", "raise"]
    assert cli.main([*argv, "--out", str(out), *map(str, manuals)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert any(manuals[0].name in line for line in errors)


def test_configuration_errors_exit_2(manuals: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--llm-base-url", "http://localhost:1/v1", str(manuals[0])]) == 2
    assert "--llm-model" in capsys.readouterr().err


def _usage(err: str) -> dict[str, float]:
    line = next(line for line in err.splitlines() if line.startswith("usage: "))
    return {key: float(value) for key, value in re.findall(r"(\w+)=([\d.]+)", line)}


def test_default_cache_makes_a_repeated_ingest_free(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    llm = ScriptedLLM(default=valid_answer)  # only valid answers are cached
    _script_llm(monkeypatch, llm)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    argv = ["chunk", "--method", "chop", "--llm-model", "m", "--out", str(tmp_path / "o.jsonl"), *map(str, manuals)]
    assert cli.main(argv) == 0
    first = _usage(capsys.readouterr().err)
    assert first["calls"] > 0
    assert (tmp_path / "xdg" / "chop-integrations" / "answers.sqlite").exists()
    prompts = len(llm.prompts)
    assert cli.main(argv) == 0
    second = _usage(capsys.readouterr().err)
    assert second["calls"] == 0 and second["cache_hits"] > 0
    assert len(llm.prompts) == prompts
    assert cli.main([*argv[:1], "--no-cache", *argv[1:]]) == 0
    assert _usage(capsys.readouterr().err)["calls"] == first["calls"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_stderr(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(["chunk", "--out", str(tmp_path / "o.jsonl"), *map(str, manuals)]) == 0
    err = terminal.getvalue()
    assert "0/2 [" in err and "doc/s" in err  # the first render always happens; later ones are rate-limited
    assert err.rstrip().splitlines()[-1].lstrip("\r ").startswith("usage: ")


def test_an_engine_crash_on_one_file_is_reported_and_the_others_still_processed(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_build = cli.build_engine

    def build(args: object) -> object:
        engine = real_build(args)  # type: ignore[arg-type]
        real_chunk = engine.chunk

        def chunk(text: str, *, metadata: dict[str, str]) -> object:
            if metadata["source"] == manuals[0].name:
                raise RuntimeError("boom")
            return real_chunk(text, metadata=metadata)

        engine.chunk = chunk
        return engine

    monkeypatch.setattr(cli_chunk, "build_engine", build)
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--out", str(out), *map(str, manuals)]) == 1
    err = capsys.readouterr().err
    assert f"{manuals[0]}: unexpected RuntimeError: boom" in err
    assert {r["doc"] for r in read_jsonl(out)} == {"nimbus_k30"}


def test_size_summary_on_stderr_and_max_tokens_sets_the_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "guide.md"
    path.write_text(
        "".join(
            f"## Part {i}\n\n" + " ".join(f"Step {j} of part {i} is explained here." for j in range(8)) + "\n\n"
            for i in range(30)
        ),
        encoding="utf-8",
    )
    means = {}
    for size in (200, 2000):
        assert cli.main(["chunk", "--method", "lumber", "--max-tokens", str(size), str(path)]) == 0
        captured = capsys.readouterr()
        sizes = [json.loads(line)["token_count"] for line in captured.out.splitlines()]
        line = next(x for x in captured.err.splitlines() if x.startswith("sizes: "))
        assert line.startswith(f"sizes: {len(sizes)} chunks, median ")
        assert "p10 " in line and "p90 " in line
        means[size] = sum(sizes) / len(sizes)
    assert means[2000] >= 1.5 * means[200]
    assert cli.size_summary([]) == "0 chunks"
    assert cli.size_summary([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) == "10 chunks, median 5.5 tokens (p10 1, p90 9)"
