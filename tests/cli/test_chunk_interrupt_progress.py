"""``chunk`` on one long document: Ctrl-C ends it cleanly for both methods, and a bar counts its characters."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chop_integrations import LumberChunker
from chop_integrations import _cli as cli
from chop_integrations._cli import chunk as cli_chunk

PARAGRAPH = (
    "Setting up the camera\n\nOpen the cover and insert the battery. Close the cover until it clicks, then hold "
    "the power key for three seconds. The screen shows the clock when the camera is ready.\n\n"
)


def _long_document(path: Path, chars: int) -> Path:
    path.write_text(PARAGRAPH * (chars // len(PARAGRAPH) + 1), encoding="utf-8")
    return path


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("method", ["lumber", "chop"])
def test_ctrl_c_on_a_long_document_exits_130_with_one_line(tmp_path: Path, method: str) -> None:
    # many tiny paragraphs: well over ten seconds of work, so the run is still going at the signal
    doc = tmp_path / "long.txt"
    doc.write_text("A short note.\n\n" * 600_000, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "chop_integrations._cli", "chunk", str(doc), "--method", method]
    process = subprocess.Popen(
        [*command, "--out", str(tmp_path / "out.jsonl")],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_default_sigint,  # a run started in the background inherits SIGINT ignored
    )
    time.sleep(3.0)  # past the imports
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].endswith("interrupted")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_document_gets_a_bar_of_characters_and_the_same_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_chunk, "DOCUMENT_PIECE_CHARS", 4096)
    doc = _long_document(tmp_path / "long.txt", 40_000)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    out = tmp_path / "o.jsonl"
    assert cli.main(["chunk", "--method", "lumber", "--out", str(out), str(doc)]) == 0
    assert "char/s" in terminal.getvalue()  # the document's own bar, in characters
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    text = doc.read_text(encoding="utf-8")
    expected = LumberChunker().chunk(text, metadata={"source": doc.name})
    assert [(r["start"], r["end"]) for r in rows] == [(c.start, c.end) for c in expected]
