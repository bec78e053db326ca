"""A standard heading detector for plain text: markdown ATX and setext, reStructuredText, numbered legal sections.

The general-documents set (:mod:`.general`) makes its questions and gold spans
from these headings, and the contextual-chunk-header baseline
(:mod:`.baselines`) reads its heading path from them. It is deliberately the
ordinary detector a RAG pipeline would use (what markdown and rst parsers call
a heading), not this package's own structural detector.

What counts as a heading (outside fenced code blocks):

- ATX: ``# Title`` ... ``###### Title`` (up to three leading spaces); level = number of ``#``.
- Setext / rst: a non-blank line of at most 100 characters, after a blank line
  (or the document's start, or an overline), underlined by a run of one
  punctuation character (``= - ~ ^ " ' ` * + # : .``). ``=`` and ``-`` need at
  least three characters (markdown); any other character must be at least as long
  as the title (rst). Levels follow the order in which each underline style
  (character, with or without overline) first appears, as rst defines them.
- Numbered legal sections: ``1. Definitions.`` or ``1.1. "Contributor"`` at the
  start of a line (up to eight spaces of indent), where the title is at most
  eight words, every word of four or more letters is capitalised, and the title
  either ends the line or ends with a period followed by the section's text (as
  in the Apache licence's ``2. Grant of Copyright License. Subject to ...``).
  Level = the number's depth. Plain-text manuals rarely have any of these.

:func:`gold_headings` is the ground truth of ``bench-structure`` (:mod:`..structure`): every heading above, less
what a reader would not call one, plus the headings of plain-text manuals and changelogs. It is this benchmark's own
reader, written from the documents' layout and never from the package's heading reader, so that it can judge it:

- kept from :func:`detect_headings`: ATX, setext and reStructuredText titles (under- or overlined); numbered legal
  sections indented at most three spaces (the licences' ``   1. Definitions.``), unless the next line is another
  entry of a table of contents (a numbered line at the same indent, or deeper with a number that extends it).
  Deeper indented ones are list items or code.
- plain numbered: a line at column 0 (no space, tab or no-break space before it) after a blank line (or the
  document's start) that starts with a section number (``4.``, ``2.1.6.``, ``2.1.6``, ``A.``, ``A.1.``),
  optionally after ``Kapitel``/``Chapter``/``Anhang``/``Appendix``/``附录``, or is ``第 9 章 Title``; the title may
  wrap onto one more column-0 line that is neither numbered nor an underline, and a blank line (or the end) must
  follow. The title has a letter, at most 120 characters and 16 words; it does not end in ``. , ; :`` (a list
  item's sentence) nor start with markup (``1. **Run it**`` is a markdown list item). Level = the number's depth; a
  chapter (``Kapitel``, ``第 N 章``) is level 1. A table of contents (one numbered line after another, no blank
  between) therefore gives none; indented lines (code, shell comments and prompts, list items, wrapped body
  text, table rows) never do.
- changelog version: a column-0 line after a blank line and before a blank line or a list item, of a version
  (``1.2.3``, ``v1.2``, ``Version 1.75.0``, ``1.0.0rc1``) followed by a date (``(2023-04-26)``,
  ``(released 2023-04-26)``, ``- 2023-04-26``) or led by ``Version``/``Release``/``v``; level 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Heading", "clean_heading", "detect_headings", "gold_headings", "heading_path"]

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_UNDERLINE = re.compile(r"^([=\-~^\"'`*+#:.])\1*[ \t]*$")
_NUMBERED = re.compile(r"^[ \t]{0,8}(\d{1,2}(?:\.\d{1,2})*)\.[ \t]+(\S[^\n]*)$")
_MAX_TITLE_CHARS = 100
_MAX_LEGAL_WORDS = 8


@dataclass(frozen=True)
class Heading:
    """One heading: its level (1 = top), its raw title text, and where it lies.

    Attributes:
        level: 1 for the top level.
        title: The heading's text as written (markup kept; see :func:`clean_heading`).
        start: Offset of the heading's first character (its overline, if any).
        body_start: Offset just after the heading (after its underline, or after
            the title sentence of a run-in legal heading).
        kind: ``"atx"``, ``"setext"`` or ``"numbered"``; from :func:`gold_headings` also ``"plain"`` (a
            plain-text numbered heading) or ``"version"``.
    """

    level: int
    title: str
    start: int
    body_start: int
    kind: str


def _lines(text: str) -> list[tuple[int, str]]:
    """``(offset, line without its newline)`` for every line of ``text``."""
    out, offset = [], 0
    for line in text.splitlines(keepends=True):
        out.append((offset, line.rstrip("\r\n")))
        offset += len(line)
    return out


def _legal_title(rest: str) -> tuple[str, int] | None:
    """The title of a numbered legal section and its length in ``rest``, or ``None`` when it is not one."""
    match = re.match(r"([^.]{1,80}?)\.(?:\s|$)", rest)
    title = match.group(1) if match else rest.strip()
    length = match.end(1) + 1 if match else len(rest)
    if match is None and len(rest.split()) > _MAX_LEGAL_WORDS:
        return None
    words = title.split()
    if not words or len(words) > _MAX_LEGAL_WORDS or not re.match(r"[\"'A-Z]", title):
        return None
    bare = [w.strip("\"'()[],:;!?") for w in words]
    if any(len(w) >= 4 and w.isalpha() and not w[0].isupper() for w in bare):
        return None
    return title, length


def detect_headings(text: str) -> list[Heading]:
    """Every heading of ``text`` in document order (see the module docstring for what counts)."""
    lines = _lines(text)
    headings: list[Heading] = []
    styles: list[tuple[str, bool]] = []
    in_fence = False
    skip_until = -1
    for i, (offset, line) in enumerate(lines):
        if i <= skip_until:
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or not line.strip():
            continue
        end_of_line = offset + len(line)
        atx = _ATX.match(line)
        if atx:
            headings.append(Heading(len(atx.group(1)), atx.group(2), offset, end_of_line, "atx"))
            continue
        setext = _setext(lines, i, styles)
        if setext is not None:
            level, title_index, last_index = setext
            next_offset, next_line = lines[last_index]
            headings.append(
                Heading(level, lines[title_index][1].strip(), offset, next_offset + len(next_line), "setext")
            )
            skip_until = last_index
            continue
        numbered = _NUMBERED.match(line)
        if numbered and (i == 0 or not lines[i - 1][1].strip()):
            legal = _legal_title(numbered.group(2))
            if legal is not None:
                title, length = legal
                level = numbered.group(1).count(".") + 1
                body_start = offset + numbered.start(2) + length
                headings.append(Heading(level, title.strip(), offset, body_start, "numbered"))
    return headings


def _setext(lines: list[tuple[int, str]], i: int, styles: list[tuple[str, bool]]) -> tuple[int, int, int] | None:
    """When line ``i`` is a setext/rst title: ``(level, title line index, underline index)``; else ``None``.

    Line ``i`` may also be an rst overline, with the title on ``i + 1`` and the underline on ``i + 2``.
    """
    line = lines[i][1]
    prev_blank = i == 0 or not lines[i - 1][1].strip()
    overline = _UNDERLINE.match(line)
    if overline and prev_blank and i + 2 < len(lines):
        title, under = lines[i + 1][1], lines[i + 2][1]
        if title.strip() and under.strip() == line.strip() and len(line.strip()) >= len(title.strip()):
            return _level(styles, (line.strip()[0], True)), i + 1, i + 2
    if overline or not prev_blank or i + 1 >= len(lines) or len(line.strip()) > _MAX_TITLE_CHARS:
        return None
    under = lines[i + 1][1].strip()
    if not _UNDERLINE.match(under):
        return None
    char = under[0]
    long_enough = len(under) >= 3 if char in "=-" else len(under) >= len(line.strip())
    if not long_enough or line.startswith((" ", "\t")):
        return None
    return _level(styles, (char, False)), i, i + 1


def _level(styles: list[tuple[str, bool]], style: tuple[str, bool]) -> int:
    if style not in styles:
        styles.append(style)
    return styles.index(style) + 1


_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"<[^>]+>|[`*_]{1,3}|:[a-z]+:")


def clean_heading(title: str) -> str:
    """A heading as a question: images dropped, links to their text, markup and numbering dropped, no final period.

    ``"## [Install](x) `pip`"`` becomes ``"Install pip"``; ``"2. Grant of Copyright License"`` becomes
    ``"Grant of Copyright License"``.
    """
    text = _LINK.sub(r"\1", _IMAGE.sub("", title))
    text = _MARKUP.sub("", text)
    text = re.sub(r"^\s*(?:\d{1,2}(?:\.\d{1,2})*|[A-Z])\.\s+", "", text)
    text = text.replace('"', "").strip().rstrip(".:").strip()
    return re.sub(r"\s+", " ", text)


def heading_path(headings: list[Heading], offset: int) -> list[str]:
    """The cleaned titles of the headings enclosing ``offset`` (outermost first): document > section > subsection."""
    path: list[tuple[int, str]] = []
    for heading in headings:
        if heading.start > offset:
            break
        while path and path[-1][0] >= heading.level:
            path.pop()
        path.append((heading.level, clean_heading(heading.title)))
    return [title for _, title in path if title]


_PLAIN = re.compile(  # any space in a title line, no-break space included (the Chinese texts use it)
    r"^(?:(?:(?:Kapitel|Chapter|Anhang|Appendix)\s+)?"
    r"(?P<num>(?:\d{1,3}|[A-Z])(?:\.\d{1,3})*\.|\d{1,3}(?:\.\d{1,3})+)"
    r"|第\s*(?P<chapter>\d{1,3})\s*章)\s+(?P<title>\S.*)$"
)
_VERSION = re.compile(
    r"^(?:(?:Version|Release)[ \t]+v?|v)?\d+\.\d+(?:\.\d+)*(?:[-.]?(?:a|b|rc|dev|post)\d*)?"
    r"(?P<date>[ \t]+(?:\((?:released )?\d{4}-\d{2}-\d{2}\)|-[ \t]+\d{4}-\d{2}-\d{2}|\d{4}-\d{2}-\d{2}))?[ \t]*$"
)
_IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]")
_MAX_PLAIN_CHARS = 120
_MAX_PLAIN_WORDS = 16


def _blank(lines: list[tuple[int, str]], i: int) -> bool:
    """Whether line ``i`` is blank, or outside the document (before its start, after its end)."""
    return i < 0 or i >= len(lines) or not lines[i][1].strip()


def _plain(lines: list[tuple[int, str]], i: int) -> Heading | None:
    """A plain-text numbered heading or a changelog version starting at line ``i``, else ``None``."""
    offset, line = lines[i]
    if not _blank(lines, i - 1) or line[:1].isspace() or not line:
        return None
    version = _VERSION.match(line)
    if version and (version.group("date") or line.startswith(("Version", "Release", "v"))):
        following = lines[i + 1][1] if i + 1 < len(lines) else ""
        if not following.strip() or _LIST_ITEM.match(following):
            return Heading(1, line.strip(), offset, offset + len(line), "version")
        return None
    match = _PLAIN.match(line)
    if match is None:
        return None
    last = i
    below = "" if _blank(lines, i + 1) else lines[i + 1][1]
    if below and not below[:1].isspace() and not _PLAIN.match(below) and not _UNDERLINE.match(below):
        last = i + 1  # the title wraps onto one more line (an underline is no part of it: a setext title)
    if not _blank(lines, last + 1):
        return None
    title = line.strip()
    if last > i:  # a wrapped title: Chinese lines join without a space
        more = lines[last][1].strip()
        title += ("" if _IDEOGRAPH.match(title[-1]) and _IDEOGRAPH.match(more[0]) else " ") + more
    words = match.group("title") + (" " + lines[last][1] if last > i else "")
    if len(title) > _MAX_PLAIN_CHARS or len(words.split()) > _MAX_PLAIN_WORDS or title.endswith((".", ",", ";", ":")):
        return None
    if not any(c.isalpha() for c in match.group("title")) or match.group("title")[0] in "*_`[":
        return None
    number = match.group("num")
    chapter = match.group("chapter") is not None or line.startswith(
        ("Kapitel", "Chapter", "Anhang", "Appendix", "附录")
    )
    level = 1 if chapter or number is None else number.rstrip(".").count(".") + 1
    end_offset, end_line = lines[last]
    return Heading(level, title, offset, end_offset + len(end_line), "plain")


def _toc_entry(lines: list[tuple[int, str]], row: int, indent: int) -> bool:
    """Whether numbered line ``row`` is followed by another entry of a table of contents.

    That is a numbered line right below it at the same indent, or deeper with a number that extends this one's
    (``1.`` then ``    1.1.``); a deeper list numbered afresh (``4. Limitations.`` then ``  1. No ...``) is a body.
    """
    following = "" if _blank(lines, row + 1) else lines[row + 1][1]
    below, this = _NUMBERED.match(following), _NUMBERED.match(lines[row][1])
    if below is None or this is None:
        return False
    deeper = len(following) - len(following.lstrip())
    return deeper == indent or (deeper > indent and below.group(1).startswith(this.group(1) + "."))


def gold_headings(text: str) -> list[Heading]:
    """The benchmark's ground-truth headings of ``text`` in document order (rules in the module docstring)."""
    lines = _lines(text)
    out: dict[int, Heading] = {}
    in_fence = False
    for i, (offset, line) in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (heading := _plain(lines, i)) is not None:
            out[offset] = heading
    starts = {offset: i for i, (offset, _) in enumerate(lines)}
    for heading in detect_headings(text):
        row = starts.get(heading.start)
        if heading.start in out or any(h.start < heading.start < h.body_start for h in out.values()):
            continue
        if heading.kind == "numbered" and row is not None:
            indent = len(lines[row][1]) - len(lines[row][1].lstrip())
            if indent > 3 or _toc_entry(lines, row, indent):
                continue
        out[heading.start] = heading
    return [out[start] for start in sorted(out)]
