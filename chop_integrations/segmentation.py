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
   body text (markdown ``#`` headings, numbered headings such as ``2.1 Title``,
   short lines without sentence-final punctuation, ALL-CAPS lines) starts a new
   unit. A unit that opens with a heading-like line has ``heading=True``.
3. **Size**: a unit over ``max_tokens`` is cut at sentence ends (``. ! ?`` followed
   by whitespace, CJK ``。！？``, and line ends), the pieces re-packed greedily up to
   ``max_tokens``; a sentence that alone is too long is cut at the largest prefix
   that fits (binary search over character positions, never inside a CR LF or
   a surrogate pair).

The only unit that may exceed ``max_tokens`` is one made of a single indivisible
character (a code point, a surrogate pair, or CR LF) that the counter alone
scores above ``max_tokens``; it is emitted on its own rather than dropped, so the
text stays lossless.

Tokens are counted on bounded windows only (each unit, each sentence, each
candidate prefix of a few times ``max_tokens`` characters), never on an
ever-growing prefix, so the work stays close to linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .errors import ConfigurationError
from .tokens import TokenCounter
from .types import Unit

__all__ = ["is_heading_line", "split_units"]

#: Longest line (characters, stripped) that can count as a heading.
MAX_HEADING_CHARS = 80
#: Most words a heading line may have.
MAX_HEADING_WORDS = 12
#: Characters per token assumed when sizing the first window of a hard split.
_CHARS_PER_TOKEN_GUESS = 4
#: A text longer than ``max_tokens`` times this is treated as oversized without counting it whole.
_UNCOUNTED_FACTOR = 64

# A run of whitespace holding at least one blank line: the gap between two paragraphs.
_PARAGRAPH_GAP = re.compile(r"(?:[^\S\n]*\n){2,}\s*")
# Sentence ends: Latin punctuation followed by whitespace, CJK punctuation, line ends.
_SENTENCE_END = re.compile(
    r"[.!?\u2026]+[\"'\u2019\u201d)\]]*\s+"
    r"|[\u3002\uff01\uff1f\uff61]+[\"'\u2019\u201d\u300d\u300f\uff09)\]]*\s*"
    r"|\n\s*"
)
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_NUMBERED_HEADING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+\S")
_SENTENCE_FINAL = ".!?:;,\u2026\u3002\uff01\uff1f\uff1a\uff1b\uff0c\u3001"
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
    for start, end, heading in _structural_pieces(text):
        units.extend(_bounded(text, start, end, heading, max_tokens, token_counter))
    return units


def is_heading_line(line: str, next_line: str | None) -> bool:
    """Return True when ``line`` looks like a heading for the body that follows.

    Generic cues only: markdown ``#`` headings always count; otherwise the line must be
    short, hold a letter, not start like a list item or a continuation (lowercase
    letter), not end with sentence punctuation, not be a callout label (``NOTE``,
    ``TIP``...), and be followed by body text (``next_line`` is a sentence or a long
    line). ``next_line=None`` means the line stands alone (its block holds nothing
    else): a standalone short line is a heading for the blocks after it.

    Args:
        line: The candidate line (with or without its newline).
        next_line: The next line of the same block, or None when there is none.
    """
    stripped = line.strip()
    if not stripped:
        return False
    if _MARKDOWN_HEADING.match(line):
        return True
    if len(stripped) > MAX_HEADING_CHARS or len(stripped.split()) > MAX_HEADING_WORDS:
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


def _is_body_line(line: str, heading: str) -> bool:
    """True when ``line`` reads like body text under ``heading``."""
    body = line.strip()
    if not body:
        return False
    if body[-1] in _SENTENCE_FINAL:
        return True
    return len(body) > max(60, 2 * len(heading)) or len(body.split()) > MAX_HEADING_WORDS


