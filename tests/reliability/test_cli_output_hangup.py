"""A hang-up (SIGHUP: the terminal closed, the SSH session dropped) while ``--out`` is written.

It unwinds like SIGTERM: the temporary file is removed and an earlier output stays as it was (before,
the process died on the spot and left a hidden ``.chunks.jsonl.*.tmp`` beside the output each time).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITER = """
import os, signal, sys
from pathlib import Path
from chop_integrations._cli.output import AtomicOutput

with AtomicOutput(Path(sys.argv[1])) as stream:
    stream.write('{"doc": "half"')
    os.kill(os.getpid(), signal.SIGHUP)
    stream.write("never")
"""


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_hangup_while_writing_keeps_the_earlier_output_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "chunks.jsonl"
    target.write_text("earlier\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(target)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert target.read_text(encoding="utf-8") == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks.jsonl"]
