"""Runs of one character cost work in proportion to their length (no pattern or loop turns quadratic).

Two checks that do not time anything against a clock:

* **work units**: the characters handed to the token counter, over the length of the document,
  stay a small constant at every size (a search that re-counts growing prefixes, or counts each
  one a dozen times, fails it);
* **growth**: the CPU time of a document sixteen times longer is compared with the shorter one's
  in the same process (a ratio, so the machine's speed cancels out): linear work gives about 16,
  quadratic work 256; the bound is 64. ``max_tokens`` is small so that both sizes take the same
  path (a run over ``max_tokens`` is cut), and the better of three tries is taken.
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._bench.speed_runs import RUNS
from chop_integrations._text.segmentation import paragraph_gaps, split_units
from chop_integrations._text.structure import sentence_spans
from chop_integrations._text.tokens import TiktokenCounter

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


def _chunk(engine: str, text: str, **options: Any) -> None:
    chunks = ENGINES[engine](**options).chunk(text)
    assert "".join(c.text for c in chunks) == text


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


def _cpu(engine: str, text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        _chunk(engine, text, max_tokens=50)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("kind", sorted(RUNS))
def test_sixteen_times_the_run_costs_about_sixteen_times_the_work(kind: str, engine: str) -> None:
    # 8,000 characters at the least: 4,000 spaces are a few dozen tokens, one unit with no cutting to do, so that
    # small run measured no cutting work at all and the ratio read as super-linear (84x for 16x, 22x from 8,000)
    small, large = RUNS[kind](8_000), RUNS[kind](128_000)
    _chunk(engine, small, max_tokens=50)  # warm up (encodings, caches)
    ratio = _cpu(engine, large) / max(_cpu(engine, small), 1e-4)
    assert ratio < 64, f"{kind}/{engine}: 16x the characters took {ratio:.0f}x the CPU time"


@pytest.mark.parametrize("char", [" ", "\t", "\u00a0", "\n", "!", ".", "\u2026"])
def test_the_scanners_agree_with_their_definition_around_runs(char: str) -> None:
    gap = re.compile(r"(?:[^\S\n]*\n){2,}\s*")
    for text in (f"a{char * 50}\n\n{char * 20}b", f"{char * 30}\n \n", f"x.{char * 40} y! z", char * 64):
        assert list(paragraph_gaps(text)) == [m.span() for m in gap.finditer(text)]
        spans = list(sentence_spans(text, 0, len(text)))
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