def _structural_pieces(text: str) -> Iterator[tuple[int, int, bool]]:
    """Yield ``(start, end, heading)`` for paragraphs and heading-led line groups."""
    block_start = 0
    for gap in _PARAGRAPH_GAP.finditer(text):
        if gap.end() >= len(text):
            break  # trailing whitespace stays with the last block
        if not text[block_start : gap.start()].strip():
            continue  # leading whitespace stays with the first block
        yield from _split_block(text, block_start, gap.end())
        block_start = gap.end()
    yield from _split_block(text, block_start, len(text))


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

    The block's first line needs only a heading's shape (the block boundary is a cue
    of its own). A later line needs the shape and body text after it, either directly
    or after one more heading-shaped line (``Chapter 2`` / ``Title`` / body); a short
    last line closes the block and is no heading (markdown ``#`` lines always are).
    """
    shape = [is_heading_line(line, None) for line in lines]
    body = [_is_body_line(line, line) for line in lines]
    flags = []
    for k, line in enumerate(lines):
        if k == 0 or _MARKDOWN_HEADING.match(line):
            flags.append(shape[k])
            continue
        direct = k + 1 < len(lines) and _is_body_line(lines[k + 1], line.strip())
        chained = k + 2 < len(lines) and shape[k + 1] and body[k + 2]
        flags.append(shape[k] and (direct or chained))
    return flags


def _bounded(text: str, start: int, end: int, heading: bool, max_tokens: int, count: TokenCounter) -> list[Unit]:
    """One unit for ``text[start:end]``, or several when it is over ``max_tokens``."""
    if end - start <= max_tokens * _UNCOUNTED_FACTOR:
        tokens = count(text[start:end])
        if tokens <= max_tokens:
            return [Unit(start, end, text[start:end], tokens, heading)]
    pieces: list[tuple[int, int, int]] = []
    for s_start, s_end in _sentences(text, start, end):
        pieces.extend(_fit_sentence(text, s_start, s_end, max_tokens, count))
    spans = _pack(text, pieces, max_tokens, count)
    return [Unit(s, e, text[s:e], n, heading and i == 0) for i, (s, e, n) in enumerate(spans)]


def _sentences(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield sentence spans covering ``text[start:end]``; trailing whitespace stays with each."""
    cursor = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.end() > cursor and match.end() < end:
            yield cursor, match.end()
            cursor = match.end()
    yield cursor, end


def _fit_sentence(text: str, start: int, end: int, max_tokens: int, count: TokenCounter) -> list[tuple[int, int, int]]:
    """The sentence as ``(start, end, tokens)``, hard-split where it alone is over the maximum."""
    if end - start <= max_tokens * _UNCOUNTED_FACTOR:
        tokens = count(text[start:end])
        if tokens <= max_tokens:
            return [(start, end, tokens)]
    out: list[tuple[int, int, int]] = []
    cursor = start
    while cursor < end:
        cut, tokens = _largest_prefix(text, cursor, end, max_tokens, count)
        out.append((cursor, cut, tokens))
        cursor = cut
    return out


def _valid_cut(text: str, pos: int) -> bool:
    """A cut before ``text[pos]`` keeps CR LF and surrogate pairs whole."""
    before, after = text[pos - 1], text[pos]
    if before == "\r" and after == "\n":
        return False
    return not ("\ud800" <= before <= "\udbff" and "\udc00" <= after <= "\udfff")


def _atom_end(text: str, pos: int, end: int) -> int:
    """End of the smallest indivisible piece starting at ``pos``."""
    nxt = pos + 1
    while nxt < end and not _valid_cut(text, nxt):
        nxt += 1
    return nxt


def _largest_prefix(text: str, start: int, end: int, max_tokens: int, count: TokenCounter) -> tuple[int, int]:
    """The largest cut ``c`` in ``(start, end]`` with ``count(text[start:c]) <= max_tokens``.

    Gallops over windows that double in size, then binary-searches between the last
    window that fits and the first that does not, so every count is on a window at most
    about twice the final piece. Returns ``(cut, tokens)``; when not even the first
    indivisible character fits, that character alone is returned.
    """
    atom = _atom_end(text, start, end)
    atom_tokens = count(text[start:atom])
    if atom_tokens > max_tokens:
        return atom, atom_tokens  # documented exception: an oversized single character
    good, good_tokens = atom, atom_tokens
    width = max(max_tokens * _CHARS_PER_TOKEN_GUESS, 1)
    bad = end + 1
    while good < end:
        probe = min(end, start + width)
        if probe <= good:
            width *= 2
            continue
        tokens = count(text[start:probe])
        if tokens <= max_tokens:
            good, good_tokens = probe, tokens
            width *= 2
        else:
            bad = probe
            break
    lo, hi = good, min(bad, end + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        tokens = count(text[start:mid])
        if tokens <= max_tokens:
            lo, good_tokens = mid, tokens
        else:
            hi = mid
    cut = lo
    while cut > atom and cut < end and not _valid_cut(text, cut):
        cut -= 1
    if cut != lo:
        good_tokens = count(text[start:cut])
    return cut, good_tokens


def _pack(
    text: str, pieces: list[tuple[int, int, int]], max_tokens: int, count: TokenCounter
) -> list[tuple[int, int, int]]:
    """Merge adjacent pieces greedily while the sum of their counts fits; verify each merge."""
    out: list[tuple[int, int, int]] = []
    group: list[tuple[int, int, int]] = []
    total = 0

    def flush() -> None:
        if not group:
            return
        if len(group) == 1:
            out.append(group[0])
            return
        s, e = group[0][0], group[-1][1]
        tokens = count(text[s:e])
        if tokens <= max_tokens:
            out.append((s, e, tokens))
        else:  # the counter is not additive here: keep the pieces as they are
            out.extend(group)

    for piece in pieces:
        if group and total + piece[2] > max_tokens:
            flush()
            group, total = [], 0
        group.append(piece)
        total += piece[2]
    flush()
    return out
