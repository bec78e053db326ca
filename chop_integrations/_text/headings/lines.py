"""Which lines are headings: the markdown, setext and plain-text cues segmentation and the signature share.

* :func:`atx_heading` (``## Title``) and :func:`is_setext_underline` (``Title`` over ``=====``): markup
  (:mod:`.markup`);
* :func:`is_heading_line`: a plain line shaped like a heading for the body after it (short, a letter, no
  sentence end, not a list item, a callout label or a record);
* :func:`continues_line`: a heading from a hard-wrapped paragraph's first line. Which lines of a text head a
  section is the outline's answer (:mod:`.outline`, asked through :mod:`.reader`).
"""

from __future__ import annotations

import re

from ..._defaults import WRAPPED_CHARS
from .markup import VERSION, atx_heading, is_markdown_heading, is_setext_underline
from .width import columns

__all__ = [
    "LETTER",
    "MAX_HEADING_CHARS",
    "MAX_HEADING_WORDS",
    "NUMBERED",
    "NUMBER_LABEL",
    "SURE_HEADING",
    "VERSION",
    "atx_heading",
    "columns",
    "continues_line",
    "is_code_line",
    "is_heading_line",
    "is_indented",
    "is_markdown_heading",
    "is_setext_underline",
    "is_title_tail",
    "title_case",
    "wrapped_question",
    "wrapped_title",
]

#: Longest line (characters, stripped) that can count as a heading.
MAX_HEADING_CHARS = 80
#: Most words a heading line may have.
MAX_HEADING_WORDS = 12

#: A first line of :data:`~chop_integrations._defaults.WRAPPED_CHARS` characters is a wrapped paragraph's,
#: not a heading, or one of this share of its block's widest line (a text wrapped narrower than usual).
_SENTENCE_FINAL = ".!?:;,\u2026\u3002\uff01\uff1f\uff1a\uff1b\uff0c\u3001"
#: A record, not a heading: a line that opens with a time of day (``[09:12] <dave> ...``, ``10:02 ...``), and a
#: ``label: text`` line above another one (chat turns ``Dave: on it`` / ``Alice: ok``, ``Files: ...`` /
#: ``Description: ...`` key-value lines). Found on synthetic chat and IRC logs (not on any data split); on the 30
#: manuals neither pattern changes a heading, on the general set they drop 16 JSON, key-value and log lines.
_CLOCK = re.compile(r"^[\[(<]?\d{1,2}:\d{2}")
_LABELLED = re.compile(r"^[^\s:][^:]{0,30}:[ \t]+\S")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022\u25cf\u25aa\u2013\u2014>|]|\d+[)])(?:\s|$)")
#: A line of nothing but markdown links and images (``[GitHub release](https://...)``, a row of badges): body text.
_LINK_LINE = re.compile(r"(?:!?\[(?:[^\][]|!?\[[^\]]*\]\([^)]*\))*\]\([^)]*\)\s*)+$")
#: A letter of any script (a heading holds one).
LETTER = re.compile(r"[^\W\d_]")
# Admonition labels that open a callout, not a section (a convention of documents in general). The German and
# Chinese ones (``Tipp``, ``注意`` ...) are those of the Debian Reference's DocBook output (the multilingual dev set).
_CALLOUT_LABELS = frozenset(
    {
        *"note notes tip tips hint warning caution danger important".split(),
        *"anmerkung hinweis tipp warnung achtung wichtig vorsicht".split(),
        *"注 注意 提示 警告 小心 重要 技巧".split(),
    }
)
#: The longest callout label (a longer line is none: lower case never shortens a text).
_CALLOUT_CHARS = max(map(len, _CALLOUT_LABELS))
#: The fewest characters of a line with more than :data:`MAX_HEADING_WORDS` words (each a character, a space between).
_MAX_WORDS_CHARS = 2 * MAX_HEADING_WORDS
#: The closing quotes and brackets a heading's last mark may stand inside (``"Ready?"``).
_CLOSING = "\"'\u2019\u201d\u00bb\u300d\u300f)]"
#: The first characters of a :data:`_BULLET` line besides a digit.
_BULLET_FIRST = frozenset("-*+\u2022\u25cf\u25aa\u2013\u2014>|")
#: A shell prompt or a root prompt opening a command line (``$ ls``, ``% make``, ``user@host:~$ ls``): an example.
_PROMPT = re.compile(r"^(?:[$%>]|\S+@\S+[:$#])\s")
#: A numbered heading's label: ``4.``, ``2.1.6.``, ``2.1``, ``A.``, ``IV.``, ``(a)``, ``Kapitel 9``, ``Chapter 2``,
#: ``第 9 章``, then the line's end or a space. A syntax rule, chosen on no data split.
NUMBER_LABEL = re.compile(
    r"^(?:(?:\d{1,3}\.)+\d{0,3}|\d{1,3}|[A-Z]\.|[IVXLC]{1,6}\.|\([a-z0-9]{1,3}\)"
    r"|(?:Kapitel|Chapter|Abschnitt|Section|Part|Teil|Anhang|Appendix)\s+[\dA-Z]{1,3}\.?"
    r"|第\s*[\d一二三四五六七八九十百]+\s*[章节部篇])(?=\s|$)"
)
#: A numbered heading (``2.1 Title``): its number and its title.
NUMBERED = re.compile(r"^\s*(\d+(?:\.\d+)*)\.?\s+(\S.*)$")

