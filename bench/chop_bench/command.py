"""What the bench commands share.

The comma lists of sizes they read (finite numbers in a range, checked before any work); their output files
(checked before any work, written whole and never through a symlink); and the growth exponent they report.
Each command is a record of :mod:`chop_bench.commands`, run by ``chop-integrations`` and ``chop-bench`` alike.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from chop_integrations._errors import ConfigurationError
from chop_integrations._files import OutputError, check_output, write_atomically


def log_slope(a: float, b: float, n1: int, n2: int) -> float | None:
    """The log-log slope from ``(n1, a)`` to ``(n2, b)``: 1.0 is linear growth; ``None`` where it is undefined."""
    if a <= 0 or b <= 0 or n1 <= 0 or n2 <= n1:
        return None
    return round(math.log(b / a) / math.log(n2 / n1), 2)


def comma_numbers(value: str, option: str) -> tuple[float, ...]:
    """The numbers of a comma list such as ``1,4,16`` (empty items skipped); each caller checks their range.

    Raises:
        ConfigurationError: When an item is not a finite number (``nan``, ``inf`` and ``1e400`` are not;
            ``option`` names the flag in the message).
    """
    try:
        numbers = tuple(float(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise ConfigurationError(f"{option} must be a comma list of numbers, got {_short(value)}") from None
    if not all(math.isfinite(n) for n in numbers):
        raise ConfigurationError(f"{option} must be a comma list of finite numbers, got {_short(value)}")
    return numbers


def bounded_numbers(value: str, option: str, low: float, high: float) -> tuple[float, ...]:
    """The numbers of a comma list, each from ``low`` to ``high`` (see :func:`comma_numbers`).

    Raises:
        ConfigurationError: When an item is no finite number in that range, or the list is empty.
    """
    numbers = comma_numbers(value, option)
    if not numbers or not all(low <= n <= high for n in numbers):
        raise ConfigurationError(
            f"{option} must be a comma list of numbers >= {low:g} and <= {high:g}, got {_short(value)}"
        )
    return numbers


def bounded_number(value: float, option: str, low: float, high: float) -> float:
    """``value`` when it is a number from ``low`` to ``high`` (NaN and infinities are not).

    Raises:
        ConfigurationError: Otherwise, naming ``option`` and the bounds.
    """
    if not low <= value <= high:
        raise ConfigurationError(f"{option} must be a number >= {low:g} and <= {high:g}, got {value}")
    return value


def output_file(path: str | None, option: str) -> Path | None:
    """Check an output file of a bench command before its work (see :func:`~chop_integrations._files.check_output`).

    Raises:
        ConfigurationError: When ``path`` is a directory, below a file or not writable (one line).
    """
    try:
        return check_output(path, (), err=sys.stderr, option=option)
    except OutputError as exc:
        raise ConfigurationError(str(exc)) from None


def output_folder(path: str | None, option: str) -> Path | None:
    """Check (and create) an output folder of a bench command before its work.

    Raises:
        ConfigurationError: When ``path`` is a file, below a file, or cannot be created or written.
    """
    if path is None:
        return None
    folder = Path(path).expanduser()
    try:
        if folder.exists() and not folder.is_dir():
            raise ConfigurationError(f"{option} {path[:80]} is a file, not a folder")
        folder.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte, a file above it
        if isinstance(exc, ConfigurationError):
            raise
        raise ConfigurationError(
            f"{option} {path[:80]}: cannot create it ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigurationError(f"{option} {path}: cannot write to it (permission denied)")
    return folder


def write_output(target: Path, text: str, option: str) -> None:
    """Write a bench command's output whole or not at all, never through a symlink.

    Raises:
        OutputError: When it cannot be written (one line; nothing is replaced).
    """
    write_atomically(target, text, option=option)


def read_corpus(files: Sequence[Path], option: str) -> list[str]:
    """The texts of ``files``, read as UTF-8.

    Raises:
        ConfigurationError: When one is not UTF-8 or cannot be read (one line naming it and ``option``).
    """
    texts = []
    for file in files:
        try:
            texts.append(file.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise ConfigurationError(
                f"{option}: {file} is not UTF-8 text ({exc.reason} at byte {exc.start}); convert it or leave it out"
            ) from None
        except OSError as exc:
            raise ConfigurationError(f"{option}: cannot read {file} ({exc.strerror or exc})") from None
    return texts


def _short(value: str) -> str:
    """``repr(value)``, cut to 80 characters for a message."""
    return repr(value if len(value) <= 80 else value[:77] + "...")
