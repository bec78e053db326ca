"""Count where segmentation's heading units and the outline's headings disagree, on a ``bench-structure`` set.

Segmentation flags a unit as opening with a heading (:attr:`~chop_integrations.Unit.heading`); the outline
(:class:`~chop_integrations._text.headings.Headings`) lists a document's headings, which cuts, CHOP's signature and
the section labels read. One line per set and two counts:

* ``flag-only``: heading units that open with none of the outline's headings (and, of those, how many open with
  none of the benchmark's gold headings either, :func:`~chop_bench.eval.headings.gold_headings`);
* ``unopened``: outline headings that open no heading unit (inside a unit, or opening one not flagged).

Both are 0 when segmentation reads its headings from the outline. Units at LumberChunker's default size.

Run: ``PYTHONPATH=$PWD python scripts/heading_disagreements.py [--sets general,general-heldout,manuals]
[--manuals DIR] [--examples N]``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from chop_bench.eval.headings import gold_headings
from chop_bench.speed import load_speed_set
from chop_integrations._defaults import DEFAULT_MAX_TOKENS
from chop_integrations._text.headings import Headings
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter

_TEXT = re.compile(r"\S")


def _first(text: str, offset: int) -> int:
    """Offset of the first non-space character at or after ``offset``."""
    found = _TEXT.search(text, offset)
    return found.start() if found else len(text)


def _line(text: str, start: int) -> str:
    end = text.find("\n", start)
    return repr(text[start : end if end >= 0 else len(text)][:70])


def count(text: str, examples: list[str], limit: int) -> tuple[int, int, int, int]:
    """``(heading units, flag-only, flag-only and not gold, unopened)`` of one document."""
    units = split_units(text, max_tokens=DEFAULT_MAX_TOKENS, token_counter=default_counter())
    outline = {_first(text, offset) for offset in Headings(text).offsets}
    gold = {_first(text, h.start) for h in gold_headings(text)}
    flagged = [_first(text, u.start) for u in units if u.heading]
    flag_only = [start for start in flagged if start not in outline]
    neither = [start for start in flag_only if start not in gold]
    unopened = sorted(outline - set(flagged))
    for start in neither[: max(limit - len(examples), 0)]:
        examples.append("flag-only: " + _line(text, start))
    for start in unopened[: max(limit - len(examples), 0)]:
        examples.append("unopened:  " + _line(text, start))
    return len(flagged), len(flag_only), len(neither), len(unopened)


def main(argv: list[str] | None = None) -> int:
    """Print one line of counts per set."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sets", default="general,general-heldout")
    parser.add_argument("--examples", type=int, default=0, help="print this many lines that disagree, per set")
    parser.add_argument("--manuals", type=Path, default=None, help="the manuals folder (for --sets manuals)")
    args = parser.parse_args(argv)
    for name in args.sets.split(","):
        totals = [0, 0, 0, 0]
        examples: list[str] = []
        for text in load_speed_set(name, corpus=args.manuals):
            totals = [a + b for a, b in zip(totals, count(text, examples, args.examples), strict=True)]
        units, flag_only, neither, unopened = totals
        print(f"{name}: heading units {units}, flag-only {flag_only} (not gold either {neither}), unopened {unopened}")
        for line in examples:
            print("   ", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
