"""Output files written whole or not at all, and --out checked before any work (in-process, as root too)."""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from chop_integrations._files import (
    AtomicOutput,
    OutputError,
    RaiseOnSignals,
    check_output,
    same_file,
    write_atomically,
)
from tests.support.permissions import read_only_folder


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# -- same_file ---------------------------------------------------------------------------------------------------


def test_same_file_under_any_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a", encoding="utf-8")
    b.write_text("b", encoding="utf-8")
    (tmp_path / "link").symlink_to(a)
    os.link(a, tmp_path / "hard")
    monkeypatch.chdir(tmp_path)
    assert same_file(a, Path("a.txt")) and same_file(a, tmp_path / "link") and same_file(a, tmp_path / "hard")
    assert not same_file(a, b) and not same_file(a, tmp_path / "missing") and not same_file(tmp_path / "x", a)


# -- check_output --------------------------------------------------------------------------------------------------


def test_stdout_needs_no_check() -> None:
    err = io.StringIO()
    assert check_output(None, [], err=err) is None and check_output("-", ["-"], err=err) is None
    assert err.getvalue() == ""


def test_an_input_is_never_the_output(tmp_path: Path) -> None:
    given = tmp_path / "in.txt"
    given.write_text("x", encoding="utf-8")
    with pytest.raises(OutputError) as caught:
        check_output(str(given), [str(tmp_path / "other.txt"), str(given)], err=io.StringIO())
    assert str(caught.value) == f"--out {given} is one of the input files ({given}); refusing to overwrite it"


@pytest.mark.parametrize(("option", "example"), [("--out", "chunks.jsonl"), ("--figures", "figures.json")])
def test_a_directory_is_refused_with_an_example(tmp_path: Path, option: str, example: str) -> None:
    with pytest.raises(OutputError) as caught:
        check_output(str(tmp_path), [], err=io.StringIO(), option=option)
    assert str(caught.value) == f"{option} {tmp_path} is a directory; name a file, e.g. {tmp_path / example}"


def test_a_special_file_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputError) as caught:
        check_output(str(fifo), [], err=io.StringIO())
    assert str(caught.value) == f"--out {fifo} is not a regular file"


def test_a_path_below_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(OutputError) as caught:
        check_output(str(tmp_path / "file" / "deeper" / "out.jsonl"), [], err=io.StringIO())
    target, blocker = tmp_path / "file/deeper/out.jsonl", tmp_path / "file"
    assert str(caught.value) == f"--out {target}: {blocker} is a file, not a folder"


def test_a_read_only_place_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only_folder(folder, monkeypatch), pytest.raises(OutputError) as caught:
        check_output(str(folder / "new" / "out.jsonl"), [], err=io.StringIO())
    assert str(caught.value) == f"--out {folder / 'new/out.jsonl'}: cannot write to {folder} (permission denied)"
    assert not (folder / "new").exists()


def test_an_existing_file_that_cannot_be_written_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier", encoding="utf-8")
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, *a, **k: Path(path) != target and real(path, mode))
    with pytest.raises(OutputError, match=rf"cannot write to {target} \(permission denied\)$"):
        check_output(str(target), [], err=io.StringIO())


def test_missing_folders_are_created_and_said_once(tmp_path: Path) -> None:
    err = io.StringIO()
    target = tmp_path / "a" / "b" / "out.jsonl"
    assert check_output(str(target), [], err=err) == target and target.parent.is_dir()
    assert err.getvalue() == f"chop-integrations: note: created the folder {target.parent} for --out\n"
    assert check_output(str(target), [], err=err, option="--figures") == target
    assert err.getvalue().count("note") == 1


def test_a_folder_that_cannot_be_made_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(OutputError) as caught:
        check_output(str(tmp_path / "new" / "out.jsonl"), [], err=io.StringIO())
    target, folder = tmp_path / "new/out.jsonl", tmp_path / "new"
    assert str(caught.value) == f"--out {target}: cannot create {folder} (No space left on device)"


@pytest.mark.parametrize("bad", ["a\0b", "x" * 5000, "\0" * 80, "\0" * 81])
def test_an_unusable_path_is_one_short_line(bad: str) -> None:
    with pytest.raises(OutputError) as caught:
        check_output(bad, [], err=io.StringIO(), option="--cache")
    shown = bad if len(bad) <= 80 else bad[:77] + "..."
    assert str(caught.value).startswith(f"--cache {shown}: not a usable path (")
    assert len(str(caught.value)) < 200


# -- AtomicOutput and write_atomically -----------------------------------------------------------------------------


