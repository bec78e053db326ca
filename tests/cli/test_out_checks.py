"""``chunk --out``: never an input, clear one-line errors (exit 2), folders created with a note, docs apart."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chop_integrations import _cli as cli
from tests.support.permissions import read_only_folder


def _one_line_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("chop-integrations: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_an_input_given_as_out_is_never_overwritten(
    manuals: list[Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = manuals[0].read_bytes()
    assert cli.main(["chunk", "--out", str(manuals[0]), str(manuals[0])]) == 2
    _one_line_error(capsys, "input", str(manuals[0]))
    monkeypatch.chdir(manuals[0].parent)  # the same file named another way
    assert cli.main(["chunk", "--out", f"./{manuals[0].name}", str(manuals[0]), str(manuals[1])]) == 2
    assert manuals[0].read_bytes() == before


def test_out_on_a_directory(manuals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--out", str(tmp_path), str(manuals[0])]) == 2
    _one_line_error(capsys, "is a directory")


@pytest.mark.parametrize("below", ["file.txt/out.jsonl", "file.txt/deeper/out.jsonl"])
def test_out_below_a_file(manuals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], below: str) -> None:
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    assert cli.main(["chunk", "--out", str(tmp_path / below), str(manuals[0])]) == 2
    _one_line_error(capsys, "is a file, not a folder")


def test_out_in_an_unwritable_place(manuals: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--out", "/proc/chop-no-such-folder/out.jsonl", str(manuals[0])]) == 2
    _one_line_error(capsys, "--out")


def test_out_in_a_read_only_folder(
    manuals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only_folder(folder, monkeypatch):  # as a non-root user sees it, root (CI) included
        assert cli.main(["chunk", "--out", str(folder / "out.jsonl"), str(manuals[0])]) == 2
        _one_line_error(capsys, "permission denied", str(folder))
    assert list(folder.iterdir()) == []


def test_out_refused_only_when_written(
    manuals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that passes the access check but refuses the file (an ACL, a read-only mount): still one line."""
    folder = tmp_path / "acl"
    folder.mkdir()
    with read_only_folder(folder, monkeypatch):
        monkeypatch.setattr(os, "access", lambda *args, **kwargs: True)
        assert cli.main(["chunk", "--out", str(folder / "out.jsonl"), str(manuals[0])]) == 2
        _one_line_error(capsys, "--out", "cannot be written", "Permission denied")
    assert list(folder.iterdir()) == []


def test_missing_folders_are_created_and_said(
    manuals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "deeper" / "chunks.jsonl"
    assert cli.main(["chunk", "--out", str(out), str(manuals[0])]) == 0
    assert out.is_file()
    assert "created the folder" in capsys.readouterr().err
    assert cli.main(["chunk", "--out", str(out), str(manuals[0])]) == 0  # the folder exists now: no note
    assert "created the folder" not in capsys.readouterr().err


def test_same_stem_inputs_get_distinct_docs_and_their_path(tmp_path: Path, manuals: list[Path]) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "manual.txt").write_text(manuals[0].read_text(encoding="utf-8"), encoding="utf-8")
    paths = [str(tmp_path / "a" / "manual.txt"), str(tmp_path / "b" / "manual.txt")]
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--out", str(out), *paths]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["doc"] for r in records} == set(paths)
    assert all(r["path"] == r["doc"] for r in records)
