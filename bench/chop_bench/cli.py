"""``chop-bench``: the benchmark's commands on their own (the same records ``chop-integrations`` runs)."""

from __future__ import annotations

from collections.abc import Sequence

from chop_integrations._cli import main as _main

from .commands import COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``chop-bench COMMAND ...`` and return its exit code (the console script ``chop-bench``)."""
    return _main(
        argv,
        prog="chop-bench",
        commands={command.name: command for command in COMMANDS},
        description="The benchmarks of chop-integrations: the same commands as chop-integrations bench, bench-speed...",
    )
