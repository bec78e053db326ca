"""Streaming segmentation: units of a text that arrives in pieces, identical to :func:`split_units`.

:func:`~chop_integrations.split_units` decides each unit from its
paragraph block alone, with three exceptions that look further: a fenced code block
spans blank lines (an unclosed fence runs to the end of the text), consecutive list
blocks form one run (kept whole when the run fits), and a gap's whitespace runs up to
the next non-blank character. So a *safe cut* is the end of a paragraph gap that

* has a non-blank character before it (leading whitespace joins the first block),
* is followed by a known non-blank character at the start of a line (the gap is
  complete and the next line is not indented, so fence and heading patterns anchored
  at a line start read the same on both sides),
* lies outside every fence (all fences before it are closed), and
* is not followed by a list item (so no list run crosses it),

and the units of ``text`` are those of ``text[:cut]`` followed by those of
``text[cut:]`` shifted by ``cut``, provided the cut does not part a heading from its body
(:mod:`~chop_integrations._text.cuts`: the first body unit after a heading leaves room for it):
the unit before the cut is no heading-only unit, or the :data:`~chop_integrations._text.cuts.HEADING_CHAIN`
units after it are all headings. :class:`UnitStream` buffers the text since the last
safe cut and segments the buffer up to the newest safe cut it holds, so its memory is
bounded by the longest stretch without a safe cut (one paragraph block, one fenced code
block, one list, not the document) and the newest piece. The property tests check the equality on random
documents cut into random pieces.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence

from .._types import Unit
from .cuts import HEADING_CHAIN, heading_only
from .headings import OPENING_CHARS, HeadingStream, markdown_within
from .headings.reader import heading_starts, within
from .run_memo import TextMemo
from .segmentation import paragraph_gaps, units_of
from .structure import fence_spans, inside_any, is_list_block
from .tokens import TokenCounter

__all__ = ["UnitStream", "safe_cut", "settled_cut", "stream_units"]

#: A cut is looked for when the text added since the last look is at least this many
#: characters or a quarter of the buffer (geometric, so a long block costs linear time).
MIN_LOOK_CHARS = 4096
_CONTENT = re.compile(r"\S")


def safe_cut(text: str) -> int:
    """The last safe cut in ``text`` by its paragraph gaps (see the module docstring), or 0 when there is none."""
    cuts = _gap_cuts(text)
    return cuts[-1] if cuts else 0


def _gap_cuts(text: str) -> list[int]:
    """Every gap end in ``text`` that is safe by the rules of the module docstring's list, in order."""
    fences = fence_spans(text)
    content = _CONTENT.search(text)
    first = len(text) if content is None else content.start()  # leading whitespace joins the first block
    cuts: list[int] = []
    for start, end in paragraph_gaps(text):
        if end >= len(text):
            break
        if start <= first:
            continue
        if text[end - 1] != "\n":
            continue  # the next line is indented: a fence or heading pattern could read differently
        if inside_any(fences, end):
            continue  # inside a fence (an unclosed fence runs to the end of the buffer); a gap that
            # starts on a closing fence's line break ends where segmentation cuts after the fence
        line_end = text.find("\n", end)
        if line_end < 0 or is_list_block(text[end : line_end + 1]):
            continue  # the next block's first line is incomplete, or a list run may cross the gap
        cuts.append(end)
    return cuts


def settled_cut(
    text: str,
    *,
    max_tokens: int,
    token_counter: TokenCounter,
    memo: TextMemo | None = None,
    heads: Sequence[int] | None = None,
) -> tuple[int, list[Unit]]:
    """The last cut of ``text`` that no later text can move, and the units before it (``(0, [])``: none).

    A safe gap (:func:`safe_cut`) that parts no heading from its body: the units of ``text``
    are the returned ones followed by those of ``text[cut:]`` shifted by ``cut``. ``memo``: see
    :func:`~chop_integrations._text.segmentation.units_of`. ``heads``: the headings of ``text`` known so far (a
    stream's :class:`~chop_integrations._text.headings.HeadingStream`, every one before the last line settled);
    ``None`` reads them from ``text`` as a whole.
    """
    cuts = _gap_cuts(text)
    if not cuts:
        return 0, []
    known = heading_starts(text) if heads is None else heads
    window = within(known, 0, cuts[-1])
    units = units_of(text[: cuts[-1]], max_tokens=max_tokens, token_counter=token_counter, memo=memo, heads=window)
    index = {u.start: i for i, u in enumerate(units)}
    index[cuts[-1]] = len(units)
    for position in reversed(cuts):
        if position in index and _apart(units, index[position]):
            return position, units[: index[position]]
    return 0, []


