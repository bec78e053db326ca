"""The heading path of a document: which lines head its sections, and the path at each of them.

A signature's nouns are the heading path of the section a chunk opens in (:class:`Headings`).
Headings are their words, not their markup (:func:`heading_title`). A document with markdown
(``## Title``) or underlined (setext, reStructuredText) headings is read by those alone
(:func:`marked_heading`); any other document by its heading-like lines
(:func:`section_title`). Fenced and indented code is never a heading. The stream's
:class:`~chop_integrations._text.headings.stream.HeadingStream` reads the same, line by line.
"""

from __future__ import annotations

import bisect
import functools
import re

from .labels import innermost
from .lines import (
    MAX_HEADING_CHARS,
    NUMBER_LABEL,
    NUMBERED,
    SURE_HEADING,
    atx_heading,
    columns,
    continues_line,
    is_heading_line,
    is_title_tail,
    title_case,
    wrapped_question,
    wrapped_title,
)
from .markup import UNDERLINE_MARKS
from .textlines import Lines, adornment
from .titles import DOC_TYPES, DOC_WORDS, heading_title, is_doc_words

__all__ = [
    "DOC_TYPES",
    "DOC_WORDS",
    "OPENING_CHARS",
    "HeadingLevels",
    "Headings",
    "adornment",
    "clause_title",
    "continues",
    "has_marked_headings",
    "heading_title",
    "is_doc_words",
    "marked_heading",
    "overlined",
    "runs_on",
    "section_title",
]

#: A numbered clause whose title runs into its text: a clause number (``3.``, ``2.1``, ``2.1.``; not a year), a title
#: that starts with a capital letter and has no sentence mark of its own, its full stop, then the text
#: (``3. Grant of Patent License. Subject to ...``). A syntax rule, chosen on no data split.
_RUN_IN = re.compile(r"^((?:\d{1,3}\.)+\d{0,3}\s+[A-Z][^.!?;:]{0,58}[^\s.!?;:])\.\s+\S")


def clause_title(line: str) -> bool:
    """True for a numbered clause's title in title case ending its line with a full stop (``4. Limitations.``).

    Over an indented body (``     1. No trademark ...``) it heads that body; a numbered step is no title case.
    """
    return line[-1] == "." and NUMBER_LABEL.match(line) is not None and title_case(line) and is_heading_line(line, None)


#: How many ``(line, following, hanging)`` answers of :func:`section_title` are kept: a family's manuals (a
#: phone's models, a product line) repeat most heading lines and the body lines under them word for word, so
#: one run reads each such pair once (on the 30 manuals, about 1,400 pairs of 15,700 looked at).
_TITLES = 4096
#: Only pairs of at most this many characters are kept, so the memory stays small whatever the lines' length.
_TITLE_KEY_CHARS = 512

#: The marks that end a question (:func:`~.lines.wrapped_question`).
_QUESTION_MARKS = frozenset("?!\uff1f\uff01")

#: A line that opens with a link, a path or an address (``support.example.com/...``, ``mail@x``) continues no sentence.
_LINK = re.compile(r"^\S*[/@]")


def section_title(line: str, following: str | None, *, hanging: bool = False) -> str:
    """The title of a plain-text heading line (no markdown), or ``""`` when the line heads no section.

    ``following`` is the next line of its block (None when it stands alone). A line naming the document's type
    ("User Manual" under the title) heads no section, nor does a line the next one continues
    (a hard-wrapped sentence, as segmentation reads it: :func:`continues_line`), unless it opens with a numbered
    clause's run-in title, which is then the title (``3. Grant of Patent License. Subject to the terms`` / ``and
    conditions ...`` -> ``3. Grant of Patent License``; in title case, however its text wraps), or is a numbered
    title wrapped onto a short last line (:func:`~.lines.wrapped_title`) or a numbered question wrapped onto its
    second line (:func:`~.lines.wrapped_question`). ``hanging``: the next line is indented and this one is not, so
    it is a body (a definition's ``means ...`` under ``1.1. Contributor``), never a continuation; nor is a next
    line that opens with a link or a path. Over an indented body, a numbered clause's title ending with its full
    stop heads it (:func:`clause_title`).
    Shared by :class:`Headings` and the stream's :class:`~chop_integrations._text.headings.stream.HeadingStream`;
    the answers for short pairs are kept (:data:`_TITLES`, :data:`_TITLE_KEY_CHARS`).
    """
    if len(line) + len(following or "") <= _TITLE_KEY_CHARS:
        return _kept_title(line, following, hanging)
    return _title(line, following, hanging)


