"""A chunk's section label from its heading path: the innermost headings, a changelog's version kept above them.

Shared by the whole-document reader (:class:`~chop_integrations._text.headings.outline.Headings`) and the
stream's (:class:`~chop_integrations._text.headings.stream.HeadingStream`), so both label a chunk alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._types import MAX_FIELD_CHARS
from .lines import VERSION

__all__ = ["ELLIPSIS", "innermost", "short_title"]

#: What ends a title cut short (:func:`short_title`).
ELLIPSIS = "\u2026"
#: A cut at a space is kept when it leaves at least this share of the room (else the title is cut mid-word: CJK).
_WORD_CUT_SHARE = 0.5


def short_title(title: str, limit: int = MAX_FIELD_CHARS) -> str:
    """``title`` when it fits in ``limit`` characters, else its first words and an ellipsis (``…``) that fit.

    A signature field holds :data:`~chop_integrations._types.MAX_FIELD_CHARS` characters; cut there, a long title
    (an FAQ's question) would end mid-word with nothing to say it goes on. The cut is at the last space that keeps
    at least half the room (a CJK title, with no spaces, is cut at the limit).
    """
    if len(title) <= limit:
        return title
    head = title[: limit - 1]
    space = head.rfind(" ")
    if space >= _WORD_CUT_SHARE * limit:
        head = head[:space]
    return head.rstrip(" ,;:.-\u2013\u2014/") + ELLIPSIS


def innermost(path: Sequence[str], depth: int) -> list[str]:
    """The innermost ``depth`` headings of ``path``, outermost first; a changelog's version above them stays.

    ``Version 1.34.0`` > ``Stabilized APIs`` > ``std`` at depth 2 gives ``Version 1.34.0`` > ``std``: the
    version is what tells the sections of one changelog apart. A title too long for a signature field is cut at a
    word with an ellipsis (:func:`short_title`).
    """
    inner = list(path[-depth:])
    if depth >= 2 and len(path) > depth:
        version = next((title for title in reversed(path[:-depth]) if VERSION.match(title)), None)
        if version is not None:
            inner = [version, *inner[1:]]
    return [short_title(title) for title in inner]
