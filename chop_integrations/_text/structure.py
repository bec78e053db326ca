"""Markdown-like block structure that segmentation keeps whole: fences, lists, tables; where a block may be cut.

Plain-text documents (READMEs, NEWS files, licences, markdown API docs) carry
structure that a paragraph splitter must not break:

* **Fenced code** (```` ``` ```` or ``~~~``, CommonMark rules: the closing fence
  uses the same character and is at least as long): blank lines and ``#`` lines
  inside a fence are code, not paragraph gaps or headings. An unclosed fence runs
  to the end of the text.
* **Lists and tables**: consecutive list-item paragraphs (``-``, ``*``, ``+``,
  ``1.``, ``1)``) and table rows (``|``) form one block.
* **Headings** live in :mod:`chop_integrations._text.headings`.
* **Sentences, lines, clauses and words** (:func:`sentence_spans`, :func:`line_spans`,
  :func:`clause_spans`, :func:`word_spans`): where an over-long block may be cut, strongest
  first. A period after an abbreviation (``Dr.``, ``No.``, ``Fig.``, ``U.S.``, ``e.g.``, any
  case) or an initial, or before a lower-case word, ends no sentence; decimals hold no space.
  A small rule set rather than a library: NLTK's Punkt needs a model download, which an
  offline default cannot do.

Everything here is pure and works on character offsets, so the callers keep the
text lossless.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

__all__ = [
    "IDEOGRAPHS",
    "FenceState",
    "clause_or_line_spans",
    "clause_spans",
    "ends_with_break",
    "fence_spans",
    "inner_spans",
    "inside_any",
    "is_ideograph",
    "is_list_block",
    "is_table_block",
    "last_visible",
    "line_or_cjk_mark_spans",
    "line_spans",
    "sentence_spans",
    "word_spans",
]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.M)
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+\u2022]|\d{1,9}[.)])[ \t]+\S")
_TABLE_ROW = re.compile(r"^\s*\|")
_BREAK = re.compile(r"^\s*(?:[*#~=_-]\s*){3,}$")
# Sentence ends: Latin punctuation followed by whitespace, CJK punctuation (line ends are a later resort).
# A run of marks is found first and what must follow it is matched after it: one pattern for both would be
# tried at every mark of a long run (``!!!!...``) and scan the run each time.
_MARK_RUN = re.compile(r"[.!?\u2026]+|[\u3002\uff01\uff1f\uff61]+")
_LATIN_TAIL = re.compile(r"[\"'\u2019\u201d)\]]*\s+")
_CJK_TAIL = re.compile(r"[\"'\u2019\u201d\u300d\u300f\uff09)\]]*\s*")
_LINE_END = re.compile(r"\n[^\S\r\n]*")
# Clause ends: Latin ``, ; :`` followed by whitespace (so ``3,5``, ``12:30`` and ``http://`` hold), CJK
# ``，；：、`` (and their half-width forms) with or without it; the closing quotes and the space after stay.
_CLAUSE_END = re.compile(
    r"[,;:][\"'\u2019\u201d)\]]*\s+|[\uff0c\uff1b\uff1a\u3001\uff64][\"'\u2019\u201d\u300d\u300f\uff09)\]]*\s*"
)
#: Ideographs, kana and hangul, as the body of a regex character class: scripts written without spaces between words.
IDEOGRAPHS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")
# Word ends: a run of whitespace, or the edge between a run of ideographs and other text (CJK marks excepted).
_NOT_IDEOGRAPH = rf"[^\s{IDEOGRAPHS}\u3000-\u303f\uff00-\uffef]"
_WORD_END = re.compile(rf"\s+|(?<=[{IDEOGRAPHS}])(?={_NOT_IDEOGRAPH})|(?<={_NOT_IDEOGRAPH})(?=[{IDEOGRAPHS}])")
# CJK sentence and clause marks with the closing quotes after them: where a wrapped Chinese list item may be cut.
_CJK_MARK = re.compile(
    r"[\u3002\uff01\uff1f\uff61\uff0c\uff1b\uff1a\u3001\uff64][\"'\u2019\u201d\u300d\u300f\uff09)\]]*"
)
# Punctuation inside a word where one over the limit may still be cut: a URL's ``/``, a path's ``.``, a query's ``&``.
_INNER_END = re.compile(r"[/.\-_?&=#:]+")
# The word (with inner periods, as in ``e.g``, ``U.S``) that ends just before a period.
_WORD_BEFORE = re.compile(r"(?:^|[^\w.])([\w.]*\w)\.$")
#: Abbreviations after which a period ends no sentence (compared in lower case).
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof sr jr st no nos fig figs eq eqs vol pp p ch sec art ref refs approx ca cf vs etc "
    "al e.g i.e u.s u.k inc ltd co corp dept est jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def is_ideograph(char: str) -> bool:
    """True for an ideograph, kana or hangul syllable (:data:`IDEOGRAPHS`)."""
    return _IDEOGRAPH.match(char) is not None


def fence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced code block, from its opening line to the end of its closing line.

    ``end`` includes the closing fence's newline when there is one; an unclosed
    fence ends at the end of ``text``.
    """
    spans: list[tuple[int, int]] = []
    if "```" not in text and "~~~" not in text:
        return spans  # (most texts: the pattern would be tried at every character)
    opened: tuple[int, str] | None = None
    for match in _FENCE.finditer(text):
        marker = match.group(1)
        if opened is None:
            if marker[0] == "`" and "`" in match.group(2):
                continue  # an info string may not hold a backtick: this is inline code
            start = match.start()
            above = text[text.rfind("\n", 0, max(start - 1, 0)) + 1 : start - 1] if start else None
            if _is_underline(marker, match.group(2), above):
                continue
            opened = (start, marker)
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