#: A centered line: indented this far at least, its indent on both sides filling a page of this many columns (the
#: common 70-80, with slack for odd widths). A syntax rule, chosen on no data split.
_CENTERED_INDENT = 10
_PAGE_WIDTH = (60, 86)

#: A heading line that is a heading whatever surrounds it: a numbered title (:data:`NUMBER_LABEL`) or a version.
SURE_HEADING = re.compile(rf"{NUMBER_LABEL.pattern}|(?i:{VERSION.pattern})")


def is_indented(raw: str) -> bool:
    """True when ``raw`` opens with a tab or four blank columns (code, an example or a body, never a heading).

    Any white space counts as a column: DocBook's text output indents with no-break spaces (U+00A0), CJK text
    with ideographic ones (U+3000).
    A centered title (GPL-3's ``Preamble``) is no indented line: white space on both sides of it in a common
    page width.
    """
    if not raw[:1].isspace():
        return False  # (most lines)
    content = raw.lstrip()
    indent = raw[: len(raw) - len(content)].strip("\r\n")
    if "\t" not in indent and len(indent) < 4:
        return False
    width = 2 * len(indent) + len(content.rstrip())
    return not (len(indent) >= _CENTERED_INDENT and _PAGE_WIDTH[0] <= width <= _PAGE_WIDTH[1])


def is_code_line(raw: str) -> bool:
    """True when the heading reader takes ``raw`` for code: indented (:func:`is_indented`) or a comment 4 columns in.

    A ``# comment`` in an indented example is code even where its indent and width look like a centered title's
    (a reStructuredText ``.. code::`` block nested in a loop); a centered title never opens with ``#``.
    """
    if is_indented(raw):
        return True
    content = raw.lstrip()
    return content[:1] == "#" and len(raw) - len(content) >= 4


#: A word of a title that title case would capitalise: four letters or more (``Grant of Patent License``).
_LONG_WORD = re.compile(r"[^\W\d_]{4,}")


def title_case(title: str) -> bool:
    """True when every word of four letters or more in ``title`` starts with a capital (a clause's title, not a step).

    A numbered clause whose text wraps onto an indented line (``4. Redistribution. You may ...`` over ``      Work
    or ...``) or runs past a heading line's length is still headed by its run-in title; a numbered step
    (``1. Remove the cover. Lift ...``) is not. A syntax rule, chosen on no data split.
    """
    return all(word[0].isupper() for word in _LONG_WORD.findall(title))


#: The most a numbered title's wrapped last line may hold (words, columns): a word or two (``(GUI)``), not a sentence's
#: tail. A syntax rule; the case that asked for it is in the multilingual dev set.
_TAIL_WORDS, _TAIL_COLUMNS = 4, 30