def _title(line: str, following: str | None, hanging: bool) -> str:
    if hanging and clause_title(line):
        return heading_title(line)
    if following is not None and following[:1] in UNDERLINE_MARKS and adornment(following):
        following = None  # an underlined title (a text read by its heading-like lines): the underline is no body
    # (A wrapped question ends its second line with its mark, a run-in title opens with a number: cheap looks first.)
    question = ""
    if following is not None and not hanging and following[-1:] in _QUESTION_MARKS:
        question = wrapped_question(line, following)
    run_in = _RUN_IN.match(line) if following is not None and not question and line[:1].isdigit() else None
    if question:
        title = heading_title(question)  # an FAQ's question, wrapped whatever its words (before a run-in title)
    elif run_in is not None and title_case(run_in.group(1)):
        title = heading_title(run_in.group(1))  # a clause's title case says heading, however its text wraps
    elif following is not None and not hanging and continues_line(line, following) and not _LINK.match(following):
        title = heading_title(run_in.group(1) if run_in else wrapped_title(line, following))
    else:
        title = heading_title(line) if is_heading_line(line, following) else ""
        if not title and following is not None and not hanging:
            title = heading_title(wrapped_title(line, following))
    return title if title and not is_doc_words(title) else ""


_kept_title = functools.lru_cache(maxsize=_TITLES)(_title)


#: A line this long (characters, stripped) with no sentence end runs on into the next (:func:`runs_on`): half a
#: common wrap width. A syntax rule, chosen on no data split.
_RUNS_ON_CHARS = 40
_RUNS_ON_SPACES = 4
_RUNS_ON_WIDE = 10
_SENTENCE_ENDS = frozenset(".!?:;\u2026\u3002\uff01\uff1f\uff1a\uff1b")

#: Marks a heading-like line never ends with (some of :func:`~.lines.is_heading_line`'s sentence ends).
_NO_HEADING_ENDS = frozenset(".!?:;,\u3002")


def marked_heading(line: str, following: str | None, *, opens_block: bool, above: str) -> tuple[str, str] | None:
    """A markdown (``## Title``) or setext/reStructuredText (``Title`` over ``=====``) heading: ``(style, title)``.

    ``line`` and ``following`` (the next line of its block; None when a blank line or the end
    comes next) are stripped lines outside fenced code; ``above`` is the adornment character of
    the line just above (``""`` if none, or a blank line between). ``style`` is the ``#`` run of
    a markdown heading, else the underline's character, with ``"/"`` added when the same
    character overlines the title. An underlined title must open its block, hold a word and, past
    :data:`MAX_HEADING_CHARS`, be underlined as long (reStructuredText's rule); a markdown heading of markup
    alone (a badge row) is still a marked line, with title ``""``.
    None for any other line. Shared by :class:`Headings` and the stream's ``HeadingStream``.
    """
    atx = atx_heading(line) if line[:1] == "#" else None
    if atx and atx[1]:
        return "#" * atx[0], heading_title(atx[1], numbers=True)
    char = adornment(following or "")
    long = len(line) > MAX_HEADING_CHARS and len((following or "").strip()) < len(line)  # rST: as long as its title
    if not char or not opens_block or adornment(line) or long:
        return None
    title = heading_title(line)
    return (char + "/" if above == char else char, title) if title else None


