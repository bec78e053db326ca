"""The CLI's output helpers: each input's ``doc`` name, and a --cache that must not be --out or an input."""

from __future__ import annotations

from pathlib import Path

import pytest

from chop_integrations._cli.output import check_cache, doc_names
from chop_integrations._files import OutputError


def test_doc_names_are_stems_unless_shared() -> None:
    assert doc_names([Path("a/x.txt"), Path("b/y.md")]) == ["x", "y"]
    assert doc_names([Path("a/x.txt"), Path("b/x.txt"), Path("c/z.txt")]) == ["a/x.txt", "b/x.txt", "z"]
    assert doc_names([Path("x.txt"), Path("x.md")]) == ["x.txt", "x.md"]
    assert doc_names([Path("a/x.txt"), Path("a/x.txt"), Path("a/x.txt")]) == ["a/x.txt", "a/x.txt#2", "a/x.txt#3"]
    assert doc_names([]) == []


def test_a_cache_apart_from_out_and_inputs_passes(tmp_path: Path) -> None:
    check_cache(None, str(tmp_path / "out.jsonl"), [str(tmp_path / "in.txt")])
    check_cache(str(tmp_path / "cache.sqlite"), "-", [str(tmp_path / "in.txt")])
    check_cache(str(tmp_path / "cache.sqlite"), None, [])


@pytest.mark.parametrize("side", ["", "-wal", "-shm", "-journal"])
def test_a_cache_that_is_the_out_file_is_refused(tmp_path: Path, side: str) -> None:
    cache = tmp_path / "cache.sqlite"
    with pytest.raises(OutputError) as caught:
        check_cache(str(cache), str(tmp_path / f"cache.sqlite{side}"), [])
    assert str(caught.value) == (
        f"--cache {cache} is the --out file or SQLite's file beside it; the answers and the chunks need two files"
    )


@pytest.mark.parametrize("side", ["", "-wal"])
def test_a_cache_that_is_an_input_is_refused(tmp_path: Path, side: str) -> None:
    cache, given = tmp_path / "cache.sqlite", tmp_path / f"cache.sqlite{side}"
    given.write_text("an input", encoding="utf-8")
    with pytest.raises(OutputError) as caught:
        check_cache(str(cache), str(tmp_path / "out.jsonl"), [str(tmp_path / "other.txt"), str(given)])
    assert str(caught.value) == (
        f"--cache {cache} is one of the input files ({given}) or SQLite's file beside it; refusing to overwrite it"
    )
    assert given.read_text(encoding="utf-8") == "an input"


def test_stdout_is_no_file_beside_a_cache_named_dash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    check_cache("-", "-", [])  # "--out -" is stdout, not the file "-" the cache would be
    with pytest.raises(OutputError):
        check_cache("-", "./-", [])
