"""Where ``chunk`` writes and what it calls each input: the ``--out`` checks and the ``doc`` names.

Checked before any work: ``--out`` never names an input file, a directory, a path
below a file or an unwritable place (each a one-line error, exit code 2); missing
folders are created, with a note on stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

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


class OutputError(Exception):
    """``--out`` names a place the chunks cannot (or must not) be written to; the message says why."""


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
        if Path(given).expanduser().resolve() == resolved:
            raise OutputError(f"--out {path} is one of the input files; refusing to overwrite it")
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


def open_output(target: Path | None) -> contextlib.AbstractContextManager[IO[str]]:
    """The stream to write to: stdout, or ``target`` opened for writing.

    Raises:
        OutputError: When ``target`` cannot be opened.
    """
    if target is None:
        return contextlib.nullcontext(sys.stdout)
    try:
        return target.open("w", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise OutputError(f"--out {target}: cannot be written ({exc.strerror or exc})") from exc
