"""The ``demo`` command: CHOP on three near-identical sample manuals, offline (see :mod:`chop_integrations._demo`)."""

from __future__ import annotations

import argparse
import sys

from .common import _positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-tokens`` and run :func:`run`."""
    parser.add_argument("--max-tokens", type=_positive_int, metavar="N", help="maximum tokens per chunk")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo on stdout; the exit code, 0."""
    from .._demo import run_demo

    return run_demo(out=sys.stdout, max_tokens=args.max_tokens)