def continues(above: str, following: str | None, line: str) -> bool:
    """True when ``line``, below ``above`` (a line of its block that is no heading), heads no section.

    That is the next line of a wrapped one (:func:`runs_on`), or a block's last line (``following`` None): a heading
    has its body below it, and a last line has none in its block. Only a sure heading (:data:`~.lines.SURE_HEADING`:
    a numbered title, a chapter, a version) glued under a sentence heads one there (``2. Toner`` after ``... tray.``,
    where a splitter dropped the blank line); a list's last item (``Alarm``), a form's last label (``SUBMIT``), a
    cross-reference's title left on its own line (``see .`` / ``Location``) or a chat's last turn does not.
    """
    if runs_on(above):
        return True
    if following is not None:
        return False
    return above[-1] not in _SENTENCE_ENDS or not SURE_HEADING.match(line) or not is_heading_line(line, above)


def runs_on(line: str) -> bool:
    """True when the next line of the block continues ``line``: a long line of words with no sentence end (wrapped).

    Long in columns (a CJK character fills two); words are five or more, or ten wide characters (CJK has no spaces).

    A web address or a path alone on its line (``example.com/support/...``) runs on into nothing.

    A line after it heads no section (GPL-3's ``7.  This requirement modifies ...`` is the middle of a clause).
    """
    if line[-1] in _SENTENCE_ENDS or columns(line) < _RUNS_ON_CHARS:
        return False
    return line.count(" ") >= _RUNS_ON_SPACES or columns(line) - len(line) >= _RUNS_ON_WIDE  # words, or CJK prose


class HeadingLevels:
    """The levels of a document read by its marked headings, one line at a time, in order.

    A markdown heading's level is its number of ``#``; underline styles rank in order of first use
    (reStructuredText fixes no order). Below a marked heading that is numbered (``3. Responsibilities`` over
    ``-----``), a plain heading line that continues its numbering (``3.1. Distribution of Source Form``) is a
    subsection, one level deeper per added number: licences and specifications underline their articles and
    number the rest. Another numbered clause opening its block with a title-case title, run in or ending its line
    with a full stop over an indented body, is a section below.
    """

    def __init__(self) -> None:
        self.styles: dict[str, int] = {}
        self._numbered: tuple[str, int] | None = None  # the last marked heading's number and level, if numbered
        self._level = 0  # the last marked heading's level (0 before the first)

    def of(self, style: str) -> int:
        """The level of a :func:`marked_heading` style."""
        if style.startswith("#"):
            return len(style)
        return self.styles.setdefault(style, len(self.styles) + 1)

    def heading(
        self, line: str, following: str | None, *, opens_block: bool, above: str, hanging: bool = False
    ) -> tuple[int, str] | None:
        """``(level, title)`` when the line (not code) heads a section.

        Arguments as :func:`marked_heading`; ``hanging`` as :func:`section_title`.
        """
        marked = marked_heading(line, following, opens_block=opens_block, above=above)
        if marked is not None:
            if not marked[1]:
                return None  # a heading of markup alone (a badge row) is no section
            level = self.of(marked[0])
            number = NUMBERED.match(marked[1])
            self._numbered, self._level = ((number.group(1), level) if number else None), level
            return level, marked[1]
        if not line[:1].isdigit():
            return None
        parent, level = self._numbered or ("", 0)
        number = NUMBERED.match(line)
        if self._numbered is None or number is None or not number.group(1).startswith(parent + "."):
            # A licence's clause under a marked title: its title runs in (CC0's ``1. Copyright and Related Rights. A
            # Work ...``) or ends its line with a full stop over an indented body (``4. Limitations and Disclaimers.``).
            if not (opens_block and self._level):
                return None
            run_in = _RUN_IN.match(line) if following is not None else None
            if run_in is not None:
                return (self._level + 1, heading_title(run_in[1])) if title_case(run_in[1]) else None
            alone = (following is None or hanging) and clause_title(line)
            return (self._level + 1, heading_title(line)) if alone else None
        title = section_title(line, following, hanging=hanging)
        return (level + number.group(1).count(".") - parent.count("."), title) if title else None


