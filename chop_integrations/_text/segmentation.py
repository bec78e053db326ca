"""Structure-aware segmentation of a document into units with exact offsets.

A *unit* is the smallest piece the engines move. :func:`split_units` cuts a text
into units that are contiguous and cover it exactly::

    "".join(u.text for u in units) == text
    text[u.start:u.end] == u.text

Where the cuts go, in order of preference:

1. **Paragraphs**: blocks separated by blank lines. The whitespace between two
   blocks (the blank lines, and any indentation of the next block's first line)
   belongs to the unit before; whitespace at the very start belongs to the first unit.
2. **Headings**: inside a block, each line the document's outline reads as a heading
   (:func:`~chop_integrations._text.headings.reader.heading_starts`: markdown ``#`` and underlined
   headings when the text has any, else its heading-like lines; never code) starts a new unit, and a unit
   that opens with one has ``heading=True``. The same outline gives CHOP's signatures and section labels
   their headings, so every reader agrees on every line.
3. **Size**: a unit over ``max_tokens`` is cut at sentence ends (``. ! ?`` followed
   by whitespace, not after an abbreviation or initial; CJK ``。！？``; fenced code,
   lists and tables: at line ends), the pieces re-packed
   up to ``max_tokens``; a sentence still too long is cut at clause punctuation, then
   between words (:mod:`chop_integrations._text.pieces`); only a word that alone is too
   long is cut at the largest prefix that fits (binary search over character positions,
   never inside a CR LF or a surrogate pair).
4. **Headings stay with their body**: the first unit after a heading-only unit holds at
   most ``max_tokens`` less the heading's tokens (:mod:`chop_integrations._text.cuts`).

Fenced code, list items and tables are blocks of their own (see
:mod:`chop_integrations._text.structure`): ``#`` lines and blank lines inside a fence are
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
from collections.abc import Iterator, Sequence

from .._errors import ConfigurationError
from .._types import Unit
from .cuts import heading_end, heading_lead, heading_lead_start, heading_only, heading_only_span
from .headings.reader import heading_starts, line_start, within
from .pieces import bounded_units, fitting_count
from .run_memo import MemoCounter, TextMemo
from .structure import fence_spans, inside_any, is_ideograph, is_list_block, is_table_block, last_visible
from .token_sums import span_count
from .tokens import TokenCounter

__all__ = ["paragraph_gaps", "split_units", "units_of"]

# A run of whitespace holding at least one blank line, from its first line break on (see paragraph_gaps).
_GAP_FROM_BREAK = re.compile(r"\n(?:[^\S\n]*\n)+\s*")
_SPACES = re.compile(r"\s*")
_CONTENT = re.compile(r"\S")
_Piece = tuple[int, int, bool, str]


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
    return units_of(text, max_tokens=max_tokens, token_counter=token_counter)


def units_of(
    text: str,
    *,
    heads: Sequence[int] | None = None,
    markdown: bool | None = None,
    max_tokens: int,
    token_counter: TokenCounter,
    memo: TextMemo | None = None,
) -> list[Unit]:
    """:func:`split_units` for the engines and the stream, with the headings it cuts at given or remembered.

    ``heads``: the offsets of ``text``'s headings (:func:`~chop_integrations._text.headings.reader.heading_starts`,
    sorted), given by a stream that reads them as the text arrives; ``None`` reads them from ``text`` (with
    ``markdown``, the reading's choice, when given). ``memo``: a run's memory of the texts whose headings it read (a
    text seen again in the same run is not read again, see :mod:`~chop_integrations._text.run_memo`); the units are
    the same with or without it.
    """
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ConfigurationError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
    if not text:
        return []
    if isinstance(token_counter, MemoCounter):
        token_counter.read_lines(text)  # one encoding of the text's lines: counts of whole lines are summed
    units: list[Unit] = []
    if heads is None:
        heads = _heads(text, markdown, memo)
    for run in _runs(_structural_pieces(text, heads)):
        start, end = run[0][0], run[-1][1]
        # Headings before the run: they and its first unit fit one chunk (none after a body unit).
        lead = heading_lead(units, max_tokens) if units and heading_only(units[-1]) else 0
        if lead and len(run) == 1 and run[0][2] and run[0][3] == "text" and heading_only_span(text, start, end):
            lead = 0
        if not lead and len(run) == 1:  # (most pieces: no heading run before it to fit with, no list to join)
            units.extend(bounded_units(text, start, end, run[0][2], run[0][3], max_tokens, token_counter))
            continue
        lead_start = heading_lead_start(units, max_tokens) if lead else 0
        tokens = fitting_count(text, start, end, max_tokens - lead, token_counter) if len(run) > 1 else None
        if tokens is not None and _fits_after(text, lead_start, end, lead, max_tokens, token_counter):
            units.append(Unit(start, end, text[start:end], tokens, run[0][2]))  # a list that fits stays whole
            continue
        for k, (piece_start, piece_end, heading, kind) in enumerate(run):
            first_lead = lead if k == 0 else 0
            block = _led_units(
                text, (piece_start, piece_end, heading, kind), first_lead, lead_start, max_tokens, token_counter
            )
            if first_lead and heading and kind == "text" and _cut_in_word(text, block[0].end, piece_end):
                block = _heading_apart(text, units, (piece_start, piece_end), max_tokens, token_counter) or block
            units.extend(block)
    return units


def _led_units(
    text: str, piece: _Piece, lead: int, lead_start: int, max_tokens: int, count: TokenCounter
) -> list[Unit]:
    """Units of ``piece`` whose first one fits one chunk with the heading run of ``lead`` tokens from ``lead_start``."""
    start, end, heading, kind = piece
    block = bounded_units(text, start, end, heading, kind, max_tokens, count, lead)
    for _ in range(3):  # the counter need not be additive: shrink the room by what the first unit overshot
        if lead <= 0 or _fits_after(text, lead_start, block[0].end, lead, max_tokens, count):
            break
        lead += count(text[lead_start : block[0].end]) - max_tokens
        block = bounded_units(text, start, end, heading, kind, max_tokens, count, lead)
    return block


def _heading_apart(
    text: str, units: list[Unit], span: tuple[int, int], max_tokens: int, count: TokenCounter
) -> list[Unit] | None:
    """A heading block's heading as a unit of its own, then its body, or ``None`` when that cuts no better.

    After a run of headings, a block that opens with one more heading may have so little room left that its
    first unit ends inside a word or between two ideographs. With its heading apart, that heading is the last
    of the run and the headings above it count under the run's own limits (:func:`~._text.cuts.heading_lead`):
    the outer ones yield to the body, whose first unit then ends where it may.
    """
    start, end = span
    body_start = heading_end(text, start, end)
    if not start < body_start < end:
        return None
    title = Unit(start, body_start, text[start:body_start], count(text[start:body_start]), True)
    if title.tokens >= max_tokens:  # a heading that alone fills a unit stays with the start of its body
        return None
    led = [*units, title]
    lead = heading_lead(led, max_tokens)
    body = _led_units(
        text, (body_start, end, False, "text"), lead, heading_lead_start(led, max_tokens), max_tokens, count
    )
    return None if _cut_in_word(text, body[0].end, end) else [title, *body]


def _cut_in_word(text: str, pos: int, end: int) -> bool:
    """True when a unit ending at ``pos`` (before ``end``) ends inside a word or between two ideographs."""
    if pos >= end:
        return False
    before, after = text[pos - 1], text[pos]
    if before.isspace():  # a wrapped line between two ideographs is one run of them
        # the gap is scanned back only before an ideograph: once per run of white space, not once per line of it
        return is_ideograph(after) and is_ideograph(text[last_visible(text, pos)])
    return before.isalnum() and after.isalnum() and is_ideograph(before) == is_ideograph(after)


def _fits_after(text: str, lead_start: int, end: int, lead: int, max_tokens: int, count: TokenCounter) -> bool:
    """True when the heading run from ``lead_start`` and the text after it up to ``end`` fit one chunk together."""
    return not lead or span_count(text, lead_start, end, count) <= max_tokens


def paragraph_gaps(text: str) -> Iterator[tuple[int, int]]:
    r"""``(start, end)`` of every gap between two paragraphs: a run of whitespace holding a blank line.

    A gap starts at the spaces or tabs before its first line break and runs to the next
    non-blank character, as the pattern ``(?:[^\S\n]*\n){2,}\s*`` finds it. That pattern is
    tried at every position of a long run of spaces and scans to its end each time (quadratic);
    here matches start at a line break only and the spaces before it are taken back after, so
    every character is read a bounded number of times.
    """
    floor = 0
    for gap in _GAP_FROM_BREAK.finditer(text):
        start = gap.start()
        if start > floor and text[start - 1].isspace():  # (most paragraphs end with no white space)
            before = text[floor:start]  # no line break in its trailing whitespace (it would have matched)
            start -= len(before) - len(before.rstrip())
        yield start, gap.end()
        floor = gap.end()


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


def _structural_pieces(text: str, heads: Sequence[int]) -> list[_Piece]:
    """``(start, end, heading, kind)`` of the fences, lists, tables, paragraphs and heading-led groups.

    Blank lines inside a fenced code block are no paragraph gaps; a fence is a
    block of its own, with the whitespace after it. A block that holds one of the outline's headings
    (``heads``) is text, cut before each of them.
    """
    pieces: list[_Piece] = []
    for start, end, fenced in _blocks(text):
        inside = within(heads, start, end)
        if fenced:
            pieces.append((start, end, False, "fence"))
        elif inside:
            _split_block(text, start, end, inside, pieces)
        elif is_list_block(text[start:end]):
            pieces.append((start, end, False, "list"))
        elif is_table_block(text[start:end]):
            pieces.append((start, end, False, "table"))
        else:
            pieces.append((start, end, False, "text"))
    return pieces


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """Contiguous ``(start, end, fenced)`` blocks covering ``text``: paragraphs and fenced code."""
    fences = fence_spans(text)
    if fences:
        cuts = {0, len(text)}
        for f_start, f_end in fences:
            cuts.add(f_start)
            cuts.add(_SPACES.match(text, f_end).end())  # type: ignore[union-attr]  # (always matches)
        for gap_start, gap_end in paragraph_gaps(text):
            if not (inside_any(fences, gap_start) or inside_any(fences, gap_end)):
                cuts.add(gap_end)
        bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    else:  # (most texts) the gaps' ends in one pass: where a gap starts does not matter here
        bounds = [0, *(gap.end() for gap in _GAP_FROM_BREAK.finditer(text))]
        if bounds[-1] < len(text):
            bounds.append(len(text))
    starts = {f_start for f_start, _ in fences}
    blocks: list[tuple[int, int, bool]] = []
    blank = False  # the last block holds whitespace only
    for start, end in itertools.pairwise(bounds):
        # (a block after a gap opens with its text: the search only for the first one, and around fences)
        content = not text[start].isspace() or _CONTENT.search(text, start, end) is not None
        if blocks and blank:
            blocks[-1] = (blocks[-1][0], end, start in starts)  # leading whitespace joins the first block
            blank = not content
        elif not content and blocks:
            blocks[-1] = (blocks[-1][0], end, blocks[-1][2])  # trailing whitespace stays with the last block
        else:
            blocks.append((start, end, start in starts))
            blank = not content
    return blocks


def _split_block(text: str, start: int, end: int, heads: list[int], pieces: list[_Piece]) -> None:
    """Split the paragraph block ``text[start:end]`` before each of its ``heads``, appending its ``"text"`` pieces.

    A piece is a heading when one of ``heads`` opens it; the cut goes before the heading line's indentation.
    """
    content = _CONTENT.search(text, start, end)
    first = content.start() if content is not None else end
    piece_start, piece_heading = start, heads[0] == first
    for head in heads:
        cut = line_start(text, head)
        if cut > piece_start and head > first:
            pieces.append((piece_start, cut, piece_heading, "text"))
            piece_start, piece_heading = cut, True
    pieces.append((piece_start, end, piece_heading, "text"))


def _heads(text: str, markdown: bool | None, memo: TextMemo | None) -> list[int]:
    """:func:`heading_starts` of ``text``, kept in ``memo`` (a text that comes back in the run is read once)."""
    if memo is None:
        return heading_starts(text, markdown=markdown)
    key = ("heads", markdown, text)
    found: list[int] | None = memo.get(key)
    if found is None:
        found = heading_starts(text, markdown=markdown)
        memo.put(key, found, len(text))
    return found
