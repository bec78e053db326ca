"""Markdown-like block structure that segmentation keeps whole: fences, lists, tables, headings.

Plain-text documents (READMEs, NEWS files, licences, markdown API docs) carry
structure that a paragraph splitter must not break:

* **Fenced code** (```` ``` ```` or ``~~~``, CommonMark rules: the closing fence
  uses the same character and is at least as long): blank lines and ``#`` lines
  inside a fence are code, not paragraph gaps or headings. An unclosed fence runs
  to the end of the text.
* **Lists and tables**: consecutive list-item paragraphs (``-``, ``*``, ``+``,
  ``1.``, ``1)``) and table rows (``|``) form one block.
* **Headings** and their level: ATX (``## Title``: the number of ``#``), setext
  (``Title`` underlined with ``===``: 1, ``---``: 2), numbered (``2.1 Title``: the
  number of parts); other heading-like lines have no level (``None``).

Everything here is pure and works on character offsets, so the callers keep the
text lossless.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .types import Unit

__all__ = [
    "chunk_heading_paths",
    "ends_with_break",
    "fence_spans",
    "heading_level",
    "heading_path",
    "heading_title",
    "is_list_block",
    "is_setext_underline",
    "is_table_block",
]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.M)
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NUMBERED = re.compile(r"^\s*(\d+(?:\.\d+)*)\.?\s+(\S.*)$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+\u2022]|\d{1,9}[.)])[ \t]+\S")
_TABLE_ROW = re.compile(r"^\s*\|")
_BREAK = re.compile(r"^\s*(?:[*#~=_-]\s*){3,}$")


def fence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced code block, from its opening line to the end of its closing line.

    ``end`` includes the closing fence's newline when there is one; an unclosed
    fence ends at the end of ``text``.
    """
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for match in _FENCE.finditer(text):
        marker = match.group(1)
        if opened is None:
            if marker[0] == "`" and "`" in match.group(2):
                continue  # an info string may not hold a backtick: this is inline code
            opened = (match.start(), marker)
        elif marker[0] == opened[1][0] and len(marker) >= len(opened[1]) and not match.group(2).strip():
            end = match.end()
            if end < len(text) and text[end] == "\r":
                end += 1
            if end < len(text) and text[end] == "\n":
                end += 1
            spans.append((opened[0], end))
            opened = None
    if opened is not None:
        spans.append((opened[0], len(text)))
    return spans


def is_setext_underline(line: str) -> bool:
    """True when ``line`` is a setext underline (``===`` or ``---``, nothing else)."""
    return bool(_SETEXT.match(line.rstrip("\r\n")))


def is_list_block(block: str) -> bool:
    """True when the paragraph ``block`` opens with a list item."""
    return bool(_LIST_ITEM.match(block.lstrip("\r\n")))


def is_table_block(block: str) -> bool:
    """True when every non-blank line of ``block`` is a table row (``| a | b |``)."""
    lines = [line for line in block.splitlines() if line.strip()]
    return bool(lines) and all(_TABLE_ROW.match(line) for line in lines)


def ends_with_break(text: str) -> bool:
    """True when ``text`` ends with a thematic or scene break (``* * *``, ``---``) on a line of its own.

    A ``---`` right under a text line is a setext underline, not a break.
    """
    lines = [line for line in text.rstrip().splitlines()]
    if not lines or not _BREAK.match(lines[-1]) or lines[-1].lstrip().startswith(("```", "~~~")):
        return False
    return len(lines) == 1 or not lines[-2].strip()


def heading_level(lines: Sequence[str]) -> int | None:
    """The level of the heading that opens ``lines`` (the first non-blank line), or ``None``.

    ATX: the number of ``#``; setext: 1 (``===``) or 2 (``---``); numbered
    (``2.1 Title``): the number of parts. Other heading-like lines: ``None``.
    """
    content = [line for line in lines if line.strip()]
    if not content:
        return None
    first = content[0].rstrip("\r\n")
    atx = _ATX.match(first)
    if atx:
        return len(atx.group(1))
    if len(content) > 1 and is_setext_underline(content[1]) and not _LIST_ITEM.match(first):
        return 1 if content[1].strip().startswith("=") else 2
    numbered = _NUMBERED.match(first)
    if numbered and len(numbered.group(2)) <= 80:
        return numbered.group(1).count(".") + 1
    return None


def heading_title(line: str) -> str:
    """The heading's text without ATX markers (``## Install ##`` gives ``Install``)."""
    atx = _ATX.match(line.rstrip("\r\n"))
    return (atx.group(2) if atx else line).strip()


def heading_path(stack: Sequence[tuple[int, str]], separator: str = "/") -> str:
    """LlamaIndex's ``header_path`` form: ``"/Intro/Install/"``, or ``"/"`` for no heading."""
    inner = separator.join(title for _, title in stack)
    return f"{separator}{inner}{separator}" if inner else separator


def chunk_heading_paths(units: Sequence[Unit], starts: Sequence[int], separator: str = "/") -> list[str]:
    """The ``header_path`` of each chunk that starts at a unit of ``starts`` (sorted).

    As LlamaIndex's ``MarkdownNodeParser`` writes it: the headings above the
    chunk, outermost first; a heading the chunk opens with is in its text, so only
    its ancestors are in the path. Headings of unknown level are left out.
    """
    paths: list[str] = []
    stack: list[tuple[int, str]] = []
    wanted = iter(starts)
    target = next(wanted, None)
    for index, unit in enumerate(units):
        level = heading_level(unit.text.splitlines()[:3]) if unit.heading else None
        if level is not None:
            while stack and stack[-1][0] >= level:
                stack.pop()
        while target == index:
            paths.append(heading_path(stack, separator))
            target = next(wanted, None)
        if level is not None:
            first = next(line for line in unit.text.splitlines() if line.strip())
            stack.append((level, heading_title(first)))
    return paths
