"""Heading levels and the ``header_path`` of a chunk, as LlamaIndex's ``MarkdownNodeParser`` writes it.

A heading unit's level: ATX (``## Title``: the number of ``#``), setext (``Title`` underlined with ``===``:
1, ``---``: 2, other underlines 3), numbered (``2.1 Title``: the number of parts); other heading-like
lines have no level (``None``) and stay out of the path.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ..._types import Unit
from ..structure import is_list_block
from .lines import NUMBERED, atx_heading, is_setext_underline
from .textlines import LINE_BREAKS

__all__ = ["HeadingStack", "chunk_heading_paths", "heading_level", "heading_path", "text_heading_level"]

#: The first three lines of a text as ``str.splitlines`` cuts them (``\r\n`` is one break), without
#: splitting the rest of a long unit.
_THREE_LINES = re.compile(rf"(?:[^{LINE_BREAKS}]*(?:\r\n|\r(?!\n)|[{LINE_BREAKS.replace(chr(13), '')}])){{3}}")


#: A chapter's heading (``Kapitel 9. Systemtipps``, ``Chapter 2``, ``第 9 章``): level 1.
_CHAPTER = re.compile(
    r"^(?:(?:Kapitel|Chapter|Part|Teil|Anhang|Appendix)\s+[\dA-Z]{1,3}\b|第\s*[\d一二三四五六七八九十百]+\s*章)"
)
#: A lettered heading (``A. CNM-Extractor``): one level below the numbered heading above it, beside its siblings.
_LETTERED = re.compile(r"^[A-Z]\.\s+\S")


def heading_level(lines: Sequence[str]) -> int | None:
    """The level of the heading that opens ``lines`` (the first non-blank line), or ``None``.

    ATX: the number of ``#``; setext: 1 (``===``) or 2 (``---``), 3 for other underlines; numbered
    (``2.1 Title``): the number of parts. Other heading-like lines: ``None``.
    """
    content = [line for line in lines if line.strip()]
    if not content:
        return None
    first = content[0].rstrip("\r\n")
    atx = atx_heading(first)
    if atx:
        return atx[0]
    if len(content) > 1 and is_setext_underline(content[1]) and not is_list_block(first):
        return {"=": 1, "-": 2}.get(content[1].strip()[0], 3)
    numbered = NUMBERED.match(first)
    if numbered and len(numbered.group(2)) <= 80:
        return numbered.group(1).count(".") + 1
    if _CHAPTER.match(first.strip()):
        return 1
    return None


@functools.lru_cache(maxsize=4096)
def text_heading_level(text: str) -> int | None:
    """:func:`heading_level` of the first three lines of ``text`` (a heading unit's text; cached by the text)."""
    opening = _THREE_LINES.match(text)
    head = text if opening is None else text[: opening.end()]
    return heading_level(head.splitlines()[:3])


def _title(line: str) -> str:
    """The heading's text without ATX markers (``## Install ##`` gives ``Install``)."""
    atx = atx_heading(line)
    return " ".join((atx[1] if atx else line).split())


def heading_path(stack: Sequence[tuple[int, str]], separator: str = "/") -> str:
    """LlamaIndex's ``header_path`` form: ``"/Intro/Install/"``, or ``"/"`` for no heading."""
    inner = separator.join(title for _, title in stack)
    return f"{separator}{inner}{separator}" if inner else separator


class HeadingStack:
    """The headings above the current unit, walked one unit at a time (bounded state for streaming).

    Args:
        separator: Separator of the ``header_path`` form.
    """

    def __init__(self, separator: str = "/") -> None:
        self.separator = separator
        self._stack: list[tuple[int, str]] = []

    def enter(self, unit: Unit) -> str:
        """Step onto ``unit``; return the path a chunk that starts at it gets (its ancestors only)."""
        level = text_heading_level(unit.text) if unit.heading else None
        if level is None and unit.heading and _LETTERED.match(unit.text.lstrip()):
            level = self._lettered_level()
        if level is not None:
            while self._stack and self._stack[-1][0] >= level:
                self._stack.pop()
        path = heading_path(self._stack, self.separator)
        if level is not None:
            first = next(line for line in unit.text.splitlines() if line.strip())
            self._stack.append((level, _title(first)))
        return path

    def _lettered_level(self) -> int:
        """The level of a lettered heading: its lettered sibling's, else one below the heading above it."""
        if not self._stack:
            return 1
        level, title = self._stack[-1]
        return level if _LETTERED.match(title) else level + 1


def chunk_heading_paths(units: Sequence[Unit], starts: Sequence[int], separator: str = "/") -> list[str]:
    """The ``header_path`` of each chunk that starts at a unit of ``starts`` (sorted).

    As LlamaIndex's ``MarkdownNodeParser`` writes it: the headings above the
    chunk, outermost first; a heading the chunk opens with is in its text, so only
    its ancestors are in the path. Headings of unknown level are left out.
    """
    paths: list[str] = []
    stack = HeadingStack(separator)
    wanted = iter(starts)
    target = next(wanted, None)
    for index, unit in enumerate(units):
        path = stack.enter(unit)
        while target == index:
            paths.append(path)
            target = next(wanted, None)
    return paths
