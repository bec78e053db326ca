"""The heading path of :class:`~chop_integrations._text.headings.outline.Headings`, built as the text arrives.

:class:`Headings` reads a whole document: its lines, which of them are headings (a plain
heading-like line needs the line after it), and one choice for the whole text, markdown
(and underlined) headings only when the text has any, else every heading-like line. :class:`HeadingStream`
makes the same entries left to right with one line of look-ahead, so the path of a chunk is
known once the line after its end is. The one choice it cannot make from text seen so far
is the markdown one: both take it from the opening (:func:`markdown_within`), which the stream holds first.
"""

from __future__ import annotations

import bisect

from ..structure import FenceState
from .labels import innermost
from .lines import is_code_line, is_title_tail
from .outline import (
    OPENING_CHARS,
    HeadingLevels,
    adornment,
    continues,
    has_marked_headings,
    overlined,
    section_title,
)

__all__ = ["HeadingStream", "markdown_within"]


def markdown_within(text: str) -> bool:
    """True when the opening of ``text`` has a markdown or underlined heading outside code (see :class:`Headings`).

    The opening is its first :data:`~.outline.OPENING_CHARS`, so a stream that holds them (or the whole text, when
    shorter) makes the choice :class:`Headings` makes (see :func:`~.outline.marked_heading`).
    """
    return has_marked_headings(text[:OPENING_CHARS])


class HeadingStream:
    """A document's headings, fed in pieces; the same entries and paths as :class:`Headings` over the whole text.

    Args:
        markdown: Whether the document's headings are its markdown headings only (see
            :func:`markdown_within`), else every heading-like line in runs.

    Attributes:
        complete: Text offset before which every heading is known (``feed`` moves it on,
            ``finish`` sets it past any offset).
        peak_entries: The most heading entries held at once (memory instrumentation).
    """

    def __init__(self, *, markdown: bool) -> None:
        self.markdown = markdown
        self.offsets: list[int] = []
        self.blocks: list[int] = []
        self.paths: list[tuple[str, ...]] = []
        self.complete = 0
        self.peak_entries = 0
        self._parts: list[str] = []  # the pieces of the last line, not yet ended (joined once it ends)
        self._offset = 0  # offset of the last line
        # A non-blank line whose next line is not known yet: offset, text, fenced code, indented, opens its block,
        # the adornment character of the line just above (see marked_heading), the line above in its block (or None).
        self._waiting: tuple[int, str, bool, bool, bool, str, str | None] | None = None
        self._fences = FenceState()
        self._title = ""  # the last plain heading's title (its wrapped last line heads nothing)
        self._last: str | None = None  # the last non-blank line
        self._last_offset = 0  # where its text starts
        self._last_fenced = False  # whether it is fenced code
        self._above_offset, self._above_fenced = 0, False  # the same of the line above the waiting one
        self._blank = False  # a blank line came after it
        self._levels = HeadingLevels()
        self._line_number = 0  # non-blank lines seen (Headings' index k)
        self._block, self._previous = -1, -2
        self._stack: list[tuple[int, str]] = []

    def feed(self, text: str) -> None:
        """Read the next piece of the document; every line it ends is settled."""
        if not text:
            return
        if text.splitlines() == [text]:
            self._parts.append(text)  # no line ends here: keep the pieces of a long line, join them once
            return
        lines = ("".join(self._parts) + text).splitlines(keepends=True)
        self._parts = [lines.pop()]  # a line may go on in the next piece (even a CR before its LF)
        for raw in lines:
            self._line(raw)
        self.complete = self._waiting[0] if self._waiting is not None else self._offset

    def finish(self) -> None:
        """The document has ended: settle the last line."""
        for raw in "".join(self._parts).splitlines(keepends=True):  # the parts may hold an ended line and more
            self._line(raw)
        self._parts = []
        self._settle(None)
        self.complete = 1 << 62

    def path(self, start: int, end: int, text: str, *, depth: int = 2) -> list[str]:
        """:meth:`Headings.path` of the chunk ``text`` at ``[start, end)``; needs ``complete >= end``."""
        j = bisect.bisect_left(self.offsets, start) - 1
        k = j + 1
        if k < len(self.offsets) and self.offsets[k] < end and not text[: self.offsets[k] - start].strip():
            j = k
            while j + 1 < len(self.offsets) and self.offsets[j + 1] < end and self.blocks[j + 1] == self.blocks[j]:
                j += 1
        return innermost(self.paths[j], depth) if j >= 0 else []

    def forget_before(self, start: int) -> None:
        """Drop the headings no chunk from ``start`` on can need (all before it but the last)."""
        drop = bisect.bisect_left(self.offsets, start) - 1
        if drop > 0:
            del self.offsets[:drop], self.blocks[:drop], self.paths[:drop]

    # -- lines --------------------------------------------------------------------------------------------

    def _line(self, raw: str) -> None:
        offset, line = self._offset + len(raw) - len(raw.lstrip()), raw.strip()  # (where the line's text starts)
        self._offset += len(raw)
        fenced = self._fences.step(raw)
        if not line:
            self._settle(None)  # a blank line follows the waiting one: it stands alone
            self._blank = True
            return
        indented = is_code_line(raw)
        self._settle(line, indented=indented)
        above = adornment(self._last) if self._last is not None and not self._blank else ""
        opens_block = self._last is None or self._blank or bool(above)
        in_block = self._last is not None and not self._blank
        self._waiting = (offset, line, fenced, indented, opens_block, above, self._last if in_block else None)
        self._above_offset, self._above_fenced = self._last_offset, self._last_fenced  # (its overline, if any)
        self._last, self._last_offset, self._last_fenced, self._blank = line, offset, fenced, False

    def _settle(self, following: str | None, *, indented: bool = False) -> None:
        """Decide the waiting line now that the line after it (or a blank, or the end) is known.

        ``indented``: whether that next line is indented (see :func:`~.outline.section_title`'s ``hanging``).
        """
        if self._waiting is None:
            return
        offset, line, fenced, own_indent, opens_block, above, upper = self._waiting
        self._waiting = None
        hanging = following is not None and indented and not own_indent
        if self.markdown:
            if fenced or own_indent:
                return  # code
            heading = self._levels.heading(line, following, opens_block=opens_block, above=above, hanging=hanging)
            if heading is not None:
                level, title = heading
                while self._stack and self._stack[-1][0] >= level:
                    self._stack.pop()
                self._stack.append((level, title))
                self._block += 1  # Headings numbers marked headings one by one
                over = overlined(line, above, following) and not self._above_fenced
                start = self._above_offset if over else offset
                self._add(start, self._block, tuple(t for _, t in self._stack))
            return
        k = self._line_number
        self._line_number += 1
        inside = upper is not None and self._previous != k - 1  # (see Headings._runs)
        code = fenced or own_indent or (inside and continues(upper or "", following, line))
        code = code or (self._previous == k - 1 and is_title_tail(self._title, upper or "", line))
        title = "" if code else section_title(line, following, hanging=hanging)
        if not title:
            return
        same_run = self._previous == k - 1
        self._block = self._block if same_run else self._block + 1
        path = (*self.paths[-1], title) if same_run and self.paths else (title,)
        self._add(offset, self._block, path)
        self._previous, self._title = k, title

    def _add(self, offset: int, block: int, path: tuple[str, ...]) -> None:
        self.offsets.append(offset)
        self.blocks.append(block)
        self.paths.append(path)
        self.peak_entries = max(self.peak_entries, len(self.offsets))