def inside_any(spans: Sequence[tuple[int, int]], pos: int) -> bool:
    """True when ``pos`` lies strictly inside one of ``spans`` (sorted, disjoint).

    A binary search, so checking every gap of a text against its fences stays linear in their number.
    """
    i = bisect.bisect_left(spans, (pos,)) - 1  # (pos,) sorts before every (pos, end): spans starting before pos
    return i >= 0 and pos < spans[i][1]


def _is_underline(marker: str, info: str, above: str | None) -> bool:
    """True for a reStructuredText underline, not a fence: four or more ``~`` right under a line no longer than them.

    ``Latest release`` over ``~~~~~~~~~~~~~~`` heads a section in tqdm's and scikit-learn's READMEs. A markdown
    fence is mostly three ``~`` after a blank line; one of four or more right under a paragraph line no longer
    than it is rare enough to lose.
    """
    title = (above or "").strip()
    if marker[0] != "~" or len(marker) < 4 or info.strip() or not title or _FENCE.match(title):
        return False
    return len(title) <= len(marker)


class FenceState:
    """Which lines are fenced code, read one line at a time (the rules of :func:`fence_spans`).

    For readers that walk a text line by line, or receive it in pieces, and must not take a
    ``# comment`` inside a code block for a heading.
    """

    def __init__(self) -> None:
        self.marker: str | None = None  # the open fence's marker (```` ``` ````, ``~~~~``), None outside
        self._above: str | None = None  # the line before the next one

    def step(self, line: str) -> bool:
        """Read the next line (its line end may be included); True when it is part of a fenced block."""
        line = line.rstrip("\r\n")
        above, self._above = self._above, line
        if self.marker is None and not line.lstrip(" ").startswith(("`", "~")):
            return False  # (most lines: no need for the pattern)
        match = _FENCE.match(line)
        if self.marker is None:
            if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
                return False
            if _is_underline(match.group(1), match.group(2), above):
                return False
            self.marker = match.group(1)
            return True
        if (
            match is not None
            and match.group(1)[0] == self.marker[0]
            and len(match.group(1)) >= len(self.marker)
            and not match.group(2).strip()
        ):
            self.marker = None
        return True


def is_list_block(block: str) -> bool:
    """True when the paragraph ``block`` opens with a list item."""
    return bool(_LIST_ITEM.match(block.lstrip("\r\n")))


def is_table_block(block: str) -> bool:
    """True when every non-blank line of ``block`` is a table row (``| a | b |``)."""
    if not _TABLE_ROW.match(block.lstrip()):
        return False  # its first non-blank line is no row: most blocks, decided without reading their lines
    lines = [line for line in block.splitlines() if line.strip()]
    return bool(lines) and all(_TABLE_ROW.match(line) for line in lines)


def ends_with_break(text: str) -> bool:
    """True when ``text`` ends with a thematic or scene break (``* * *``, ``---``) on a line of its own.

    A ``---`` right under a text line is a setext underline, not a break.
    """
    stripped = text.rstrip()
    if stripped[-1:] not in ("*", "#", "~", "=", "_", "-"):
        return False  # (most texts: a break line ends with one of its marks)
    lines = stripped.splitlines()
    if not lines or not _BREAK.match(lines[-1]) or lines[-1].lstrip().startswith(("```", "~~~")):
        return False
    return len(lines) == 1 or not lines[-2].strip()


