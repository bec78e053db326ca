"""What the bench commands share.

One shape: a sub-command of ``chop-integrations``, or ``python -m`` on its own; the comma lists of sizes
they read; and the growth exponent they report.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigurationError


@dataclass(frozen=True)
class BenchCommand:
    """A bench command, callable both ways with the same options.

    Attributes:
        name: The sub-command (``bench-stress``).
        help: Its line in ``chop-integrations --help``.
        doc: The module's docstring: its first paragraph describes the sub-command, the whole
            text the ``python -m`` command.
        module: The module ``python -m`` runs.
        add_arguments: Adds the command's options to a parser.
        run: Runs the command from parsed arguments and returns the exit code.
        errors: The exceptions that end a ``python -m`` run as a usage error (exit code 2).
    """

    name: str
    help: str
    doc: str | None
    module: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    errors: tuple[type[Exception], ...] = (ConfigurationError,)

    def add_parser(self, subparsers: Any) -> argparse.ArgumentParser:
        """Register the command on the top-level CLI's subparsers (the parser's ``func`` is :attr:`run`)."""
        description = self.doc.split("\n\n")[0] if self.doc else None
        parser = subparsers.add_parser(self.name, help=self.help, description=description)
        self.add_arguments(parser)
        parser.set_defaults(func=self.run)
        return parser

    def main(self, argv: Sequence[str] | None = None) -> int:
        """``python -m <module>``: parse ``argv`` (default: the process's), run, return the exit code."""
        parser = argparse.ArgumentParser(
            prog=f"python -m {self.module}", description=self.doc, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        self.add_arguments(parser)
        args = parser.parse_args(argv)
        try:
            return self.run(args)
        except self.errors as exc:
            print(f"{self.name}: error: {exc}", file=sys.stderr)
            return 2


def log_slope(a: float, b: float, n1: int, n2: int) -> float | None:
    """The log-log slope from ``(n1, a)`` to ``(n2, b)``: 1.0 is linear growth; ``None`` where it is undefined."""
    if a <= 0 or b <= 0 or n1 <= 0 or n2 <= n1:
        return None
    return round(math.log(b / a) / math.log(n2 / n1), 2)


def comma_numbers(value: str, option: str) -> tuple[float, ...]:
    """The numbers of a comma list such as ``1,4,16`` (empty items skipped); each caller checks their range.

    Raises:
        ConfigurationError: When an item is not a number (``option`` names the flag in the message).
    """
    try:
        return tuple(float(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise ConfigurationError(f"{option} must be a comma list of numbers, got {value!r}") from None
