"""Count where segmentation's heading units and the outline's headings disagree, on a ``bench-structure`` set.

Segmentation flags a unit as opening with a heading (:attr:`~chop_integrations.Unit.heading`); the outline
(:class:`~chop_integrations._text.headings.Headings`) lists a document's headings, which cuts, CHOP's signature and
the section labels read. One line per set and two counts:

* ``flag-only``: heading units that open with none of the outline's headings (and, of those, how many open with
  none of the benchmark's gold headings either, :func:`~chop_integrations._bench.eval.headings.gold_headings`);
* ``unopened``: outline headings that open no heading unit (inside a unit, or opening one not flagged).

Both are 0 when segmentation reads its headings from the outline. Units at LumberChunker's default size.

Run: ``PYTHONPATH=$PWD python scripts/heading_disagreements.py [--sets general,general-heldout] [--examples N]``.
"""

from __future__ import annotations

import argparse
import re

from chop_integrations._bench.eval.headings import gold_headings
from chop_integrations._bench.speed import load_speed_set
from chop_integrations._defaults import DEFAULT_MAX_TOKENS
from chop_integrations._text.headings import Headings
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter

_TEXT = re.compile(r"\S")


def _first(text: str, offset: int) -> int:
    """Offset of the first non-space character at or after ``offset``."""
    found = _TEXT.search(text, offset)
    return found.start() if found else len(text)


def count(text: str, examples: list[str], limit: int) -> tuple[int, int, int, int]:
    """``(heading units, flag-only, flag-only and not gold, unopened)`` of one document."""
    units = split_units(text, max_tokens=DEFAULT_MAX_TOKENS, token_counter=default_counter())
    outline = {_first(text, offset) for offset in Headings(text).offsets}
    gold = {_first(text, h.start) for h in gold_headings(text)}
    flagged = [_first(text, u.start) for u in units if u.heading]
    flag_only = [start for start in flagged if start not in outline]
    neither = [start for start in flag_only if start not in gold]
    for start in neither[: max(limit - len(examples), 0)]:
        examples.append(repr(text[start : text.find("\n", start)][:70]))
    return len(flagged), len(flag_only), len(neither), len(outline - set(flagged))


def main(argv: list[str] | None = None) -> int:
    """Print one line of counts per set."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sets", default="general,general-heldout")
    parser.add_argument("--examples", type=int, default=0, help="print this many flag-only lines (not gold either)")
    args = parser.parse_args(argv)
    for name in args.sets.split(","):
        totals = [0, 0, 0, 0]
        examples: list[str] = []
        for text in load_speed_set(name):
            totals = [a + b for a, b in zip(totals, count(text, examples, args.examples), strict=True)]
        units, flag_only, neither, unopened = totals
        print(f"{name}: heading units {units}, flag-only {flag_only} (not gold either {neither}), unopened {unopened}")
        for line in examples:
            print("   ", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
