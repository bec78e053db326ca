"""Writing an output file safely: checked before any work, written whole or not at all.

:func:`check_output` checks a target before the work that fills it: never an input file (under any name:
a symlink or a hard link is the same file), a directory, a path below a file or an unwritable place (each
an :class:`OutputError` with one line); missing folders are created, with a note. :class:`AtomicOutput`
writes to a hidden temporary file beside the target, which replaces it only when the writing ends
normally: an interrupt (SIGINT, SIGTERM, SIGHUP), a kill or an error (a full disk) leaves an earlier
output exactly as it was. ``chunk --out`` uses both, and so do the bench commands' ``--json`` and ``--out``
(:func:`write_atomically`, which never writes through a symlink).
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

from ._errors import ChopError

__all__ = [
    "AtomicOutput",
    "OutputError",
    "RaiseOnSignals",
    "check_output",
    "same_file",
    "silence_stdout",
    "write_atomically",
]


class OutputError(ChopError):
    """``--out`` (or ``--cache``) names a place that cannot or must not be written to; the message says why."""


def same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: the same path once resolved, a symlink or a hard link."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_output(path: str | None, inputs: Sequence[str], *, err: IO[str], option: str = "--out") -> Path | None:
    """Check ``--out`` before any work: None for stdout, else the file to write.

    Missing folders are created, and a note on ``err`` says so. ``option`` names the flag in the messages.

    Raises:
        OutputError: When ``path`` is an input file, a directory, below a file, or not writable.
    """
    if path is None or path == "-":
        return None
    try:
        return _checked(path, inputs, err, option)
    except OutputError:
        raise
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte: the path itself cannot be used
        shown = path if len(path) <= 80 else path[:77] + "..."
        raise OutputError(f"{option} {shown}: not a usable path ({getattr(exc, 'strerror', None) or exc})") from exc


def _checked(path: str, inputs: Sequence[str], err: IO[str], option: str) -> Path:
    """The checks of :func:`check_output` (an unusable path raises ``OSError`` or ``ValueError`` here)."""
    target = Path(path).expanduser()
    resolved = target.resolve()
    for given in inputs:
        if same_file(Path(given).expanduser(), target):
            raise OutputError(f"{option} {path} is one of the input files ({given}); refusing to overwrite it")
    if target.is_dir():
        example = "chunks.jsonl" if option == "--out" else "figures.json"
        raise OutputError(f"{option} {path} is a directory; name a file, e.g. {target / example}")
    if target.exists() and not target.is_file():
        raise OutputError(f"{option} {path} is not a regular file")
    existing = next((p for p in [resolved, *resolved.parents] if p.exists()), Path("/"))
    if existing != resolved and not existing.is_dir():
        raise OutputError(f"{option} {path}: {existing} is a file, not a folder")
    writable = target if target.exists() else existing
    if not os.access(writable, os.W_OK):
        raise OutputError(f"{option} {path}: cannot write to {writable} (permission denied)")
    if not resolved.parent.exists():
        try:
            resolved.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"{option} {path}: cannot create {resolved.parent} ({exc.strerror or exc})") from exc
        print(f"chop-integrations: note: created the folder {target.parent} for {option}", file=err)
    return target


#: Signals that end the process by default and unwind the output instead while it is written (SIGHUP: a
#: closed terminal or a dropped SSH session).
_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while the output is written: unwinds like Ctrl-C, so the temporary file is removed."""


class RaiseOnSignals:
    """While the ``with`` block runs, each of ``signals`` raises ``exception`` at once; the handlers are restored after.

    Only in the main thread (the only one that may set handlers) and only for a signal that still has
    Python's default handler (``default_int_handler`` for SIGINT, ``SIG_DFL`` for the others): a
    handler someone chose, or a signal ignored (a run started in the background), is left as it is.

    Args:
        signals: The signal numbers.
        exception: What each raises (a ``KeyboardInterrupt`` unwinds through ``except Exception``).
    """

    def __init__(self, signals: Sequence[int], exception: type[BaseException]) -> None:
        self.signals = signals
        self.exception = exception
        self._previous: dict[int, object] = {}

    def _raise(self, signum: int, frame: FrameType | None) -> None:
        raise self.exception

    def __enter__(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in self.signals:
            default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            if signal.getsignal(signum) == default:
                self._previous[signum] = signal.signal(signum, self._raise)

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._previous.clear()


class AtomicOutput:
    """The stream ``chunk`` writes to: stdout, or a temporary file that replaces ``target`` at the end.

    The temporary file (``.<name>.<random>.tmp``, in the target's folder so the rename is atomic) is
    flushed, synced and renamed over ``target`` when the ``with`` block ends normally; on any error or
    interrupt it is removed and an earlier ``target`` stays as it was. While the block runs, SIGTERM and SIGHUP
    unwind like Ctrl-C (Python's default would end the process without removing the file).

    Args:
        target: The ``--out`` file, or None for stdout (written as it goes). A symlink is followed:
            the file it points to is replaced, the link stays.
        follow_links: False replaces a symlink at ``target`` itself with the new file: the file it points
            to is never written (the bench commands' outputs).
        option: The flag named in the messages.

    Raises:
        OutputError: When the temporary file cannot be made (here) or the output cannot be
            written (when the block ends); the message is one line naming the file.
    """

    def __init__(self, target: Path | None, *, follow_links: bool = True, option: str = "--out") -> None:
        self.target = target
        self.option = option
        self.temp: Path | None = None
        self._signals = RaiseOnSignals(_ENDING_SIGNALS, _Terminated)
        if target is None:
            self.stream: IO[str] = sys.stdout
            return
        self.final = target.resolve() if follow_links and target.is_symlink() else target
        try:
            handle, name = tempfile.mkstemp(dir=self.final.parent, prefix=f".{self.final.name}.", suffix=".tmp")
        except OSError as exc:
            raise OutputError(f"{option} {target}: cannot be written ({exc.strerror or exc})") from exc
        self.temp = Path(name)
        self.stream = os.fdopen(handle, "w", encoding="utf-8", newline="\n")

    def __enter__(self) -> IO[str]:
        self._signals.__enter__()
        return self.stream

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._signals.__exit__()
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
            where = "stdout" if self.target is None else f"{self.option} {self.target}"
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


def write_atomically(target: Path, text: str, *, option: str) -> None:
    """Write ``text`` to ``target`` whole or not at all, replacing a symlink there rather than writing through it.

    Raises:
        OutputError: When it cannot be written (one line naming ``option`` and the file); nothing is replaced.
    """
    with AtomicOutput(target, follow_links=False, option=option) as stream:
        stream.write(text)
