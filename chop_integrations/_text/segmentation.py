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
   short lines without sentence-final punctuation, ALL-CAPS lines; the cues are in
   :mod:`chop_integrations._text.headings`) starts a new unit. A unit that opens with a
   heading-like line has ``heading=True``.
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
from collections.abc import Iterator

from .._errors import ConfigurationError
from .._types import Unit
from .cuts import heading_end, heading_lead, heading_lead_start, heading_only, heading_only_span
from .headings import heading_flags, is_heading_line, is_indented, is_setext_underline
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
#: What str.splitlines cuts at.
_LINE_BREAK = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_NUMBERED_ITEM = re.compile(r"\s*\d{1,9}[.)][ \t]+\S")
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


def units_of(text: str, *, max_tokens: int, token_counter: TokenCounter, memo: TextMemo | None = None) -> list[Unit]:
    """:func:`split_units` for the engines, with ``memo``: a run's memory of the paragraph blocks it read.

    A block seen again in the same run is not read again for headings (see
    :mod:`~chop_integrations._text.run_memo`); the units are the same with or without it.
    """
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ConfigurationError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
    if not text:
        return []
    if isinstance(token_counter, MemoCounter):
        token_counter.read_lines(text)  # one encoding of the text's lines: counts of whole lines are summed
    units: list[Unit] = []
    for run in _runs(_structural_pieces(text, memo)):
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


def _structural_pieces(text: str, memo: TextMemo | None = None) -> list[_Piece]:
    """``(start, end, heading, kind)`` of the fences, lists, tables, paragraphs and heading-led groups.

    Blank lines inside a fenced code block are no paragraph gaps; a fence is a
    block of its own, with the whitespace after it.
    """
    blocks = _blocks(text)
    pieces: list[_Piece] = []
    for index, (start, end, fenced) in enumerate(blocks):
        if fenced:
            pieces.append((start, end, False, "fence"))
            continue
        block = text[start:end]
        if is_list_block(block) and not _numbered_heading(text, blocks, index):
            pieces.append((start, end, False, "list"))
        elif is_table_block(block):
            pieces.append((start, end, False, "table"))
        else:
            _split_block(text, block, start, end, pieces, memo)
    return pieces


def _numbered_heading(text: str, blocks: list[tuple[int, int, bool]], index: int) -> bool:
    """True when block ``index``, shaped like a list item, is a numbered heading (``1. Problemstellung``).

    It is underlined as a heading (``2. License Grants`` over ``-----``), or it is one heading-shaped line
    (:func:`~chop_integrations._text.headings.is_heading_line`, standing alone) and neither block beside it is a
    numbered item: ``1. Install`` / ``2. Run`` after one another are a loose list.
    """
    start, end, _ = blocks[index]
    line = text[start:end].strip()
    lines = line.splitlines()
    if (
        len(lines) in (2, 3)
        and _NUMBERED_ITEM.match(lines[-2])
        and is_setext_underline(lines[-1])
        and (len(lines) == 2 or is_setext_underline(lines[0]))
    ):
        return True  # a numbered title under- (or over- and under-)lined: a marked heading (MPL-2.0's sections)
    if "\n" in line or "\r" in line or not is_heading_line(line, None):
        return False
    for other in (index - 1, index + 1):
        if 0 <= other < len(blocks) and _NUMBERED_ITEM.match(text, blocks[other][0], blocks[other][1]):
            return False
    return True


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


def _split_block(text: str, block: str, start: int, end: int, pieces: list[_Piece], memo: TextMemo | None) -> None:
    """Split one paragraph block at heading-like lines, appending its ``"text"`` pieces to ``pieces``.

    ``block`` is ``text[start:end]``; the first piece may be a heading too. The cuts depend on the
    block and the white space before it on its line alone, so ``memo`` keeps them by those two.
    """
    line_start = text.rfind("\n", 0, start) + 1
    indent = text[line_start:start] if line_start < start and text[line_start:start].isspace() else ""
    body = block.rstrip()
    if not _LINE_BREAK.search(body):  # one line (half the blocks): a heading or not, no cut (what _block_cuts finds)
        pieces.append((start, end, bool(body) and _heads_alone(indent + body), "text"))
        return
    found: tuple[bool, list[int]] | None = memo.get((indent, block)) if memo is not None else None
    if found is None:
        found = _block_cuts(block, indent)
        if memo is not None:
            memo.put((indent, block), found, len(indent) + len(block))
    piece_start, piece_heading = start, found[0]
    for cut in found[1]:
        pieces.append((piece_start, start + cut, piece_heading, "text"))
        piece_start, piece_heading = start + cut, True
    pieces.append((piece_start, end, piece_heading, "text"))


def _block_cuts(block: str, indent: str) -> tuple[bool, list[int]]:
    """Whether ``block`` opens with a heading, and the offsets in it where a heading-led piece starts.

    ``indent`` is the white space before the block on its line (it indents the first line).
    """
    lines = block.splitlines(keepends=True)
    content = [i for i, line in enumerate(lines) if not line.isspace()]  # (a line is never empty)
    if not content:
        return False, []
    if len(content) == 1:
        return _heads_alone(indent + lines[0] if content[0] == 0 else lines[content[0]]), []
    heads = [lines[i] for i in content] if len(content) < len(lines) else lines
    if content[0] == 0 and indent:
        heads = [indent + heads[0], *heads[1:]]
    flags = heading_flags(heads)
    cuts = list(itertools.compress(range(1, len(content)), flags[1:]))
    if not cuts:
        return flags[0], []
    offsets = list(itertools.accumulate(map(len, lines), initial=0))
    return flags[0], [offsets[content[k]] for k in cuts]


def _heads_alone(line: str) -> bool:
    """Whether a block's one line of text, its indent included, is a heading.

    What :func:`heading_flags` finds for one line, without its passes.
    """
    return not is_indented(line) and is_heading_line(line, None)