def _apart(units: list[Unit], i: int) -> bool:
    """True when a cut before ``units[i]`` parts no heading from its body (``units`` end at a safe cut)."""
    if i == 0 or not heading_only(units[i - 1]):
        return True
    after = units[i : i + HEADING_CHAIN]
    return len(after) == HEADING_CHAIN and all(heading_only(u) for u in after)


class UnitStream:
    """Segments a text fed in pieces into the same units as :func:`split_units` on the whole text.

    Args:
        max_tokens: The most tokens a unit may hold.
        token_counter: Counts the tokens of a string.
        memo: A batch run's memory of the texts it read (see :func:`~chop_integrations._text.segmentation.units_of`).

    Attributes:
        peak_buffer_chars: The most characters the buffer held at once (memory instrumentation).
        offset: Characters segmented so far (the offset of the buffer's first character).
    """

    def __init__(self, *, max_tokens: int, token_counter: TokenCounter, memo: TextMemo | None = None) -> None:
        self.max_tokens = max_tokens
        self.count = token_counter
        self.memo = memo
        self.headings: HeadingStream | None = None  # made at the first look, once the opening is known
        self.peak_buffer_chars = 0
        self.offset = 0
        self._parts: list[str] = []
        self._size = 0
        self._fresh = 0  # characters added since the last look for a cut

    def feed(self, piece: str) -> list[Unit]:
        """Add a piece; return the units that no later text can change (possibly none).

        The cut is looked for in the text held *before* the piece, once another piece shows the text
        goes on: a text fed as one piece is segmented once, by :meth:`close`, with no look at all.
        """
        if not piece:
            return []
        units = self._look() if self._fresh >= max(MIN_LOOK_CHARS, self._size // 4) else []
        if self.headings is not None:
            self.headings.feed(piece)
        self._parts.append(piece)
        self._size += len(piece)
        self._fresh += len(piece)
        self.peak_buffer_chars = max(self.peak_buffer_chars, self._size)
        return units

    def _look(self) -> list[Unit]:
        """The units of the buffer up to its last safe cut; the rest stays."""
        self._fresh = 0
        buffer = "".join(self._parts)
        if self.headings is None:  # (the first look: nothing is cut yet, the buffer holds the opening)
            if len(buffer) < OPENING_CHARS:
                return []  # the opening decides how headings are read (as Headings does): no cut before it is held
            self.headings = HeadingStream(markdown=markdown_within(buffer))
            self.headings.feed(buffer)
        heads = within(self.headings.offsets, self.offset, self.headings.complete, base=self.offset)
        count, memo = self.count, self.memo
        cut, units = settled_cut(buffer, max_tokens=self.max_tokens, token_counter=count, memo=memo, heads=heads)
        self.headings.forget_before(self.offset + cut)
        self._parts = [buffer[cut:]] if cut < len(buffer) else []
        self._size = len(buffer) - cut
        return self._shifted(units, cut)

    def close(self) -> list[Unit]:
        """The units of the rest of the text (call once, after the last piece)."""
        buffer = "".join(self._parts)
        self._parts, self._size = [], 0
        return self._units(buffer)

    def _units(self, text: str) -> list[Unit]:
        if not text:
            return []
        heads = None
        if self.headings is not None:
            self.headings.finish()
            heads = within(self.headings.offsets, self.offset, self.offset + len(text), base=self.offset)
        units = units_of(text, max_tokens=self.max_tokens, token_counter=self.count, memo=self.memo, heads=heads)
        return self._shifted(units, len(text))

    def _shifted(self, units: list[Unit], length: int) -> list[Unit]:
        """``units`` of the next ``length`` characters, with offsets into the whole text."""
        base = self.offset
        self.offset += length
        if not base:
            return units
        return [dataclasses.replace(u, start=u.start + base, end=u.end + base) for u in units]


def stream_units(pieces: Iterable[str], *, max_tokens: int, token_counter: TokenCounter) -> Iterator[Unit]:
    """Units of ``"".join(pieces)`` with offsets into it, yielded as soon as they are final."""
    stream = UnitStream(max_tokens=max_tokens, token_counter=token_counter)
    for piece in pieces:
        yield from stream.feed(piece)
    yield from stream.close()
