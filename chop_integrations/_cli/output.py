"""Where ``chunk`` writes and what it calls each input: the ``--out`` checks, the output file and the ``doc`` names.

Checked before any work: ``--out`` never names an input file (under any name: a symlink or a hard
link is the same file), a directory, a path below a file or an unwritable place, and ``--cache``
never names ``--out`` or an input (each a one-line error, exit code 2); missing folders are created,
with a note on stderr.

The output appears whole or not at all: the chunks go to a hidden temporary file beside ``--out``,
which replaces it only when the run ends normally. An interrupt (SIGINT, SIGTERM, SIGHUP), a kill or an
error (a full disk) leaves an earlier output exactly as it was, and a failed write is one line.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO

from .._errors import ChopError
from .._llm.sqlite_cache import DEFAULT_FILE_NAME

#: The program name in messages (the console script).
PROG = "chop-integrations"


def doc_names(paths: Sequence[Path]) -> list[str]:
    """The ``doc`` value of each input: its stem, unless another input shares it.

    Files that share a stem (``a/x.txt`` and ``b/x.txt``, ``x.txt`` and ``x.md``) are
    named by their path as given instead; a path given twice gets ``#2``, ``#3``...
    Every chunk record also carries ``path``, so the file is never ambiguous.
    """
    stems = [p.stem for p in paths]
    names = [p.stem if stems.count(p.stem) == 1 else str(p) for p in paths]
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return unique


class OutputError(ChopError):
    """``--out`` (or ``--cache``) names a place that cannot or must not be written to; the message says why."""


def _same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: the same path once resolved, a symlink or a hard link."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_output(path: str | None, inputs: Sequence[str], *, err: IO[str]) -> Path | None:
    """Check ``--out`` before any work: None for stdout, else the file to write.

    Missing folders are created, and a note on ``err`` says so.

    Raises:
        OutputError: When ``path`` is an input file, a directory, below a file, or not writable.
    """
    if path is None or path == "-":
        return None
    target = Path(path).expanduser()
    resolved = target.resolve()
    for given in inputs:
        if _same_file(Path(given).expanduser(), target):
            raise OutputError(f"--out {path} is one of the input files ({given}); refusing to overwrite it")
    if target.is_dir():
        raise OutputError(f"--out {path} is a directory; name a file, e.g. {target / 'chunks.jsonl'}")
    if target.exists() and not target.is_file():
        raise OutputError(f"--out {path} is not a regular file")
    existing = next((p for p in [resolved, *resolved.parents] if p.exists()), Path("/"))
    if existing != resolved and not existing.is_dir():
        raise OutputError(f"--out {path}: {existing} is a file, not a folder")
    writable = target if target.exists() else existing
    if not os.access(writable, os.W_OK):
        raise OutputError(f"--out {path}: cannot write to {writable} (permission denied)")
    if not resolved.parent.exists():
        try:
            resolved.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"--out {path}: cannot create {resolved.parent} ({exc.strerror or exc})") from exc
        print(f"{PROG}: note: created the folder {target.parent} for --out", file=err)
    return target


#: The files SQLite keeps beside a database, by suffix of its name.
_SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def check_cache(cache: str | None, out: str | None, inputs: Sequence[str]) -> None:
    """Check ``--cache`` before any work: neither it nor SQLite's files beside it may be ``--out`` or an input.

    Raises:
        OutputError: When the cache file (or its ``-wal``, ``-shm``, ``-journal``) is ``--out`` or an input,
            under any name.
    """
    if cache is None:
        return
    target = Path(cache).expanduser()
    if target.is_dir():
        target = target / DEFAULT_FILE_NAME
    # SQLite keeps (and deletes at close) the -wal and -shm files beside the cache, and a -journal in rollback mode.
    owned = [target, *(target.with_name(target.name + side) for side in _SQLITE_SIDE_FILES)]
    if out is not None and out != "-" and any(_same_file(Path(out).expanduser(), file) for file in owned):
        raise OutputError(
            f"--cache {cache} is the --out file or SQLite's file beside it; the answers and the chunks need two files"
        )
    for given in inputs:
        if any(_same_file(Path(given).expanduser(), file) for file in owned):
            raise OutputError(
                f"--cache {cache} is one of the input files ({given}) or SQLite's file beside it; "
                "refusing to overwrite it"
            )


#: Signals that end the process by default and unwind the output instead while it is written (SIGHUP: a
#: closed terminal or a dropped SSH session).
_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while the output is written: unwinds like Ctrl-C, so the temporary file is removed."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


class AtomicOutput:
    """The stream ``chunk`` writes to: stdout, or a temporary file that replaces ``target`` at the end.

    The temporary file (``.<name>.<random>.tmp``, in the target's folder so the rename is atomic) is
    flushed, synced and renamed over ``target`` when the ``with`` block ends normally; on any error or
    interrupt it is removed and an earlier ``target`` stays as it was. While the block runs, SIGTERM and SIGHUP
    unwind like Ctrl-C (Python's default would end the process without removing the file).

    Args:
        target: The ``--out`` file, or None for stdout (written as it goes). A symlink is followed:
            the file it points to is replaced, the link stays.

    Raises:
        OutputError: When the temporary file cannot be made (here) or the output cannot be
            written (when the block ends); the message is one line naming the file.
    """

    def __init__(self, target: Path | None) -> None:
        self.target = target
        self.temp: Path | None = None
        self._old_handlers: dict[int, object] = {}
        if target is None:
            self.stream: IO[str] = sys.stdout
            return
        self.final = target.resolve() if target.is_symlink() else target
        try:
            handle, name = tempfile.mkstemp(dir=self.final.parent, prefix=f".{self.final.name}.", suffix=".tmp")
        except OSError as exc:
            raise OutputError(f"--out {target}: cannot be written ({exc.strerror or exc})") from exc
        self.temp = Path(name)
        self.stream = os.fdopen(handle, "w", encoding="utf-8", newline="\n")

    def __enter__(self) -> IO[str]:
        if threading.current_thread() is threading.main_thread():
            for signum in _ENDING_SIGNALS:
                if signal.getsignal(signum) == signal.SIG_DFL:
                    self._old_handlers[signum] = signal.signal(signum, _on_sigterm)
        return self.stream

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        for signum, handler in self._old_handlers.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._old_handlers.clear()
        try:
            if exc is None:
                self._finish()
        except BrokenPipeError:
            raise  # the reader of stdout went away: the caller stops quietly
        except OSError as error:
            exc = error
        finally:
            self._discard()
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            where = "stdout" if self.target is None else f"--out {self.target}"
            if self.target is None:
                silence_stdout()
            raise OutputError(f"{where}: cannot be written ({exc.strerror or exc}); nothing was replaced") from exc

    def _discard(self) -> None:
        """Remove the temporary file unless it replaced the target."""
        if self.temp is None:
            return
        with contextlib.suppress(OSError):  # closing flushes, and a full disk fails again
            self.stream.close()
        self.temp.unlink(missing_ok=True)

    def _finish(self) -> None:
        """Flush, sync and rename the temporary file over the target (stdout: flush)."""
        self.stream.flush()
        if self.temp is None:
            return
        os.fsync(self.stream.fileno())
        self.stream.close()
        os.chmod(self.temp, _mode_for(self.final))
        os.replace(self.temp, self.final)
        self.temp = None
        try:  # make the rename itself durable; not every file system lets a folder be synced
            folder = os.open(self.final.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(folder)
        except OSError:
            pass
        finally:
            os.close(folder)


def _mode_for(target: Path) -> int:
    """The permission bits the output gets: the earlier file's, else what a plain new file gets (umask)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail (and print) again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
