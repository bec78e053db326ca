"""Heading markup: markdown's ATX and setext, reStructuredText's underlines, a changelog's version line.

CommonMark's and reStructuredText's own rules, with no look at the lines around (:mod:`.lines` reads those).
"""

from __future__ import annotations

import re

__all__ = ["UNDERLINE_MARKS", "VERSION", "atx_heading", "is_markdown_heading", "is_setext_underline"]

#: An ATX heading's opening: up to three spaces, one to six ``#``, then a space, a tab or the line's end.
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
#: Setext underlines (``=``, ``-``) and reStructuredText's other common ones (``~`` from four on: three open a
#: code block; ``^``, ``"`` from three on; ``.``, ``*``, ``+``, ``:``, ``'`` from four on: colorama's README
#: underlines a subsection with dots; ``#`` from seven on, which no ATX heading has: Python's own documentation
#: frames a part's title with ``#`` lines above and below).
_SETEXT = re.compile(r'^ {0,3}(=+|-+|~{4,}|\^{3,}|"{3,}|\.{4,}|\*{4,}|\+{4,}|:{4,}|\'{4,}|#{7,})[ \t]*$')

#: The characters an underline (:data:`_SETEXT`) is made of: a line opening with none of them is none.
UNDERLINE_MARKS = frozenset("=-~^\".*+:'#")

#: A changelog's version line: ``1.26.12 (2022-08-22)``, ``Version 1.63.0 (2022-08-11)``, ``[1.2.0] - 2020-01-01``,
#: ``v2.0.0``, ``2.0.0rc1``, ``0.6.2 -- 2016-05-10`` (reStructuredText's ``--`` dash). A syntax rule
#: (keep-a-changelog, reStructuredText and Rust's forms), on no data split.
VERSION = re.compile(
    r"^(?:(?:Version|Release)\s+|v)?\[?v?\d{1,4}(?:\.\d{1,4}){1,3}(?:[-.+]?[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?\]?"
    r"(?:\s*(?:(?:--|[-\u2013\u2014:])\s*)?\(?(?:\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}|unreleased|yanked)\)?)?$",
    re.I,
)


def atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` of a markdown ATX heading line (``## Install ##`` gives ``(2, "Install")``), else None.

    CommonMark's rule, the one definition segmentation and the offline signature share: up to three
    spaces, one to six ``#``, then a space, a tab or the line's end; a closing ``#`` run counts only
    after a space (``## C#`` is ``C#``). The text may be empty (``##``).
    """
    line = line.rstrip("\r\n")
    opening = _ATX_OPEN.match(line) if "\n" not in line else None
    if opening is None:
        return None
    # The closing run is taken off by hand: as a lazy pattern (``(.*?)(?:[ \t]+#+)?[ \t]*$``) it scans a long
    # run of spaces once per character of the title.
    text = line[opening.end() :].rstrip(" \t")
    body = text.rstrip("#")
    if len(body) < len(text) and body[-1:] in (" ", "\t"):
        text = body
    return len(opening.group(1)), text.strip()


def is_setext_underline(line: str) -> bool:
    """True when ``line`` is a heading underline: ``===``, ``---``, reStructuredText's ``~~~~`` or ``^^^``."""
    if line.lstrip(" ")[:1] not in UNDERLINE_MARKS:
        return False  # (most lines: decided without the pattern)
    return bool(_SETEXT.match(line.rstrip("\r\n")))


def is_markdown_heading(line: str) -> bool:
    """An ATX heading with text (``## Usage``); a bare ``##`` is not one here."""
    atx = atx_heading(line) if "#" in line[:4] else None
    return bool(atx and atx[1])