def last_visible(text: str, pos: int) -> int:
    """Index of the last character before ``pos`` that is not white space (0 when there is none).

    Read in windows that grow fourfold, each stripped at C speed: a long run of white space costs
    time in proportion to its length, not a step of Python per character. Each call reads the whole
    run before ``pos`` again, so a caller asks only where the answer matters (before an ideograph),
    not at every line of a run: lines holding only white space would cost quadratic time.
    """
    lo, kept, width = pos, 0, 64
    while lo > 0 and not kept:
        lo = max(0, pos - width)
        kept = len(text[lo:pos].rstrip())
        width *= 4
    return max(lo + kept - 1, 0)


def sentence_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield sentence spans covering ``text[start:end]``; trailing whitespace stays with each.

    A period after an abbreviation (``Dr.``, ``Fig.``, ``e.g.``, ``U.S.``, any case) or an
    initial, or followed by a lower-case word, ends no sentence; decimals hold no space.
    """
    cursor = start
    for mark, after in _sentence_ends(text, start, end):
        if after <= cursor or after >= end or not _real_end(text, mark, after):
            continue
        yield cursor, after
        cursor = after
    yield cursor, end


def _sentence_ends(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``(mark, after)`` of each run of sentence marks in ``text[start:end]`` with the quotes and space after it.

    A Latin run needs whitespace after it (its closing quotes between), a CJK run does not.
    """
    pos = start
    while (run := _MARK_RUN.search(text, pos, end)) is not None:
        tail = (_LATIN_TAIL if text[run.start()] in ".!?\u2026" else _CJK_TAIL).match(text, run.end(), end)
        if tail is not None:
            yield run.start(), tail.end()
        pos = tail.end() if tail is not None else run.end()


def _real_end(text: str, mark: int, after: int) -> bool:
    """True when the punctuation at ``mark`` ends a sentence (see :func:`_sentences`)."""
    if text[mark] != ".":
        return True
    if after < len(text) and text[after].islower():
        return False
    word = _WORD_BEFORE.search(text, max(0, mark - 24), mark + 1)
    if word is None:
        return True
    token = word.group(1).lower()
    return token not in _ABBREVIATIONS and not (len(token) == 1 and token.isalpha())


def clause_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield clause spans covering ``text[start:end]``, cut after ``, ; :`` and ``，；：、``.

    A Latin mark needs whitespace after it (``3,5``, ``12:30`` and ``http://`` stay whole); the
    whitespace and closing quotes after a mark stay with its clause.
    """
    yield from _spans_ending(_CLAUSE_END, text, start, end)


def clause_or_line_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield spans covering ``text[start:end]``, cut after clause punctuation and at line ends, whichever comes."""
    yield from _union(start, clause_spans(text, start, end), line_spans(text, start, end))


def line_or_cjk_mark_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield line spans covering ``text[start:end]``, also cut after CJK sentence and clause marks (``。，；：、！？``).

    A list or table is cut at its line ends; a list item of Chinese text wraps between two ideographs, so its own
    marks are the better cuts. Latin text holds none of them: its lines are cut as :func:`line_spans` cuts them.
    """
    yield from _union(start, _spans_ending(_CJK_MARK, text, start, end), line_spans(text, start, end))


def _union(start: int, *spans: Iterator[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Spans from ``start`` cut at every end of every one of ``spans`` (each covering the same text)."""
    cursor = start
    for cut in sorted({e for each in spans for _, e in each}):
        if cursor < cut:
            yield cursor, cut
            cursor = cut


def word_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield word spans covering ``text[start:end]``: cut after whitespace and at the edges of ideograph runs.

    ``使用RecursiveCharacterTextSplitter进行`` gives ``使用``, ``RecursiveCharacterTextSplitter``,
    ``进行``: a Latin word inside CJK text stays whole, and no cut falls between two ideographs.
    """
    yield from _spans_ending(_WORD_END, text, start, end)


def inner_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield spans covering ``text[start:end]``, cut after each run of ``/ . - _ ? & = # :`` (a URL, path or hex id).

    For a single word longer than the limit: ``https://x.org/a?b=1`` gives ``https://``, ``x.``, ``org/``,
    ``a?``, ``b=``, ``1``, so it is cut at its own punctuation before it is cut between two letters.
    """
    yield from _spans_ending(_INNER_END, text, start, end)


def _spans_ending(pattern: re.Pattern[str], text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Spans covering ``text[start:end]``, each ending where a match of ``pattern`` ends."""
    cursor = start
    for match in pattern.finditer(text, start, end):
        if cursor < match.end() < end:
            yield cursor, match.end()
            cursor = match.end()
    yield cursor, end


def line_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield line spans covering ``text[start:end]``; each line keeps its line break."""
    yield from _spans_ending(_LINE_END, text, start, end)
