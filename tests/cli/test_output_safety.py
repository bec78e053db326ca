"""``chunk`` never loses a file: --cache and --out never name an input or each other, and the output appears
whole or not at all (an interrupt, a kill or a full disk leaves an earlier output exactly as it was).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chop_integrations import _cli as cli
from chop_integrations._cli import chunk as chunk_command
from chop_integrations._llm import config as llm_config
from chop_integrations.testing import SimulatedLLM

ROOT = Path(__file__).resolve().parents[2]
EARLIER = b'{"doc": "an earlier, complete output"}\n' * 3


def _errors(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if "error:" in line]


@pytest.fixture
def simulated(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--llm-model`` builds a fast SimulatedLLM instead of an HTTP client."""
    monkeypatch.setattr(llm_config, "build_llm", lambda **_: SimulatedLLM(latency_ms=0))


LLM = ["--llm-model", "simulated"]


# -- --cache against --out and the inputs ----------------------------------------------------------------


@pytest.mark.parametrize("exists", [False, True])
def test_cache_on_the_out_file_is_refused(
    tmp_path: Path, manuals: list[Path], simulated: None, capsys: pytest.CaptureFixture[str], exists: bool
) -> None:
    out = tmp_path / "b.jsonl"
    if exists:
        out.write_bytes(EARLIER)
    assert cli.main(["chunk", *LLM, "--cache", str(out), "--out", str(out), str(manuals[0])]) == 2
    (line,) = _errors(capsys.readouterr().err)
    assert "--cache" in line and "--out" in line
    assert (out.read_bytes() == EARLIER) if exists else not out.exists()


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
def test_cache_on_an_input_is_refused(
    tmp_path: Path, manuals: list[Path], simulated: None, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    before = manuals[0].read_bytes()
    cache = manuals[0]
    if how == "symlink":
        cache = tmp_path / "link.sqlite"
        cache.symlink_to(manuals[0])
    elif how == "hard link":
        cache = tmp_path / "hard.sqlite"
        os.link(manuals[0], cache)
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", *LLM, "--cache", str(cache), "--out", str(out), *map(str, manuals)]) == 2
    (line,) = _errors(capsys.readouterr().err)
    assert "--cache" in line and "input" in line
    assert manuals[0].read_bytes() == before and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*(m.name for m in manuals), *([cache.name] * (cache != manuals[0]))]
    )


def test_out_a_hard_link_to_an_input_is_refused(
    tmp_path: Path, manuals: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = manuals[0].read_bytes()
    link = tmp_path / "other-name.jsonl"
    os.link(manuals[0], link)
    assert cli.main(["chunk", "--out", str(link), *map(str, manuals)]) == 2
    (line,) = _errors(capsys.readouterr().err)
    assert "input" in line
    assert manuals[0].read_bytes() == before


# -- whole or nothing --------------------------------------------------------------------------------------


def test_a_finished_run_replaces_the_earlier_output_and_leaves_no_temporary_file(
    tmp_path: Path, manuals: list[Path]
) -> None:
    out = tmp_path / "out" / "chunks.jsonl"
    out.parent.mkdir()
    out.write_bytes(EARLIER)
    assert cli.main(["chunk", "--out", str(out), *map(str, manuals)]) == 0
    assert out.read_bytes() != EARLIER and out.read_text(encoding="utf-8").count("\n") >= 2
    assert [p.name for p in out.parent.iterdir()] == ["chunks.jsonl"]


def test_a_full_disk_mid_run_is_one_line_and_keeps_the_earlier_output(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "chunks.jsonl"
    out.parent.mkdir()
    out.write_bytes(EARLIER)
    real_done = chunk_command._Writer.done
    seen: list[Any] = []

    def full_after_one(self: Any, document: Any, chunks: list[Any]) -> None:
        seen.append(document)
        if len(seen) == 1:
            real_done(self, document, chunks)
            return
        self.out.write('{"doc": "half a li')
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(chunk_command._Writer, "done", full_after_one)
    code = cli.main(["chunk", "--out", str(out), *map(str, manuals)])
    (line,) = _errors(capsys.readouterr().err)
    assert code != 0 and "No space left on device" in line and str(out) in line
    assert out.read_bytes() == EARLIER
    assert [p.name for p in out.parent.iterdir()] == ["chunks.jsonl"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_out_on_dev_full_is_one_line(manuals: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--out", "/dev/full", str(manuals[0])]) != 0
    assert len(_errors(capsys.readouterr().err)) == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_stdout_on_dev_full_is_one_line(manuals: list[Path]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "chop_integrations._cli", "chunk", *map(str, manuals)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
            check=False,
        )
    assert done.returncode != 0
    (line,) = _errors(done.stderr)
    assert "No space left on device" in line
    assert "Exception ignored" not in done.stderr, done.stderr


DRIVER = """
import pathlib, sys
from chop_integrations import _cli as cli
from chop_integrations._llm import config
from chop_integrations.testing import SimulatedLLM

started = pathlib.Path(sys.argv[1])

class Slow(SimulatedLLM):
    async def acomplete(self, prompt):
        if self.calls >= 3:
            started.touch()
        return await super().acomplete(prompt)

config.build_llm = lambda **_: Slow(latency_ms=150)
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["INT", "TERM", "KILL"])
def test_a_signal_mid_run_keeps_the_earlier_output(tmp_path: Path, signum: int) -> None:
    docs = []
    for n in range(12):
        doc = tmp_path / f"doc{n:02d}.txt"
        doc.write_text("\n\n".join(f"# Part {i}\nStep {i} of unit {n} turns the valve." for i in range(8)))
        docs.append(str(doc))
    out = tmp_path / "out" / "chunks.jsonl"
    out.parent.mkdir()
    out.write_bytes(EARLIER)
    started = tmp_path / "started"
    argv = ["chunk", *LLM, "--no-cache", "--max-concurrency", "1", "--max-tokens", "30", "--out", str(out), *docs]
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(started), *argv],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before the signal"
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode != 0
    assert "Traceback" not in err, err
    assert out.read_bytes() == EARLIER  # nothing under the final name but the earlier output
    left = sorted(p.name for p in out.parent.iterdir())
    if signum == signal.SIGKILL:  # no cleanup is possible: at most a hidden temporary file beside it
        assert all(
            name == "chunks.jsonl" or (name.startswith(".chunks.jsonl.") and name.endswith(".tmp")) for name in left
        )
    else:
        assert left == ["chunks.jsonl"]


def test_out_through_a_symlink_replaces_the_file_it_points_to_and_keeps_the_link(
    tmp_path: Path, manuals: list[Path]
) -> None:
    real = tmp_path / "store" / "chunks.jsonl"
    real.parent.mkdir()
    real.write_bytes(EARLIER)
    real.chmod(0o640)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(real)
    assert cli.main(["chunk", "--out", str(link), *map(str, manuals)]) == 0
    assert link.is_symlink() and real.read_bytes() != EARLIER and link.read_bytes() == real.read_bytes()
    assert real.stat().st_mode & 0o777 == 0o640  # the earlier file's permissions are kept


def test_a_reader_that_goes_away_still_ends_quietly(manuals: list[Path]) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "chop_integrations._cli", "chunk", *map(str, manuals)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # like `| head -0`: nothing is read
    err = process.stderr.read().decode()
    assert process.wait(120) == 141 and "error" not in err and "Traceback" not in err, err
