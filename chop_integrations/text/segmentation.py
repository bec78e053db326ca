"""Structure-aware segmentation of a document into units with exact offsets.

A *unit* is the smallest piece the engines move. :func:`split_units` cuts a text
into units that are contiguous and cover it exactly::

    "".join(u.text for u in units) == text
    text[u.start:u.end] == u.text

Where the cuts go, in order of preference:

1. **Paragraphs**: blocks separated by blank lines. The whitespace between two
   blocks (the blank lines, and any indentation of the next block's first line)
   belongs to the unit before; whitespace at the very start belongs to the first unit.
2. **Line structure**: inside a block, a heading-like line that is followed by
   body text (markdown ``#`` headings, setext headings with their underline,
   numbered headings such as ``2.1 Title``,
   short lines without sentence-final punctuation, ALL-CAPS lines) starts a new
   unit. A unit that opens with a heading-like line has ``heading=True``.
3. **Size**: a unit over ``max_tokens`` is cut at sentence ends (``. ! ?`` followed
   by whitespace, not after an abbreviation or initial; CJK ``。！？``), then at line
   ends (fenced code, lists and tables: at line ends only), the pieces re-packed
   greedily up to ``max_tokens``; a line that alone is too long is cut at the largest
   prefix that fits (binary search over character positions, never inside a CR LF or
   a surrogate pair).

Fenced code, list items and tables are blocks of their own (see
:mod:`chop_integrations.text.structure`): ``#`` lines and blank lines inside a fence are
code, and such a block is never cut inside when it fits.

The only unit that may exceed ``max_tokens`` is one made of a single indivisible
character (a code point, a surrogate pair, or CR LF) that the counter alone
scores above ``max_tokens``; it is emitted on its own rather than dropped, so the
text stays lossless.

Tokens are counted on bounded windows only (each unit, each sentence, each
candidate prefix of a few times ``max_tokens`` characters), never on an
ever-growing prefix, so the work stays close to linear in the text's length.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from ..defaults import WRAPPED_CHARS
from ..errors import ConfigurationError
from ..types import Unit
from .pieces import _fits, bounded_units
from .structure import atx_heading, fence_spans, is_list_block, is_setext_underline, is_table_block
from .tokens import TokenCounter

__all__ = ["continues_line", "is_heading_line", "split_units"]

#: Longest line (characters, stripped) that can count as a heading.
MAX_HEADING_CHARS = 80
#: Most words a heading line may have.
MAX_HEADING_WORDS = 12

# A run of whitespace holding at least one blank line: the gap between two paragraphs.
_PARAGRAPH_GAP = re.compile(r"(?:[^\S\n]*\n){2,}\s*")
#: A first line of :data:`~chop_integrations.defaults.WRAPPED_CHARS` characters is a wrapped paragraph's,
#: not a heading, or one of this share of its block's widest line (a text wrapped narrower than usual).
_WRAP_SHARE = 0.8
_Piece = tuple[int, int, bool, str]
_SENTENCE_FINAL = ".!?:;,\u2026\u3002\uff01\uff1f\uff1a\uff1b\uff0c\u3001"
#: A record, not a heading: a line that opens with a time of day (``[09:12] <dave> ...``, ``10:02 ...``), and a
#: ``label: text`` line above another one (chat turns ``Dave: on it`` / ``Alice: ok``, ``Files: ...`` /
#: ``Description: ...`` key-value lines). Found on synthetic chat and IRC logs (not on any data split); on the 30
#: manuals neither pattern changes a heading, on the general set they drop 16 JSON, key-value and log lines.
_CLOCK = re.compile(r"^[\[(<]?\d{1,2}:\d{2}")
_LABELLED = re.compile(r"^[^\s:][^:]{0,30}:[ \t]+\S")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022\u25cf\u25aa\u2013\u2014>|]|\d+[)])(?:\s|$)")
_LETTER = re.compile(r"[^\W\d_]")
# Admonition labels that open a callout, not a section (a convention of documents in general).
_CALLOUT_LABELS = frozenset({"note", "notes", "tip", "tips", "hint", "warning", "caution", "danger", "important"})


def split_units(text: str, *, max_tokens: int, token_counter: TokenCounter) -> list[Unit]:
    """Cut ``text`` into contiguous units of at most ``max_tokens`` tokens.

    Args:
        text: The document.
        max_tokens: The most tokens a unit may hold (see the module docstring for the
            one exception: a single character that alone exceeds it).
        token_counter: Counts the tokens of a string.

    Returns:
        The units in order; ``[]`` for an empty text; one unit for a text made of
        whitespace only.

    Raises:
        ConfigurationError: When ``max_tokens`` is smaller than 1.
    """
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ConfigurationError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
    if not text:
        return []
    units: list[Unit] = []
    for run in _runs(list(_structural_pieces(text))):
        start, end = run[0][0], run[-1][1]
        if len(run) > 1 and _fits(text, start, end, max_tokens, token_counter):
            # a list's items stay together when the whole list fits
            units.append(Unit(start, end, text[start:end], token_counter(text[start:end]), run[0][2]))
            continue
        for piece_start, piece_end, heading, kind in run:
            units.extend(bounded_units(text, piece_start, piece_end, heading, kind, max_tokens, token_counter))
    return units


def _runs(pieces: list[_Piece]) -> Iterator[list[_Piece]]:
    """Group consecutive list pieces into one run; every other piece is a run of its own."""
    run: list[_Piece] = []
    for piece in pieces:
        if run and not (piece[3] == "list" and run[-1][3] == "list"):
            yield run
            run = []
        run.append(piece)
    if run:
        yield run


def _is_markdown_heading(line: str) -> bool:
    """An ATX heading with text (``## Usage``); a bare ``##`` is not one here."""
    atx = atx_heading(line) if "#" in line[:4] else None
    return bool(atx and atx[1])


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
    if _is_markdown_heading(line):
        return True
    if len(stripped) > MAX_HEADING_CHARS or len(stripped.split()) > MAX_HEADING_WORDS:
        return False
    if _CLOCK.match(stripped) or (next_line is not None and _is_record_pair(stripped, next_line.strip())):
        return False
    last = stripped.rstrip("\"'\u2019\u201d\u00bb\u300d\u300f)]")[-1:] or stripped[-1]
    if last in _SENTENCE_FINAL or last in "\u2014\u2013-" or _BULLET.match(stripped):
        return False
    if not _LETTER.search(stripped) or stripped[0].islower():
        return False
    if stripped.lower() in _CALLOUT_LABELS:
        return False
    if next_line is None:
        return True
    return _is_body_line(next_line, stripped)


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


def _structural_pieces(text: str) -> Iterator[_Piece]:
    """Yield ``(start, end, heading, kind)`` for fences, lists, tables, paragraphs and heading-led groups.

    Blank lines inside a fenced code block are no paragraph gaps; a fence is a
    block of its own, with the whitespace after it.
    """
    for start, end, fenced in _blocks(text):
        if fenced:
            yield start, end, False, "fence"
        elif is_list_block(text[start:end]):
            yield start, end, False, "list"
        elif is_table_block(text[start:end]):
            yield start, end, False, "table"
        else:
            for piece_start, piece_end, heading in _split_block(text, start, end):
                yield piece_start, piece_end, heading, "text"


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """Contiguous ``(start, end, fenced)`` blocks covering ``text``: paragraphs and fenced code."""
    fences = fence_spans(text)
    cuts = {0, len(text)}
    for f_start, f_end in fences:
        cuts.add(f_start)
        cuts.add(f_end + len(text[f_end:]) - len(text[f_end:].lstrip()))
    for gap in _PARAGRAPH_GAP.finditer(text):
        if not any(f_start < gap.start() < f_end or f_start < gap.end() < f_end for f_start, f_end in fences):
            cuts.add(gap.end())
    bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    starts = {f_start for f_start, _ in fences}
    blocks: list[tuple[int, int, bool]] = []
    for start, end in itertools.pairwise(bounds):
        if blocks and not text[blocks[-1][0] : start].strip():
            blocks[-1] = (blocks[-1][0], end, start in starts)  # leading whitespace joins the first block
        elif not text[start:end].strip() and blocks:
            blocks[-1] = (blocks[-1][0], end, blocks[-1][2])  # trailing whitespace stays with the last block
        else:
            blocks.append((start, end, start in starts))
    return blocks


def _split_block(text: str, start: int, end: int) -> Iterator[tuple[int, int, bool]]:
    """Split one paragraph block at heading-like lines; the first piece may be a heading too."""
    lines = text[start:end].splitlines(keepends=True)
    content = [i for i, line in enumerate(lines) if line.strip()]
    offsets = [start]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    if not content:
        yield start, end, False
        return
    flags = _heading_flags([lines[i] for i in content])
    piece_start, piece_heading = start, flags[0]
    for k in range(1, len(content)):
        if flags[k]:
            cut = offsets[content[k]]
            yield piece_start, cut, piece_heading
            piece_start, piece_heading = cut, True
    yield piece_start, end, piece_heading


def _heading_flags(lines: list[str]) -> list[bool]:
    """Which non-blank lines of a block open a heading-led piece.

    A line underlined with ``===``/``---`` (setext) is a heading, its underline part
    of it. The block's first line otherwise needs a heading's shape and a next line
    that does not continue it (a wrapped paragraph's first line is no heading). A
    later line needs the shape, a line before it that is not a hard-wrapped line
    running on (long, no sentence end; upper case or not), and body text
    after it, either directly or after one more heading-shaped line (``Chapter 2`` /
    ``Title`` / body); markdown ``#`` lines always count.
    """
    shape = [is_heading_line(line, None) for line in lines]
    width = max(len(line.strip()) for line in lines)
    body = [_is_body_line(line, line) for line in lines]
    setext = [
        k + 1 < len(lines) and is_setext_underline(lines[k + 1]) and not _is_list_line(line)
        for k, line in enumerate(lines)
    ]
    flags: list[bool] = []
    for k, line in enumerate(lines):
        if setext[k] or _is_markdown_heading(line):
            flags.append(True)
        elif k > 0 and setext[k - 1]:
            flags.append(False)  # the underline belongs to its heading
        elif k == 0:
            flags.append(shape[0] and (len(lines) == 1 or not continues_line(line, lines[1])))
        else:
            after_end = flags[k - 1] or (k > 1 and setext[k - 2]) or not _wrapped(lines[k - 1], width)
            direct = k + 1 < len(lines) and _is_body_line(lines[k + 1], line.strip())
            chained = k + 2 < len(lines) and shape[k + 1] and body[k + 2]
            flags.append(shape[k] and after_end and (direct or chained))
    return flags


def _is_list_line(line: str) -> bool:
    """True when ``line`` opens a list item (it can carry no setext underline)."""
    return bool(_BULLET.match(line.strip())) or is_list_block(line)


def _wrapped(line: str, width: int) -> bool:
    """True when ``line`` reads as a hard-wrapped line whose sentence runs on.

    That is a line with no sentence end that is long: near the block's widest line
    (``_WRAP_SHARE`` of it) or at a common wrap width.
    """
    stripped = line.strip().rstrip("\"'\u2019\u201d)]")
    long = len(stripped) >= min(WRAPPED_CHARS, _WRAP_SHARE * width)
    return bool(stripped) and long and stripped[-1] not in _SENTENCE_FINAL


def continues_line(line: str, nxt: str) -> bool:
    """True when ``nxt`` reads as the wrapped continuation of ``line`` (lower case, or a long line before it)."""
    following = nxt.strip()
    return bool(following) and (following[0].islower() or len(line.strip()) >= WRAPPED_CHARS)
