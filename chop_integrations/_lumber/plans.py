"""Where LumberChunker asks and how it turns answers into chunk starts.

Two plans, one per mode:

* :class:`WindowPlan` (``mode="default"``): the windows are fixed up front from
  the units alone (each a run of units up to ``window_tokens``, closed earlier where the content
  says so; plus a few units before it shown as unnumbered context), so no window depends on another's
  answer and all of them can be asked at once. The first unit of every window
  after the first is a legitimate candidate (the context shows what came
  before), so no window boundary hides a topic start. :meth:`WindowPlan.merge`
  turns all answers into chunk starts and cuts any span over ``max_tokens`` into
  balanced pieces, preferring heading units.
* :class:`PaperPlan` (``mode="paper"``): the paper's procedure, sequential by
  nature: each group starts where the previous answer said.

Both plans only move indexes; :class:`~chop_integrations.LumberChunker`
asks the decider and builds the chunks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from .._deciders import DocContext
from .._defaults import LUMBER_WINDOW_CUTS
from .._text.cuts import keep_with_body, may_cut
from .._text.headings.levels import text_heading_level
from .._text.structure import ends_with_break
from .._text.tiling import ContentCuts
from .._text.tokens import TokenCounter
from .._types import Chunk, Unit
from .build import ChunkBuilder
from .prompts import LumberWindow, clean_shifts

__all__ = ["CONTEXT_UNITS", "HEADING_BONUS", "PaperPlan", "WindowPlan", "balanced_cuts", "pack_starts", "window_end"]

#: Share of a piece's target size a heading is worth when a forced cut is placed.
HEADING_BONUS = 0.3
#: Default mode: a window carries at least this many units before it as context (when the
#: document has them); the prompt shows only their last ``context_tokens`` tokens, the offline
#: decider uses them to judge the window's first unit (is it a new section? does the wording change?).
CONTEXT_UNITS = 3
#: Default mode: where a window closes by content (:func:`window_end`; the shares are
#: :data:`~chop_integrations._defaults.LUMBER_WINDOW_CUTS`).
WINDOW_CUTS = ContentCuts(*LUMBER_WINDOW_CUTS)


def balanced_cuts(units: Sequence[Unit], cum: Sequence[int], a: int, b: int, max_tokens: int) -> list[int]:
    """Cut positions that split ``units[a:b]`` into balanced pieces of at most ``max_tokens`` (unit sums).

    Each cut aims at an equal share of the span and prefers a unit that opens
    with a heading (worth :data:`HEADING_BONUS` of the share); it never falls right after a
    heading-only unit (:func:`~chop_integrations._text.cuts.may_cut`) unless no other cut fits.
    A single unit is never split here (segmentation already bounds units).

    Args:
        units: The document's units.
        cum: Prefix sums of unit tokens (``cum[i]`` = tokens of ``units[:i]``).
        a: First unit of the span.
        b: End of the span (exclusive).
        max_tokens: The most tokens a piece may hold.
    """
    cuts: list[int] = []
    while b - a > 1 and cum[b] - cum[a] > max_tokens:
        total = cum[b] - cum[a]
        target = total / math.ceil(total / max_tokens)
        best, best_score = a + 1, -math.inf
        for p in range(a + 1, b):
            size = cum[p] - cum[a]
            if size > max_tokens:
                break
            score = -abs(size - target) + (HEADING_BONUS * target if units[p].heading else 0.0)
            if not may_cut(units, p):
                score -= 2 * total  # a heading stays with its body unless nothing else fits
            if score > best_score:
                best, best_score = p, score
        cuts.append(best)
        a = best
    return cuts


def _level(unit: Unit) -> int | None:
    """The heading level of a heading unit (``None`` for body text or a heading of unknown level)."""
    return text_heading_level(unit.text) if unit.heading else None


def _real_shift(units: Sequence[Unit], at: int, top: int | None, fixed: frozenset[int]) -> bool:
    """True when a section starting at unit ``at`` leaves the current chunk's part of the document.

    That is a start in ``fixed``, a heading shallower than the chunk's shallowest heading (``### b`` to
    ``## C``), a scene or thematic break, or a form feed.
    """
    if at in fixed:
        return True
    level = _level(units[at])
    if level is not None and top is not None and level < top:
        return True
    return ends_with_break(units[at - 1].text) or units[at].text.startswith("\f")


def pack_starts(
    units: Sequence[Unit],
    cum: Sequence[int],
    starts: Sequence[int],
    *,
    max_tokens: int,
    target_tokens: int,
    min_tokens: int,
    fixed: frozenset[int] = frozenset(),
) -> list[int]:
    """Join small sections to their neighbours toward ``target_tokens``, never past ``max_tokens``.

    Walking the sections (``units[starts[j]:starts[j+1]]``) in order, a section joins
    the chunk before it when both fit ``max_tokens`` together and either one is
    under ``min_tokens`` (a lone title, a short paragraph, a last line), or joining
    brings the chunk closer to ``target_tokens`` and no real topic shift stands between them: a start in
    ``fixed`` (named by an LLM), a heading that leaves the chunk's part of the
    document, a scene break. A small heading-led section whose next section is its
    sub-section opens a chunk rather than closing the one before.

    Args:
        units: The document's units.
        cum: Prefix sums of unit tokens.
        starts: Chunk starts, sorted, starting with 0.
        max_tokens: Hard maximum of a chunk (unit sums).
        target_tokens: Chunks grow toward this size across soft boundaries.
        min_tokens: A section under this joins a neighbour across any boundary.
        fixed: Starts that are real topic shifts (crossed only to absorb a section under ``min_tokens``).
    """
    if not starts:
        return []
    ends = [*starts[1:], len(units)]
    out = [starts[0]]
    top = _level(units[starts[0]])
    for j in range(1, len(starts)):
        at, size, current = starts[j], cum[ends[j]] - cum[starts[j]], cum[starts[j]] - cum[out[-1]]
        fits = current + size <= max_tokens
        tiny = fits and (
            current < min_tokens or (size < min_tokens and not _opens_subsection(units, cum, starts, ends, j))
        )
        if fits and (tiny or (2 * current + size <= 2 * target_tokens and not _real_shift(units, at, top, fixed))):
            level = _level(units[at])
            top = level if top is None else (top if level is None else min(top, level))
            continue
        out.append(at)
        top = _level(units[at])
    return out


def _opens_subsection(
    units: Sequence[Unit], cum: Sequence[int], starts: Sequence[int], ends: Sequence[int], j: int
) -> bool:
    """True when section ``j`` is a heading whose next section is its sub-section (or untitled body)."""
    if j + 1 >= len(starts):
        return False
    level, child = _level(units[starts[j]]), _level(units[starts[j + 1]])
    return level is not None and (child is None or child > level)


def window_end(units: Sequence[Unit], cum: Sequence[int], first: int, window_tokens: int) -> int:
    """End (exclusive) of the default-mode window from unit ``first``: at least one unit, at most ``window_tokens``.

    It closes earlier after a unit :data:`WINDOW_CUTS` picks by content, so an edit moves only the windows
    around it (:mod:`~chop_integrations._text.tiling`). Reads units up to the first past ``window_tokens`` at most.
    """
    cuts, end = WINDOW_CUTS.window(window_tokens), first + 1
    while end < len(units) and not cuts.add(units[end - 1].text, units[end - 1].tokens):
        if cum[end + 1] - cum[first] > window_tokens:  # full: close at the last candidate, if any
            return first + (cuts.backup or end - first)
        end += 1
    return end


class _Plan:
    """What both plans hold: the document, its units and their prefix sums, the chunk maximum."""

    def __init__(self, doc: DocContext, units: Sequence[Unit], max_tokens: int) -> None:
        self.doc = doc
        self.units = list(units)
        self.max_tokens = max_tokens
        self.cum = [0, *itertools.accumulate(u.tokens for u in self.units)]


class WindowPlan(_Plan):
    """Default mode: fixed windows, asked independently, merged afterwards.

    Args:
        doc: The document.
        units: Its units (contiguous, covering the text).
        max_tokens: Hard maximum of tokens per chunk.
        window_tokens: Tokens of new (numbered) units per window.
        context_tokens: Tokens of text before a window that its prompt shows as context.
        target_tokens: Small sections join toward this size (``0``: no joining; see :func:`pack_starts`).
        min_tokens: Sections under this join a neighbour across any boundary.
        answers_fixed: The answers are real topic shifts (an LLM's), crossed only by sections
            under ``min_tokens``; otherwise (the offline decider) only structure fixes a cut.
        start: Index of the unit the first window starts at (a stream resumes tiling at a
            window start; the units before it are there as context only).

    Attributes:
        windows: The windows, in document order; ``window.seen`` units before
            the numbered ones are context only.
    """

    def __init__(
        self,
        doc: DocContext,
        units: Sequence[Unit],
        *,
        max_tokens: int,
        window_tokens: int,
        context_tokens: int,
        target_tokens: int = 0,
        min_tokens: int = 0,
        answers_fixed: bool = False,
        start: int = 0,
    ) -> None:
        super().__init__(doc, units, max_tokens)
        self.target_tokens = target_tokens
        self.min_tokens = min_tokens
        self.answers_fixed = answers_fixed
        self.windows = self._windows(window_tokens, context_tokens, start)

    def _windows(self, window_tokens: int, context_tokens: int, start: int = 0) -> list[LumberWindow]:
        units, cum, out, first = self.units, self.cum, [], start
        while first < len(units):
            end = window_end(units, cum, first, window_tokens)
            context = max(0, first - CONTEXT_UNITS)
            while context > 0 and cum[first] - cum[context] < context_tokens:
                context -= 1
            out.append(
                LumberWindow(
                    units=units[context:end],
                    first_index=context,
                    doc=self.doc,
                    is_last=end == len(units),
                    seen=first - context,
                )
            )
            first = end
        return out

    def merge(self, answers: Sequence[Sequence[int]]) -> list[int]:
        """Chunk starts (unit indexes, sorted, starting with 0) from one answer per window.

        Invalid indexes are ignored (an answer can only name numbered units of its
        own window); a start right after a heading moves back to it
        (:func:`~chop_integrations._text.cuts.keep_with_body`); any span over ``max_tokens`` is
        cut by :func:`balanced_cuts`; then small sections join their neighbours (:func:`pack_starts`).

        Raises:
            ValueError: When the number of answers differs from the number of windows.
        """
        if len(answers) != len(self.windows):
            raise ValueError(f"got {len(answers)} answers for {len(self.windows)} windows")
        if not self.units:
            return []
        found = {0}
        for window, shifts in zip(self.windows, answers, strict=True):
            named = (window.first_index + i for i in clean_shifts(shifts, window, "default"))
            found.update(keep_with_body(self.units, p, self.max_tokens) for p in named)
        starts: list[int] = []
        for a, b in itertools.pairwise([*sorted(found), len(self.units)]):
            starts.append(a)
            starts.extend(balanced_cuts(self.units, self.cum, a, b, self.max_tokens))
        if not (self.target_tokens or self.min_tokens):
            return starts
        return pack_starts(
            self.units,
            self.cum,
            starts,
            max_tokens=self.max_tokens,
            target_tokens=self.target_tokens,
            min_tokens=self.min_tokens,
            fixed=frozenset(found) if self.answers_fixed else frozenset(),
        )


class PaperPlan(_Plan):
    """The paper's procedure: one group at a time, each starting where the last answer said.

    A group grows while its rendered prompt text (``ID <n>: <text>`` lines) stays
    under ``theta`` tokens and its units fit ``max_tokens``; the model names the
    first unit where the content clearly changes; the chunk ends there and the
    next group starts at the answer (``restart="answer"``, the paper) or one unit
    later (``"answer+1"``, the original code). With no valid answer the chunk
    ends with the group.

    Args:
        doc: The document.
        units: Its units.
        max_tokens: Hard maximum of tokens per chunk.
        theta: A group grows while its rendered prompt text stays under theta tokens.
        restart: ``"answer"`` or ``"answer+1"``.
        count: Token counter (renders ``ID <n>: `` labels to measure theta).
    """

    def __init__(
        self,
        doc: DocContext,
        units: Sequence[Unit],
        *,
        max_tokens: int,
        theta: int,
        restart: str,
        count: TokenCounter,
    ) -> None:
        super().__init__(doc, units, max_tokens)
        self.theta = theta
        self.restart = restart
        self.count = count
        self.starts: list[int] = [0] if self.units else []
        self.open = 0  # unit index where the open chunk starts
        self.fresh = 0  # first unit not yet shown to the decider
        self._window: LumberWindow | None = None

    def next_window(self) -> LumberWindow | None:
        """The next group to show the decider, or ``None`` when every unit has been judged."""
        if self.fresh >= len(self.units):
            self._window = None
            return None
        if self.open < self.fresh and self.cum[self.fresh + 1] - self.cum[self.open] > self.max_tokens:
            self._close(self.fresh)  # answer+1 restart: the held-back unit cannot share a chunk with more
        end = self.fresh + 1
        size = self._rendered(self.fresh)
        while end < len(self.units):
            size += self._rendered(end)
            if size >= self.theta or self.cum[end + 1] - self.cum[self.open] > self.max_tokens:
                break
            end += 1
        self._window = LumberWindow(
            units=self.units[self.open : end],
            first_index=self.open,
            doc=self.doc,
            is_last=end == len(self.units),
            seen=self.fresh - self.open,
        )
        return self._window

    def _rendered(self, index: int) -> int:
        return self.count(f"ID {index}: {self.units[index].text.strip()}\n")

    def apply(self, shifts: Sequence[int]) -> None:
        """Take the decider's answer for the current group (invalid indexes are ignored).

        Raises:
            RuntimeError: When no group is pending (call :meth:`next_window` first).
        """
        window = self._window
        if window is None:
            raise RuntimeError("apply() called without a window; call next_window() first")
        self._window = None
        end = window.first_index + len(window.units)
        cuts = clean_shifts(shifts, window, "paper")
        if not cuts:
            self._close(end)
            self.fresh = end
            return
        answer = window.first_index + cuts[0]
        self._close(answer)
        self.fresh = min(answer + 1, len(self.units)) if self.restart == "answer+1" else answer

    def _close(self, at: int) -> None:
        """End the open chunk before unit ``at``, or the headings above it (no-op at the chunk's start or the end)."""
        at = keep_with_body(self.units, at, self.max_tokens)
        if self.open < at < len(self.units):
            self.starts.append(at)
        self.open = max(self.open, min(at, len(self.units)))


def longest_first(docs: Sequence[DocContext]) -> list[int]:
    """Document indexes, longest text first (ties in input order): the longest set the critical path."""
    return sorted(range(len(docs)), key=lambda i: -len(docs[i].text))


def build_chunks(
    doc: DocContext, units: list[Unit], starts: Sequence[int], *, max_tokens: int, count: TokenCounter
) -> list[Chunk]:
    """Chunks with exact offsets from chunk starts, splitting any that the real count finds too big."""
    if not doc.text:
        return []
    builder = ChunkBuilder(doc, max_tokens=max_tokens, count=count)
    return [c for a, b in itertools.pairwise([*starts, len(units)]) for c in builder.build(units, 0, a, b)]