def test_the_output_replaces_the_target_whole_at_the_end(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier", encoding="utf-8")
    target.chmod(0o640)
    with AtomicOutput(target) as stream:
        stream.write("new\n")
        assert target.read_text(encoding="utf-8") == "earlier"  # not yet
        assert len(_leftovers(tmp_path)) == 1 and _leftovers(tmp_path)[0].startswith(".out.jsonl.")
    assert target.read_text(encoding="utf-8") == "new\n" and _leftovers(tmp_path) == []
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the earlier file's permissions


@pytest.mark.parametrize(("umask", "mode"), [(0o027, 0o640), (0o022, 0o644), (0, 0o666)])
def test_a_new_file_gets_the_umask_permissions(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        write_atomically(tmp_path / "new.json", "{}", option="--figures")
        assert os.umask(umask) == umask  # the umask is as it was
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == mode


def test_an_error_or_interrupt_keeps_the_earlier_output(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier", encoding="utf-8")
    for error in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(error)), AtomicOutput(target) as stream:
            stream.write("half")
            raise error
    assert target.read_text(encoding="utf-8") == "earlier" and _leftovers(tmp_path) == []


def test_a_write_that_fails_is_one_line_and_replaces_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier", encoding="utf-8")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError) as caught, AtomicOutput(target, option="--figures") as stream:
        stream.write("new")
    assert str(caught.value) == f"--figures {target}: cannot be written (No space left on device); nothing was replaced"
    assert target.read_text(encoding="utf-8") == "earlier" and _leftovers(tmp_path) == []


def test_a_temporary_file_that_cannot_be_made_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only_folder(folder, monkeypatch), pytest.raises(OutputError) as caught:
        AtomicOutput(folder / "out.jsonl")
    assert str(caught.value) == f"--out {folder / 'out.jsonl'}: cannot be written (Permission denied)"


def test_a_link_is_followed_or_replaced(tmp_path: Path) -> None:
    real, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    real.write_text("earlier", encoding="utf-8")
    link.symlink_to(real)
    with AtomicOutput(link) as stream:
        stream.write("through the link")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "through the link"
    write_atomically(link, "the link replaced", option="--figures")
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "the link replaced"
    assert real.read_text(encoding="utf-8") == "through the link"


def test_stdout_is_written_as_it_goes(capsys: pytest.CaptureFixture[str]) -> None:
    with AtomicOutput(None) as stream:
        stream.write("line\n")
    assert capsys.readouterr().out == "line\n"


# -- RaiseOnSignals ------------------------------------------------------------------------------------------------


class Stop(BaseException):
    pass


def test_a_signal_raises_inside_the_block_and_the_handlers_come_back() -> None:
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL
    with pytest.raises(Stop), RaiseOnSignals([signal.SIGUSR1], Stop):
        assert signal.getsignal(signal.SIGUSR1) != signal.SIG_DFL
        os.kill(os.getpid(), signal.SIGUSR1)
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own (a runner may set another)
    try:
        with RaiseOnSignals([signal.SIGINT], Stop):
            assert signal.getsignal(signal.SIGINT) != signal.default_int_handler
        assert signal.getsignal(signal.SIGINT) == signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_handler_someone_chose_is_left_alone() -> None:
    seen: list[int] = []
    previous = signal.signal(signal.SIGUSR2, lambda signum, frame: seen.append(signum))
    try:
        with RaiseOnSignals([signal.SIGUSR2], Stop):
            os.kill(os.getpid(), signal.SIGUSR2)
        assert seen == [signal.SIGUSR2]
    finally:
        signal.signal(signal.SIGUSR2, previous)


def test_a_termination_while_writing_removes_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt), AtomicOutput(target) as stream:
        stream.write("half")
        os.kill(os.getpid(), signal.SIGTERM)
    assert target.read_text(encoding="utf-8") == "earlier" and _leftovers(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_write_atomically_names_its_option_when_it_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError) as caught:
        write_atomically(tmp_path / "figures.json", "{}", option="--figures")
    assert str(caught.value).startswith(f"--figures {tmp_path / 'figures.json'}: cannot be written")


class FullStdout(io.StringIO):
    """A stdout whose flush fails (a full disk), on the descriptor of a file of the test's own."""

    def __init__(self, descriptor: int) -> None:
        super().__init__()
        self.descriptor = descriptor

    def flush(self) -> None:
        raise OSError(28, "No space left on device")

    def fileno(self) -> int:
        return self.descriptor


def test_stdout_that_cannot_be_written_is_one_line_and_silenced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "stdout.txt"
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT)
    try:
        monkeypatch.setattr(sys, "stdout", FullStdout(descriptor))
        with pytest.raises(OutputError) as caught, AtomicOutput(None) as stream:
            stream.write("x")
        os.write(descriptor, b"after")  # the descriptor now leads to /dev/null
    finally:
        os.close(descriptor)
    assert str(caught.value) == "stdout: cannot be written (No space left on device); nothing was replaced"
    assert target.read_bytes() == b""


class FailingStream:
    """Stands in for the temporary file's stream: every flush and close fails (a disk that went away)."""

    def __init__(self, real: io.TextIOBase) -> None:
        self.real = real

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        raise OSError(5, "Input/output error")

    def close(self) -> None:
        self.real.close()
        raise OSError(5, "Input/output error")


def test_a_stream_that_fails_to_close_still_leaves_no_temporary_file(tmp_path: Path) -> None:
    output = AtomicOutput(tmp_path / "out.jsonl")
    output.stream = FailingStream(output.stream)  # type: ignore[assignment]
    with pytest.raises(OutputError, match="Input/output error"), output as stream:
        stream.write("x")
    assert _leftovers(tmp_path) == [] and not (tmp_path / "out.jsonl").exists()


def test_a_temporary_file_already_gone_is_no_second_error(tmp_path: Path) -> None:
    output = AtomicOutput(tmp_path / "out.jsonl")
    with pytest.raises(RuntimeError, match="boom"), output:
        assert output.temp is not None
        output.temp.unlink()
        raise RuntimeError("boom")


_SILENCED = """
import os, sys
from chop_integrations._files import silence_stdout
print("before", flush=True)
silence_stdout()
print("after")
os.write(1, b"raw")
"""


def test_silenced_stdout_goes_nowhere() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", _SILENCED], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "before\n", "")
