"""CLI ``--out`` (or an input) naming a file SQLite keeps beside the ``--cache`` file is refused.

SQLite owns ``<cache>-wal``, ``<cache>-shm`` and ``<cache>-journal``: it deletes the first two when the
last connection closes, so chunks written there were gone once the run ended (exit 0), and an input there
would be removed or rewritten. Refused, exit 2, every file as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chop_integrations import _cli as cli


@pytest.mark.parametrize("side", ["-wal", "-shm", "-journal"])
def test_out_naming_a_file_sqlite_keeps_beside_the_cache_is_refused(
    tmp_path: Path, side: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "in.txt"
    text.write_text("Open it.\n\nClean it.\n", encoding="utf-8")
    out = tmp_path / f"answers.sqlite{side}"
    out.write_text("earlier chunks\n", encoding="utf-8")
    argv = ["chunk", "--cache", str(tmp_path / "answers.sqlite"), "--out", str(out), str(text)]
    assert cli.main(argv) == 2
    assert "--cache" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "earlier chunks\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.txt", out.name])


def test_an_input_naming_a_file_sqlite_keeps_beside_the_cache_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.sqlite-wal"
    text.write_text("Open it.\n\nClean it.\n", encoding="utf-8")
    argv = ["chunk", "--cache", str(tmp_path / "notes.sqlite"), "--out", str(tmp_path / "o.jsonl"), str(text)]
    assert cli.main(argv) == 2
    assert text.read_text(encoding="utf-8") == "Open it.\n\nClean it.\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite-wal"]
