"""Runs of one character cost work in proportion to their length (no pattern or loop turns quadratic).

Two checks that do not time anything against a clock:

* **work units**: the characters handed to the token counter, over the length of the document,
  stay a small constant at every size (a search that re-counts growing prefixes, or counts each
  one a dozen times, fails it);
* **growth**: the characters the hot scanning functions cover (the meter of
  ``tests/efficiency/test_linear_operation_counts.py``) for a document sixteen times longer, over the
  shorter one's: linear work gives about 16, quadratic work 256; the bound is 18. ``max_tokens`` is small so
  that both sizes take the same path (a run over ``max_tokens`` is cut). No clock is read: the count is the
  same on a busy machine as on an idle one.
"""

from __future__ import annotations

import itertools
import re

import pytest

from chop_bench.speed_runs import RUNS
from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._text.segmentation import paragraph_gaps, split_units
from chop_integrations._text.structure import sentence_spans
from chop_integrations._text.tokens import TiktokenCounter
from tests.efficiency.test_linear_operation_counts import work

ENGINES = {"lumber": LumberChunker, "chop": CHOPChunker}


class CountingCounter(TiktokenCounter):
    """cl100k, recording how many characters it was asked to count (its guided search included)."""

    def __init__(self) -> None:
        super().__init__("cl100k_base")
        self.chars = 0

    def __call__(self, text: str) -> int:
        self.chars += len(text)
        return super().__call__(text)

    def head_end(self, text: str, tokens: int) -> tuple[int, int] | None:
        self.chars += len(text)
        return super().head_end(text, tokens)


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_counted_characters_stay_in_proportion_to_the_run(kind: str) -> None:
    shares = []
    for n in (20_000, 160_000):
        counter = CountingCounter()
        text = RUNS[kind](n)
        units = split_units(text, max_tokens=50, token_counter=counter)
        assert "".join(u.text for u in units) == text
        shares.append(counter.chars / len(text))
    # each character is counted a few times (a unit, its prefix search, the check of the cut), not once per
    # halving of a binary search (about 14) and not in proportion to the run
    assert max(shares) < 10, shares
    assert shares[1] < 1.5 * shares[0] + 1, shares


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("kind", sorted(RUNS))
def test_sixteen_times_the_run_costs_about_sixteen_times_the_work(
    kind: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 8,000 characters at the least: 4,000 spaces are a few dozen tokens, one unit with no cutting to do, so that
    # small run measured no cutting work at all and the ratio read as super-linear
    small, large = RUNS[kind](8_000), RUNS[kind](128_000)
    covered = work(monkeypatch, engine, small)
    assert covered >= len(small)  # the meter saw the run (else any ratio would pass)
    ratio = work(monkeypatch, engine, large) / covered
    assert ratio < 18, f"{kind}/{engine}: 16x the characters took {ratio:.1f}x the scanning work"


@pytest.mark.parametrize("char", [" ", "\t", "\u00a0", "\n", "!", ".", "\u2026"])
def test_the_scanners_agree_with_their_definition_around_runs(char: str) -> None:
    gap = re.compile(r"(?:[^\S\n]*\n){2,}\s*")
    for text in (f"a{char * 50}\n\n{char * 20}b", f"{char * 30}\n \n", f"x.{char * 40} y! z", char * 64):
        assert list(paragraph_gaps(text)) == [m.span() for m in gap.finditer(text)]
        spans = list(sentence_spans(text, 0, len(text)))
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