def wrapped_title(line: str, following: str) -> str:
    """A numbered title wrapped onto a short last line, joined (``1.1.5. ... Oberfläche`` / ``(GUI)``); else ``""``.

    Both lines are stripped lines of one block. The tail is short, starts with no lower-case letter and ends no
    sentence, and neither line ends one: a numbered step's wrapped sentence (``... choose the option`` /
    ``Network.``) stays a sentence. A numbered question wrapped onto a second line (:func:`wrapped_question`) is
    joined too.
    """
    if not NUMBER_LABEL.match(line):
        return ""  # (most lines)
    question = wrapped_question(line, following)
    if question:
        return question
    if len(line) > MAX_HEADING_CHARS or line[-1] in _SENTENCE_FINAL:
        return ""
    if len(following.split()) > _TAIL_WORDS or columns(following) > _TAIL_COLUMNS:
        return ""
    if following[0].islower() or following[-1] in _SENTENCE_FINAL:
        return ""
    wide = columns(line[-1]) == 2 and columns(following[0]) == 2  # Chinese lines join without a space
    return line + ("" if wide else " ") + following


def wrapped_question(line: str, following: str) -> str:
    """An FAQ's numbered question wrapped onto a second line, joined; else ``""``.

    ``4.4. In welchem Maße ist der Quellcode von Debian mit anderen`` / ``Unix-Systemen kompatibel?`` is one
    question (:func:`_numbered_question`): the second line ends it with its mark and is no list item or numbered
    line of its own; the first line may end a question of its own (``3.1.12. ... What happens then?`` / ``Do I
    keep tracking testing?``). A wrapped paragraph of a numbered list item ends with a full stop, so it stays a
    paragraph.
    """
    if not following or following[-1] not in _QUESTION_MARKS:
        return ""
    if NUMBER_LABEL.match(following) or _BULLET.match(following):
        return ""
    wide = columns(line[-1]) == 2 and columns(following[0]) == 2  # Chinese lines join without a space
    joined = line + ("" if wide else " ") + following
    return joined if _numbered_question(joined) else ""


def is_title_tail(title: str, above: str, line: str) -> bool:
    """True when ``line`` is the wrapped last line of the heading ``title`` read from ``above`` and it together."""
    return bool(wrapped_title(above, line)) and title.endswith(line)


def is_heading_line(line: str, next_line: str | None) -> bool:
    """Return True when ``line`` looks like a heading for the body that follows.

    Generic cues only: markdown ``#`` headings always count; otherwise the line must be
    short, hold a letter, not start like a list item or a continuation (lowercase
    letter), not end with sentence punctuation, not be a callout label (``NOTE``,
    ``TIP``...), not be a record (a line that opens with a time of day, or a ``label:
    text`` line above another: chat turns, key-value lines), and be followed by body
    text (``next_line`` is a sentence or a long line). ``next_line=None`` means the line
    stands alone (its block holds nothing else): a standalone short line is a heading for
    the blocks after it.

    Args:
        line: The candidate line (with or without its newline).
        next_line: The next line of the same block, or None when there is none.
    """
    stripped = line.strip()
    if not stripped:
        return False
    if "#" in line[:4] and is_markdown_heading(line):
        return True
    first, end = stripped[0], stripped[-1]
    if end in _SENTENCE_FINAL and (next_line is not None or not _numbered_title(stripped)):
        return False  # (most lines, a body's; as below, decided before the patterns: no version line ends so)
    if first.islower() and first not in "vr":  # (a wrapped line's tail: only a version line may open lower case)
        return False
    question = end in _QUESTION_MARKS and _numbered_question(stripped)
    if len(stripped) > MAX_HEADING_CHARS and not question:
        return False
    if (first in "$%>" or "@" in stripped) and _PROMPT.match(stripped):
        return False
    if (first.isdigit() or first in "vV[Rr") and VERSION.match(stripped):
        return next_line is None or _is_body_line(next_line, stripped)
    # (The cheap looks before each pattern below only skip lines it cannot match: words > 12 need 25 characters.)
    if len(stripped) > _MAX_WORDS_CHARS and len(stripped.split()) > MAX_HEADING_WORDS and not question:
        return False
    if (first.isdigit() or first in "[(<") and _CLOCK.match(stripped):
        return False
    if next_line is not None and ":" in stripped and _is_record_pair(stripped, next_line.strip()):
        return False
    last = stripped.rstrip(_CLOSING)[-1:] or end if end in _CLOSING else end
    if (
        last in _SENTENCE_FINAL and (next_line is not None or not _numbered_title(stripped))
    ) or last in "\u2014\u2013-":
        return False
    if (first in _BULLET_FIRST or first.isdigit()) and _BULLET.match(stripped):
        return False
    if (first in "![" and _LINK_LINE.match(stripped)) or first.islower() or not LETTER.search(stripped):
        return False
    if len(stripped) <= _CALLOUT_CHARS and stripped.lower() in _CALLOUT_LABELS:
        return False
    if next_line is None:
        return True
    return _is_body_line(next_line, stripped)


