"""Offline topic-shift choice for LumberChunker windows: structure first, then lexical depth.

For each gap between two units of a window the decider weighs:

* **structure**: a unit that opens with a heading after a blank line (a new section),
  a heading inside a block (a sub-section), a scene break (``* * *``, ``---``) or a form
  feed. A heading unit that holds nothing but its heading line stays with what follows
  (no cut right after a title).
* **lexical cohesion** (where a stretch has no structural cue, as in a novel): a
  TextTiling-like depth score of the cosine similarity between the words of the units
  before and after the gap; gaps whose depth stands out are cuts, kept at least
  ``min_chunk_tokens`` apart.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .._deciders import Window
from .._text.headings import is_setext_underline
from .._text.structure import ends_with_break
from .._types import Unit
from ._stats import mean_and_pstdev
from ._text import cosine_of, squares, words

__all__ = ["OfflineTopicShift"]

_BLANK_TAIL = re.compile(r"\n[^\S\n]*\n\s*$")
_SCENE_BREAK = re.compile(r"^\s*(?:[*#~=_-]\s*){3,}$|\f", re.M)
#: The most units whose words a decider keeps (a few windows' worth; the oldest all go at once).
_KEPT_BAGS = 4096


def ends_with_page_break(text: str) -> bool:
    """True when ``text`` ends with a form feed (blank lines after it aside).

    Units and chunks keep a form feed at the end of the text before it (it is white space), so a page break is
    seen at the end of the previous text, not at the start of the next.
    """
    return text.rstrip(" \t\r\n").endswith("\f")


def _title_only(unit: Unit) -> bool:
    """A heading unit with no body (a setext underline is part of its title): its title belongs to the next unit."""
    if not unit.heading:
        return False  # most units: no lines to read
    lines = [line for line in unit.text.splitlines() if line.strip()]
    return len(lines) <= 1 or (len(lines) == 2 and is_setext_underline(lines[1]))


class OfflineTopicShift:
    """A :class:`~chop_integrations._deciders.TopicShiftDecider` that needs no LLM.

    Args:
        sub_headings: Also cut at heading lines inside a paragraph block (sub-sections).
        lexical: Use lexical depth scores where a stretch has no structural cue.
        min_chunk_tokens: Lexical cuts leave at least this many tokens on each side.
        block: How many units on each side of a gap the lexical similarity compares.
    """

    def __init__(
        self,
        *,
        sub_headings: bool = True,
        lexical: bool = True,
        min_chunk_tokens: int = 120,
        block: int = 3,
    ) -> None:
        self.sub_headings = sub_headings
        self.lexical = lexical
        self.min_chunk_tokens = min_chunk_tokens
        self.block = max(1, block)
        self._bags: dict[str, list[str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings, not the words kept from the windows read so far."""
        return {k: v for k, v in self.__dict__.items() if k != "_bags"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bags = {}

    def choose(self, window: Window) -> list[int]:
        """All window-relative indexes where a new chunk should begin (sorted, in ``[1, len)``)."""
        units = window.units
        if len(units) < 2:
            return []
        cuts = self.structural_cuts(units)
        if self.lexical:
            cuts = sorted(set(cuts) | set(self._lexical_cuts(units, cuts)))
        return cuts

    def structural_cuts(self, units: Sequence[Unit]) -> list[int]:
        """Indexes of units that open a section, a sub-section or a scene."""
        cuts = []
        for i in range(1, len(units)):
            previous, unit = units[i - 1], units[i]
            if _title_only(previous):
                continue
            if unit.heading and (self.sub_headings or _BLANK_TAIL.search(previous.text)):
                cuts.append(i)
            elif ends_with_break(previous.text) or ends_with_page_break(previous.text) or unit.text.startswith("\f"):
                cuts.append(i)
        return cuts

    def _lexical_cuts(self, units: Sequence[Unit], structural: list[int]) -> list[int]:
        """Depth-score cuts inside stretches of the window that have no structural cut."""
        bounds = [0, *structural, len(units)]
        out: list[int] = []
        for lo, hi in itertools.pairwise(bounds):
            if sum(u.tokens for u in units[lo:hi]) >= 2 * self.min_chunk_tokens:
                out.extend(self._tile(units, lo, hi))
        return out

    def _tile(self, units: Sequence[Unit], lo: int, hi: int) -> list[int]:
        """TextTiling over ``units[lo:hi]``: gaps whose depth score stands out."""
        bags = [self._words(unit.text) for unit in units[lo:hi]]  # this stretch only, not the window
        gaps = list(range(lo + 1, hi))
        sides: dict[tuple[int, int], tuple[Counter[str], int]] = {}  # a gap's left side is another's right side

        def side(a: int, b: int) -> tuple[Counter[str], int]:  # the bag of bags[a:b] (its counts summed), its norm²
            found = sides.get((a, b))
            if found is None:
                bag = Counter(itertools.chain.from_iterable(bags[a:b]))
                found = sides[a, b] = (bag, squares(bag))
            return found

        sims = []
        for g in range(1, hi - lo):
            left, right = side(max(0, g - self.block), g), side(g, min(hi - lo, g + self.block))
            sims.append(cosine_of(*left, *right) if left[0] and right[0] else 0.0)
        left_peaks = list(itertools.accumulate(sims, max))  # max(sims[: k + 1]), in one pass
        right_peaks = list(itertools.accumulate(reversed(sims), max))[::-1]  # max(sims[k:])
        depths = [(left - sim) + (right - sim) for sim, left, right in zip(sims, left_peaks, right_peaks, strict=True)]
        if len(depths) < 2:
            return []
        mean, spread = mean_and_pstdev(depths)  # (statistics.mean and pstdev, bit for bit, faster)
        cutoff = mean + 0.5 * spread
        chosen: list[int] = []
        ranked = sorted(range(len(gaps)), key=lambda k: -depths[k])
        for k in ranked:
            if depths[k] <= 0 or depths[k] < cutoff:
                break
            if self._far_enough(units, lo, hi, gaps[k], chosen):
                chosen.append(gaps[k])
        return sorted(chosen)

    def _words(self, text: str) -> list[str]:
        """:func:`words` of a unit's text, kept for the next windows (a unit is tiled again in each window it is in)."""
        found = self._bags.get(text)
        if found is None:
            if len(self._bags) >= _KEPT_BAGS:
                self._bags.clear()
            found = self._bags[text] = words(text)
        return found

    def _far_enough(self, units: Sequence[Unit], lo: int, hi: int, gap: int, chosen: list[int]) -> bool:
        edges = sorted([lo, hi, *chosen])
        left = max(e for e in edges if e < gap)
        right = min(e for e in edges if e > gap)
        before = sum(u.tokens for u in units[left:gap])
        after = sum(u.tokens for u in units[gap:right])
        return before >= self.min_chunk_tokens and (after >= self.min_chunk_tokens or right == hi)