#: How much of a text's opening decides how its headings are read (:attr:`Headings.marked`): the same choice for a
#: whole text and for a stream, which must make it before the rest arrives.
OPENING_CHARS = 4000


def has_marked_headings(text: str) -> bool:
    """True when ``text`` has a markdown or underlined heading outside fenced code (:func:`marked_heading`)."""
    return _has_marked(Lines(text))


def _has_marked(lines: Lines, upto: int | None = None) -> bool:
    """True when a line of ``lines`` (of the first ``upto``, if given) is a marked heading."""
    texts, fenced, indented = lines.texts, lines.fenced, lines.indented
    below = [*texts[1:], " "]
    for k in [k for k, line in enumerate(texts[:upto]) if line[0] == "#" or below[k][0] in UNDERLINE_MARKS]:
        if fenced[k] or indented[k]:
            continue  # (most lines are neither a "#" line nor above an underline: not looked at)
        following, opens_block, above = lines.context(k)
        if marked_heading(texts[k], following, opens_block=opens_block, above=above) is not None:
            return True
    return False


def _outline(lines: Lines) -> list[tuple[int, int, str]]:
    """``(offset, level, title)`` of the headings of a document read by its marked ones (:class:`HeadingLevels`)."""
    levels, entries, texts = HeadingLevels(), [], lines.texts
    below = [*texts[1:], " "]
    # Only a "#" line, a numbered one or one above an underline can head a section (HeadingLevels.heading reads no
    # other line, nor changes its state for one): the others are not looked at.
    looked = [
        k
        for k, line in enumerate(texts)
        if line[0] == "#" or line[0].isdigit() or (below[k][0] in UNDERLINE_MARKS and adornment(below[k]))
    ]
    for k in looked:
        line = texts[k]
        if not (lines.fenced[k] or lines.indented[k]):
            following, opens_block, above = lines.context(k)
            hanging = lines.hanging(k)
            heading = levels.heading(line, following, opens_block=opens_block, above=above, hanging=hanging)
            if heading is not None:
                over = overlined(line, above, following) and not lines.fenced[k - 1]
                entries.append((lines.offsets[k - 1] if over else lines.offsets[k], *heading))
    return entries


def _may_head(lines: Lines) -> list[int]:
    """The lines :func:`section_title` may find a title in, by a cheap look (a few of a document's lines).

    A title needs a heading-like line (short, ending no sentence, not in lower case but for a version's ``v``
    or ``release``), a markdown ``#``, or a number label (a clause's run-in title, a wrapped numbered title); an
    underlined title may run long.
    """
    texts, alone = lines.texts, lines.alone
    below = [*texts[1:], " "]
    return [
        k
        for k, line in enumerate(texts)
        if (
            len(line) <= MAX_HEADING_CHARS
            and line[-1] not in _NO_HEADING_ENDS
            and (not line[0].islower() or line[0] in "vr")
        )
        or line[0] == "#"
        or (below[k][0] in UNDERLINE_MARKS and not alone[k] and adornment(below[k]))
        or ((line[0] in _LABEL_FIRST or line[1:2] == "." or line[0].isdigit()) and NUMBER_LABEL.match(line) is not None)
    ]


#: What a :data:`~.lines.NUMBER_LABEL` may open with besides a digit or a letter before a full stop (``A.``): a
#: bracket, a Roman numeral, a chapter word (``Kapitel``, ``Chapter``, ``Abschnitt``, ``Section``, ``Part``, ``Teil``,
#: ``Anhang``, ``Appendix``), ``第``. A cheap look before the pattern (most lines open with none).
_LABEL_FIRST = frozenset("(IVXLCKASPT\u7b2c")


