"""Whether a text opens with a heading as :class:`~.outline.Headings` reads it, mostly from its first lines alone.

The continuity decider asks it of a chunk whose first line may head a section. The whole text is read only to
settle whether it has a marked heading (then it reads by them: :func:`~.outline.has_marked_headings`) when its
first two lines do not settle it and a line further down may be one (:data:`_MAY_MARK`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .outline import Headings, _has_marked, _may_head, _outline, section_title
from .textlines import LINE_BREAKS, Lines

__all__ = ["opens_with_heading"]

#: A line past the first that may be a marked heading or its underline (:func:`~.outline.marked_heading`): a ``#``
#: after white space, or a line of underline characters alone. Where none is, the text has no marked heading.
_MAY_MARK = re.compile(
    rf"[{LINE_BREAKS}][^\S{LINE_BREAKS}]*(?:#|[=\-~^\".*+:']+[^\S{LINE_BREAKS}]*(?:[{LINE_BREAKS}]|\Z))"
)


def opens_with_heading(text: str, *, headings: Callable[[str], Headings] = Headings) -> bool:
    """True when the first of ``headings(text)``'s headings opens ``text``: its first non-blank line, or its overline.

    The same answer as reading the whole text, from its first three lines where they settle it: a text with a marked
    heading in its first two lines reads by marked headings, one with no line further down that may be one
    (:data:`_MAY_MARK`) by its heading-like lines; else ``headings(text)`` (a caller's cached reader) says which.
    """
    first = Lines(text, limit=3)  # (lines 0 and 1 as the whole text's, with the line below each)
    if not first.texts:
        return False
    if _has_marked(first, upto=2):
        marked = True
    elif _MAY_MARK.search(text) is None:
        marked = False
    else:
        marked = headings(text).marked
    if marked:
        entries = _outline(first)  # (its state fresh at line 0; an entry from line 2 opens no text, as in the whole)
        return bool(entries) and entries[0][0] == first.offsets[0]
    return _plain_opening(first)


def _plain_opening(lines: Lines) -> bool:
    """True when line 0 heads a section of a text read by its heading-like lines (as ``Headings._runs`` reads it)."""
    texts, indented = lines.texts, lines.indented
    if lines.fenced[0] or indented[0] or _may_head(lines)[:1] != [0]:
        return False
    following = None if lines.alone[0] or len(texts) == 1 else texts[1]
    hanging = following is not None and indented[1] and not indented[0]
    return bool(section_title(texts[0], following, hanging=hanging))