#: The most characters (spaces not counted) of a numbered title that ends with its full stop (8 words of 8 or so).
_NUMBERED_TITLE_CHARS = 70
#: The marks that end an FAQ's question (``?``, ``?!``, ``!``; full-width too).
_QUESTION_MARKS = "?!\uff1f\uff01"
#: The longest numbered question (characters, stripped): an FAQ's questions run longer than other titles (a
#: prefix shows the first words of a long one). Two heading lines; a syntax rule, chosen on no data split.
_QUESTION_CHARS = 2 * MAX_HEADING_CHARS


def _numbered_question(line: str) -> bool:
    """True for an FAQ's numbered question or exclamation (``1.7. Wie spricht man Debian aus?``, ``... Linux?!``).

    Only a section number of two levels or more (``1.7.``, ``3.1.2``) or a chapter's (``Kapitel 1. Einstieg, aber
    richtig!``): a plain ``3. Is the light on?`` may be a checklist's step. At most :data:`_QUESTION_CHARS` long.
    The caller checks the final mark.
    """
    label = NUMBER_LABEL.match(line)
    return (
        label is not None
        and (label.group().rstrip(".").count(".") >= 1 or _worded(label.group()))
        and len(line) <= _QUESTION_CHARS
        and LETTER.search(line, label.end()) is not None
    )


def _numbered_title(line: str) -> bool:
    """True for a numbered title that stands alone and ends with one full stop (``4. Conveying Verbatim Copies.``).

    Licences and books end their clause and chapter titles so; a sentence has more words or another mark.
    """
    if line[-1] in _QUESTION_MARKS:
        return _numbered_question(line)
    if not line.endswith(".") or line.endswith("..") or len(line) - line.count(" ") > _NUMBERED_TITLE_CHARS:
        return False
    label = NUMBER_LABEL.match(line)
    if label is None:
        return False
    title = line[label.end() :].strip()
    if not title:
        return _worded(label.group())
    return len(title.split()) <= 8 and not any(mark in title[:-1] for mark in ".!?;:,")


def _worded(label: str) -> bool:
    """True for a chapter's label (``Kapitel 9.``, ``Chapter 2``, ``第 9 章``), not a letter's (``A.``)."""
    return LETTER.search(label) is not None and len(label) > 3


def _is_record_pair(line: str, next_line: str) -> bool:
    """True when both lines are ``label: text`` records (chat turns, key-value lines), which head nothing."""
    return bool(_LABELLED.match(line) and _LABELLED.match(next_line))


def _is_body_line(line: str, heading: str) -> bool:
    """True when ``line`` reads like body text under ``heading``."""
    body = line.strip()
    if not body:
        return False
    if body[-1] in _SENTENCE_FINAL:
        return True
    return len(body) > max(60, 2 * len(heading)) or len(body.split()) > MAX_HEADING_WORDS


def continues_line(line: str, nxt: str) -> bool:
    """True when ``nxt`` reads as the wrapped continuation of ``line`` (lower case, or a long line before it)."""
    following, stripped = nxt.strip(), line.strip()
    long = len(stripped) >= WRAPPED_CHARS or (not stripped.isascii() and columns(stripped) >= WRAPPED_CHARS)
    return bool(following) and (following[0].islower() or long)