def overlined(line: str, above: str, following: str | None) -> bool:
    """True when a title's underline repeats the adornment just above it: the heading starts at that overline."""
    return bool(above) and line[:1] != "#" and above == adornment(following or "")


class Headings:
    """A document's headings, and the heading path at each of them, for quick look-ups.

    A text whose opening (its first :data:`OPENING_CHARS`) has a marked heading is read by its marked headings:
    markdown headings and underlined ones (setext, reStructuredText: ``Title`` over ``=====``)
    carry their level and the path is the usual stack (``#`` > ``##``; underline styles rank
    in order of first use, :class:`HeadingLevels`). In a text without them, every heading-like line
    (:func:`~chop_integrations._text.headings.lines.is_heading_line`) counts, and a run of
    consecutive ones with no body between (chapter, section, subsection) is one path,
    outermost first. Lines of a fenced code block are code, never headings (a README's
    ``# 1. Load a model`` inside a Python example heads no section).
    """

    def __init__(self, text: str, *, markdown: bool | None = None) -> None:
        """Read ``text``; ``markdown`` gives the choice of reading (see :class:`~.stream.HeadingStream`), else read."""
        self.text = text
        self.offsets: list[int] = []
        self.blocks: list[int] = []
        self.paths: list[tuple[str, ...]] = []
        lines = Lines(text)
        if markdown is None:
            markdown = _has_marked(lines) if len(text) <= OPENING_CHARS else has_marked_headings(text[:OPENING_CHARS])
        self.marked = markdown
        if self.marked:
            self._stack(_outline(lines))
        else:
            self._runs(lines)

    def _stack(self, marked: list[tuple[int, int, str]]) -> None:
        stack: list[tuple[int, str]] = []
        for number, (offset, level, title) in enumerate(marked):
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            self.offsets.append(offset)
            self.blocks.append(number)
            self.paths.append(tuple(t for _, t in stack))

    def _runs(self, lines: Lines) -> None:
        block, previous = -1, -2
        texts, alone, fenced, indented = lines.texts, lines.alone, lines.fenced, lines.indented
        last = len(texts) - 1
        for k in _may_head(lines):
            line = texts[k]
            following = None if alone[k] or k == last else texts[k + 1]
            inside = k > 0 and not alone[k - 1] and previous != k - 1  # below a line of its block, not a heading
            code = fenced[k] or indented[k] or (inside and continues(texts[k - 1], following, line))
            tail = previous == k - 1 and not alone[k - 1]  # (a blank line between: no wrapped title)
            code = code or (tail and is_title_tail(self.paths[-1][-1], texts[k - 1], line))
            hanging = following is not None and indented[k + 1] and not indented[k]  # (Lines.hanging)
            title = "" if code else section_title(line, following, hanging=hanging)
            if not title:
                continue
            same_run = previous == k - 1
            block = block if same_run else block + 1
            self.offsets.append(lines.offsets[k])
            self.blocks.append(block)
            self.paths.append((*self.paths[-1], title) if same_run and self.paths else (title,))
            previous = k

    def path(self, start: int, end: int, *, depth: int = 2) -> list[str]:
        """The innermost ``depth`` headings of the section a chunk ``[start, end)`` opens in, outermost first.

        The headings a chunk opens with count (a chunk starting ``Setting up`` is in that
        section); a heading further inside the chunk does not.
        """
        j = bisect.bisect_left(self.offsets, start) - 1  # the last heading before the chunk
        k = j + 1
        if k < len(self.offsets) and self.offsets[k] < end and not self.text[start : self.offsets[k]].strip():
            j = k  # the chunk opens with a heading: take its whole opening run
            while j + 1 < len(self.offsets) and self.offsets[j + 1] < end and self.blocks[j + 1] == self.blocks[j]:
                j += 1
        return innermost(self.paths[j], depth) if j >= 0 else []
