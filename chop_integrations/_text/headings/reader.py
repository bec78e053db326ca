"""The one heading question every caller asks: which lines of this text head a section, as its outline reads them.

Segmentation cuts its units there and flags them (:attr:`~chop_integrations.Unit.heading`), the cuts keep those units
with their body, CHOP's signature and section labels take their paths, and the offline title reading takes the
headings a chunk opens with: all from :class:`~.outline.Headings` over the whole text, or from
:class:`~.stream.HeadingStream` over a text that arrives in pieces (the same entries for the same markdown choice).
So no two readers can disagree on a line.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence

from .outline import Headings

__all__ = ["heading_starts", "line_start", "opening_titles", "outline_of", "within"]


@functools.lru_cache(maxsize=16)
def outline_of(text: str) -> Headings:
    """:class:`~.outline.Headings` of ``text``, kept for the few texts a run asks about again (a chunk, a document)."""
    return Headings(text)


def line_start(text: str, offset: int) -> int:
    """Where the line holding ``offset`` starts, given only spaces and tabs lie before it on that line.

    A heading entry's offset is where its text starts; a cut before it goes before its indentation.
    """
    while offset > 0 and text[offset - 1] in " \t":
        offset -= 1
    return offset


def heading_starts(text: str, *, markdown: bool | None = None) -> list[int]:
    """The offsets where the outline's headings of ``text`` start (their text, or their overline), in order.

    ``markdown``: the choice :class:`~.outline.Headings` makes from the whole text (its marked headings only, or
    every heading-like line), given by a stream that took it from the opening; ``None`` reads it from ``text``.
    """
    return list(Headings(text, markdown=markdown).offsets)


def opening_titles(text: str, limit: int = 4) -> list[str]:
    """The titles of the headings ``text`` opens with, outermost first, ``limit`` at most (``[]``: it opens with body).

    A chunk that opens with a chain of headings (``Chapter 2`` / ``Setting up`` / body) gives them all; the last one
    is the most specific. Read by the outline of ``text`` alone (a chunk whose place in its document is unknown).
    """
    headings = outline_of(text)
    return headings.path(0, len(text), depth=limit) if text else []


def within(starts: Sequence[int], start: int, end: int, *, base: int = 0) -> list[int]:
    """The heading ``starts`` (sorted) in ``[start, end)``, less ``base`` (offsets into a window of the text)."""
    first, last = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
    return [s - base for s in starts[first:last]]
