"""Offline continuity decision: does a chunk continue the one before it?

FALSE (extract a fresh signature) when the chunk opens with a heading, a markdown
heading or a scene break, or follows a form feed (a new section or page starts), when a
section starts inside the chunk before it (past that chunk's opening headings: the signature
it would pass on names a neighbour's section), or when the words at the end of
the previous chunk and the start of this one have too little in common; TRUE
otherwise (the chunk inherits the previous signature).
"""

from __future__ import annotations

import re
from collections import Counter

from .._deciders import DocContext
from .._types import Chunk
from ._text import content_lines, cosine, words
from .topic import _SCENE_BREAK, ends_with_page_break

__all__ = ["OfflineContinuity"]

from .._text.headings import SURE_HEADING, adornment, is_heading_line, outline_of
from .._text.headings.opening import opens_with_heading

#: A line that may be a sure heading (:data:`SURE_HEADING`), a markdown heading or an underline: a cheap look
#: before reading a chunk's headings. A sure heading may stand up to three columns in, as the reader reads it (a
#: licence's ``   4. Redistribution.``): such a line opens with what a sure heading opens with.
_MAYBE_SURE = re.compile(
    rf"^(?:{SURE_HEADING.pattern}| {{0,3}}#| {{0,3}}[=\-~^\"]{{3,}}[ \t]*$"
    r"|[ \t]{1,3}(?:[\d(\[第]|[A-Z]\.|[IVXLC]{1,6}\.|[vV]\[?\d"
    r"|(?i:kapitel|chapter|abschnitt|section|part|teil|anhang|appendix|version|release)\s))",
    re.M,
)  # (one "^" before the branches: a position that opens no line fails at once, not once per branch)


class OfflineContinuity:
    """A :class:`~chop_integrations._deciders.ContinuityDecider` that needs no LLM.

    Args:
        min_similarity: Below this cosine similarity between the edge words of the two
            chunks, the topic is taken to have changed.
        edge_chars: How many characters at the end of ``previous`` and the start of
            ``current`` are compared.
    """

    def __init__(self, *, min_similarity: float = 0.08, edge_chars: int = 1500) -> None:
        self.min_similarity = min_similarity
        self.edge_chars = edge_chars
        self._last: tuple[str, Counter[str]] | None = None

    def decide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """True when ``current`` continues ``previous``'s topic (it then inherits the signature)."""
        if (
            self.opens_section(current.text)
            or self.section_inside(previous.text)
            or ends_with_page_break(previous.text)
        ):
            return False
        before = self._edge_words(previous.text[-self.edge_chars :])
        after = self._edge_words(current.text[: self.edge_chars])
        if not before or not after:
            return True  # nothing to compare: keep the context rather than lose it
        return cosine(before, after) >= self.min_similarity

    def _edge_words(self, edge: str) -> Counter[str]:
        """The words of one edge; a short chunk is both the head of one pair and the tail of the next: count it once."""
        last = self._last
        if last is not None and last[0] is edge:
            return last[1]
        counted = Counter(words(edge))
        self._last = (edge, counted)
        return counted

    @staticmethod
    def section_inside(text: str) -> bool:
        """True when a sure heading of ``text`` comes after its opening headings: a new section starts inside.

        Sure: a markdown or underlined heading, or a numbered or version line (:data:`SURE_HEADING`). A plain
        heading-like line inside a chunk is often a list's item or a form's label (``Alarm``, ``SUBMIT`` in the
        manuals), so the chunk after it keeps inheriting (on the manuals' tune half, treating every such line as a
        section start cost BM25 doc@1 0.864 -> 0.837; sure headings only: no loss).
        """
        if _MAYBE_SURE.search(text) is None:
            return False  # (most chunks: no line that could be a sure heading)
        headings = outline_of(text)
        opening = headings.blocks[0] if headings.blocks and not text[: headings.offsets[0]].strip() else None
        return any(
            block != opening and (headings.marked or SURE_HEADING.match(path[-1]))
            for block, path in zip(headings.blocks, headings.paths, strict=True)
        )

    @staticmethod
    def opens_section(text: str) -> bool:
        """True when ``text`` opens with a heading (heading-like, or as the document reader reads it) or a break."""
        lines = content_lines(text, 2)
        if not lines:
            return False
        if _SCENE_BREAK.match(lines[0]) or text.lstrip(" \t\n").startswith("\f"):
            return True
        if is_heading_line(lines[0], lines[1] if len(lines) > 1 else None):
            return True
        if not (SURE_HEADING.match(lines[0]) or adornment(lines[0]) or (len(lines) > 1 and adornment(lines[1]))):
            return False  # the reader reads more than is_heading_line only there: a numbered, versioned or marked title
        return opens_with_heading(text, headings=outline_of)
