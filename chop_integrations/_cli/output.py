"""Where ``chunk`` writes and what it calls each input: the ``--out`` checks, the output file and the ``doc`` names.

Checked before any work: ``--out`` never names an input file (under any name: a symlink or a hard
link is the same file), a directory, a path below a file or an unwritable place, and ``--cache``
never names ``--out`` or an input (each a one-line error, exit code 2); missing folders are created,
with a note on stderr.

The output appears whole or not at all: the chunks go to a hidden temporary file beside ``--out``,
which replaces it only when the run ends normally. An interrupt (SIGINT, SIGTERM, SIGHUP), a kill or an
error (a full disk) leaves an earlier output exactly as it was, and a failed write is one line. Those
pieces live in :mod:`chop_integrations._files`, which the bench commands write through too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .._files import AtomicOutput, OutputError, RaiseOnSignals, check_output, same_file, silence_stdout
from .._llm.sqlite_cache import cache_file
from .._llm.sqlite_files import SIDE_SUFFIXES

__all__ = [
    "PROG",
    "AtomicOutput",
    "OutputError",
    "RaiseOnSignals",
    "check_cache",
    "check_output",
    "doc_names",
    "silence_stdout",
]

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


def check_cache(cache: str | None, out: str | None, inputs: Sequence[str]) -> None:
    """Check ``--cache`` before any work: neither it nor SQLite's files beside it may be ``--out`` or an input.

    Raises:
        OutputError: When the cache file (or its ``-wal``, ``-shm``, ``-journal``) is ``--out`` or an input,
            under any name.
    """
    if cache is None:
        return
    target = cache_file(cache)
    owned = [target, *(target.with_name(target.name + side) for side in SIDE_SUFFIXES)]
    if out is not None and out != "-" and any(same_file(Path(out).expanduser(), file) for file in owned):
        raise OutputError(
            f"--cache {cache} is the --out file or SQLite's file beside it; the answers and the chunks need two files"
        )
    for given in inputs:
        if any(same_file(Path(given).expanduser(), file) for file in owned):
            raise OutputError(
                f"--cache {cache} is one of the input files ({given}) or SQLite's file beside it; "
                "refusing to overwrite it"
            )
