"""Cutting a block that is over ``max_tokens`` into units that fit.

Prose is cut at sentence ends first; a sentence over ``max_tokens`` at clause punctuation (``, ; :``, ``，；：、``)
and line ends; a clause still over it at whitespace and at the edges of ideograph runs; a word over it at its inner
punctuation (a URL at ``/``); only what is still over it at the largest prefix that fits. Code, lists and tables are
cut at their own line ends, then at whitespace. The pieces are packed back into units: each unit ends at the strongest
boundary among those that keep it at least half as full as it could be (a sentence end before a clause end before a
word end); inside a word or between two ideographs only where the unit has no better end at all.

A heading block that must be cut keeps its heading with the start of its body: the first unit holds the heading lines
and as much body as fits (cut inside the body, never right after the heading).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .._types import Unit
from .cuts import heading_end
from .structure import clause_or_line_spans, inner_spans, line_or_cjk_mark_spans, sentence_spans, word_spans
from .structure import is_ideograph as _is_ideograph
from .structure import last_visible as _last_visible
from .token_sums import capped_count as _capped
from .token_sums import span_count
from .tokens import TokenCounter

#: Characters per token assumed when sizing the first window of a hard split.
_CHARS_PER_TOKEN_GUESS = 4
#: A text longer than ``max_tokens`` times this is treated as oversized without counting it whole.
_UNCOUNTED_FACTOR = 64
_Splitter = Callable[[str, int, int], Iterator[tuple[int, int]]]
#: ``(start, end, tokens, strength)``: ``strength`` is that of the boundary at ``end`` (see :data:`_END`).
_Piece = tuple[int, int, int, float]
#: Strength of a span's own end, of a sentence end, a clause or line end, a word end, inner punctuation, a hard cut.
_END, _SENTENCE, _CLAUSE, _WORD, _INNER, _HARD = 9.0, 4.0, 3.0, 1.0, 0.75, 0.0
#: Spans of one splitter are counted together up to ``max_tokens // _GROUP_SHARE`` characters: a long run of
#: words is not counted word by word, and a cut still falls within a few words of where it could.
_GROUP_SHARE = 8
#: Strength of a line end or space between two ideographs (wrapped CJK text: inside a word, as likely as not).
_IDEOGRAPH_GAP = 0.5
#: Floors of a unit's end, best first: an end below one only where no end at it is in reach at all, however early.
_FLOORS = (_WORD, _INNER, _IDEOGRAPH_GAP)
#: The splitters of prose and of code, lists and tables, strongest first, with the strength of their cuts.
_BLOCK: list[tuple[_Splitter, float]] = [(line_or_cjk_mark_spans, _CLAUSE), (word_spans, _WORD), (inner_spans, _INNER)]
_PROSE: list[tuple[_Splitter, float]] = [(sentence_spans, _SENTENCE), (clause_or_line_spans, _CLAUSE), *_BLOCK[1:]]


def fitting_count(text: str, start: int, end: int, max_tokens: int, count: TokenCounter) -> int | None:
    """The tokens of ``text[start:end]`` when they are at most ``max_tokens``, else ``None`` (counted once)."""
    if end - start > max_tokens * _UNCOUNTED_FACTOR:
        return None
    tokens = span_count(text, start, end, count)
    return tokens if tokens <= max_tokens else None


def bounded_units(
    text: str,
    start: int,
    end: int,
    heading: bool,
    kind: str,
    max_tokens: int,
    count: TokenCounter,
    lead: int = 0,
) -> list[Unit]:
    """One unit for ``text[start:end]``, or several when it is over ``max_tokens``.

    Args:
        text: The document.
        start: Start of the block.
        end: End of the block.
        heading: The block opens with a heading.
        kind: ``"text"`` (prose), or ``"list"``, ``"table"``, ``"fence"`` (cut at line ends first).
        max_tokens: The most tokens a unit may hold.
        count: Token counter.
        lead: Tokens of the headings right before the block: its first unit holds ``max_tokens - lead`` at most.
    """
    limit = max(1, max_tokens - lead)
    tokens = fitting_count(text, start, end, limit, count)
    if tokens is not None:
        return [Unit(start, end, text[start:end], tokens, heading)]
    if kind != "text":  # a block that fits without its trailing whitespace stays whole
        body_end = start + len(text[start:end].rstrip())
        body = fitting_count(text, start, body_end, limit, count) if start < body_end < end else None
        if body is not None:
            tail = _fit(text, body_end, end, max_tokens, count, _BLOCK)
            head = Unit(start, body_end, text[start:body_end], body, heading)
            return [head, *(Unit(s, e, text[s:e], n, False) for s, e, n, _ in tail)]
    levels = _PROSE if kind == "text" else _BLOCK
    if heading and kind == "text":
        kept = _with_heading(text, start, end, max_tokens, limit, count)
        if kept is not None:
            return kept
    spans = _pack(text, _fit(text, start, end, max_tokens, count, levels), max_tokens, limit, count)
    return [Unit(s, e, text[s:e], n, heading and i == 0) for i, (s, e, n) in enumerate(spans)]


def _with_heading(
    text: str, start: int, end: int, max_tokens: int, limit: int, count: TokenCounter
) -> list[Unit] | None:
    """Units of a heading block over its limit: the heading lines and the start of the body in the first one.

    ``None`` when the heading alone leaves no room for body text.
    """
    body_start = heading_end(text, start, end)
    if not start < body_start < end:
        return None
    room = limit - _capped(text, start, body_start, limit, count)
    for _ in range(3):  # the counter need not be additive: shrink the room by what the first unit overshot
        if room < 1:
            return None
        pieces = _fit(text, body_start, end, max_tokens, count, _PROSE)
        spans = _pack(text, pieces, max_tokens, room, count)
        first_end = spans[0][1]
        tokens = count(text[start:first_end])
        if tokens <= limit:
            first = Unit(start, first_end, text[start:first_end], tokens, True)
            return [first, *(Unit(s, e, text[s:e], n, False) for s, e, n in spans[1:])]
        room -= tokens - limit
    return None


def _fit(
    text: str,
    start: int,
    end: int,
    max_tokens: int,
    count: TokenCounter,
    levels: list[tuple[_Splitter, float]],
    strength: float = _END,
) -> list[_Piece]:
    """``text[start:end]`` as pieces that fit, cut by the first splitter that helps; ``strength`` is its end's."""
    tokens = fitting_count(text, start, end, max_tokens, count)
    if tokens is not None:
        return [(start, end, tokens, strength)]
    if not levels:
        hard = _hard_split(text, start, end, max_tokens, count)
        return [(s, e, n, strength if e == end else _HARD) for s, e, n in hard]
    splitter = levels[0][0]
    out: list[_Piece] = []
    group: list[tuple[int, int]] = []  # short spans in a row, counted together (words: one count per few)
    for span in splitter(text, start, end):
        if group and span[1] - group[0][0] > max(max_tokens // _GROUP_SHARE, 1):
            out.extend(_group(text, group, end, max_tokens, count, levels, strength))
            group = []
        group.append(span)
    out.extend(_group(text, group, end, max_tokens, count, levels, strength))
    return out


def _group(
    text: str,
    spans: list[tuple[int, int]],
    end: int,
    max_tokens: int,
    count: TokenCounter,
    levels: list[tuple[_Splitter, float]],
    strength: float,
) -> list[_Piece]:
    """Pieces of consecutive spans of one splitter: one piece when they fit together, else each span fitted."""
    level = levels[0][1]
    g_start, g_end = spans[0][0], spans[-1][1]
    tokens = fitting_count(text, g_start, g_end, max_tokens, count) if len(spans) > 1 else None
    if tokens is not None:
        last = strength if g_end == end else _boundary(text, g_end, level)
        # a group that would end between two ideographs ends at its last full-strength end instead, if any
        full = [k for k, (_, e) in enumerate(spans[:-1], 1) if last < level == _boundary(text, e, level)]
        if not full:
            return [(g_start, g_end, tokens, last)]
        parts = (spans[: full[-1]], spans[full[-1] :])
        return [p for part in parts for p in _group(text, part, end, max_tokens, count, levels, strength)]
    out: list[_Piece] = []
    for s_start, s_end in spans:
        inner = strength if s_end == end else _boundary(text, s_end, level)
        out.extend(_fit(text, s_start, s_end, max_tokens, count, levels[1:], inner))
    return out


def _boundary(text: str, pos: int, level: float) -> float:
    """Strength of a cut at ``pos`` found by a splitter of ``level``: a gap between two ideographs is weak."""
    if not text[pos - 1].isspace():
        return level
    # the character after the gap first: the gap is scanned back only before an ideograph (once per run of
    # white space, not once per line of it)
    both = _is_ideograph(text[pos]) and _is_ideograph(text[_last_visible(text, pos)])
    return _IDEOGRAPH_GAP if both else level


def _hard_split(text: str, start: int, end: int, max_tokens: int, count: TokenCounter) -> list[tuple[int, int, int]]:
    """Cut ``text[start:end]`` at the largest prefixes that fit."""
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

    Gallops over windows that grow, then searches between the last window that fits and
    the first that does not, so every count is on a window at most a few times the final
    piece. Returns ``(cut, tokens)``; when not even the first indivisible character fits,
    that character alone is returned.
    """
    atom = _atom_end(text, start, end)
    atom_tokens = count(text[start:atom])
    if atom_tokens > max_tokens:
        return atom, atom_tokens  # documented exception: an oversized single character
    head_end = getattr(count, "head_end", None)
    if callable(head_end):
        found = _guided_prefix(text, start, end, atom, atom_tokens, max_tokens, count, head_end)
        if found is not None:
            return _valid_end(text, start, end, atom, found, count)
    good, good_tokens = atom, atom_tokens
    width = max(max_tokens * _CHARS_PER_TOKEN_GUESS, 1)
    bad = end + 1
    while good < end:
        probe = min(end, start + width)
        if probe <= good:
            width *= 2
            continue
        tokens = _capped(text, start, probe, max_tokens, count)
        if tokens <= max_tokens:
            good, good_tokens = probe, tokens
            width *= 2
        else:
            bad = probe
            break
    return _valid_end(text, start, end, atom, _bisect(text, start, good, good_tokens, bad, max_tokens, count), count)


def _bisect(
    text: str, start: int, lo: int, lo_tokens: int, hi: int, max_tokens: int, count: TokenCounter
) -> tuple[int, int]:
    """Binary search between a cut ``lo`` that fits (``lo_tokens``) and a cut ``hi`` that does not."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        tokens = _capped(text, start, mid, max_tokens, count)
        if tokens <= max_tokens:
            lo, lo_tokens = mid, tokens
        else:
            hi = mid
    return lo, lo_tokens


def _guided_prefix(
    text: str,
    start: int,
    end: int,
    atom: int,
    atom_tokens: int,
    max_tokens: int,
    count: TokenCounter,
    head_end: Callable[[str, int], tuple[int, int] | None],
) -> tuple[int, int] | None:
    """The search of :func:`_largest_prefix` led by a tiktoken encoding of the window (``count.head_end``).

    Windows grow in proportion to the tokens they held rather than doubling; in the first window
    over ``max_tokens``, the search starts where its ``max_tokens``-th token ends and gallops on
    from there. Where the count grows with the prefix, the largest prefix that fits is one cut, so
    this finds the one the binary search finds, with a few counts instead of one per halving.
    ``None`` when tiktoken cannot encode a window.
    """
    good, good_tokens = atom, atom_tokens
    width = max(max_tokens * _CHARS_PER_TOKEN_GUESS, 1)
    while True:
        probe = min(end, max(start + width, good + 1))
        found = head_end(text[start:probe], max_tokens)
        if found is None:
            return None
        tokens, guess = found
        if tokens <= max_tokens:
            if probe == end:
                return end, tokens
            good, good_tokens = probe, tokens
            width = max(2 * width, (probe - start) * max_tokens // max(tokens, 1) * 5 // 4)
            continue
        bad = probe
        guess = min(max(start + guess, good), bad - 1)
        if guess > good:
            tokens = count(text[start:guess])
            if tokens > max_tokens:
                return _bisect(text, start, good, good_tokens, guess, max_tokens, count)
            good, good_tokens = guess, tokens
        step = 1  # gallop on from the guess: the largest prefix is mostly a few characters past it
        while good + step < bad:
            tokens = _capped(text, start, good + step, max_tokens, count)
            if tokens > max_tokens:
                bad = good + step
                break
            good, good_tokens = good + step, tokens
            step *= 2
        return _bisect(text, start, good, good_tokens, bad, max_tokens, count)


def _valid_end(
    text: str, start: int, end: int, atom: int, found: tuple[int, int], count: TokenCounter
) -> tuple[int, int]:
    """Move a cut back off a CR LF or a surrogate pair (never before the first indivisible character)."""
    cut, tokens = found
    lo = cut
    while cut > atom and cut < end and not _valid_cut(text, cut):
        cut -= 1
    if cut != lo:
        tokens = count(text[start:cut])
    return cut, tokens


def _pack(
    text: str, pieces: list[_Piece], max_tokens: int, first_limit: int, count: TokenCounter
) -> list[tuple[int, int, int]]:
    """Pack pieces into ``(start, end, tokens)`` units of at most ``max_tokens`` (the first: ``first_limit``).

    Each unit reaches at most as far as the real count allows (:func:`_farthest`), and ends at the
    strongest boundary among those that keep at least half of that reach (ties: the later one).
    """
    if pieces and pieces[0][2] > first_limit:  # the first piece alone is over the first unit's room
        head = pieces[0]
        pieces = [*_fit(text, head[0], head[1], first_limit, count, _PROSE, head[3]), *pieces[1:]]
    out: list[tuple[int, int, int]] = []
    i = 0
    while i < len(pieces):
        limit = first_limit if not out else max_tokens
        start = pieces[i][0]
        far, far_tokens = _farthest(text, pieces, i, limit, count)
        best = _best_end(pieces, i, far)
        stop = pieces[best][1]
        tokens = far_tokens if best == far else pieces[i][2] if best == i else _capped(text, start, stop, limit, count)
        if tokens > limit:
            best, tokens = far, far_tokens
        out.append((start, pieces[best][1], tokens))
        i = best + 1
    return out


def _best_end(pieces: list[_Piece], i: int, far: int) -> int:
    """The piece a unit of pieces ``i..far`` ends with: the strongest in its later half, floor by floor (_FLOORS)."""
    start = pieces[i][0]
    reach = pieces[far][1] - start
    for floor in _FLOORS:
        able = [j for j in range(i, far + 1) if pieces[j][3] >= floor]
        late = [j for j in able if j == i or 2 * (pieces[j][1] - start) >= reach]
        if late and (late[-1] > i or 2 * (pieces[i][1] - start) >= reach):
            return max(late, key=lambda j: (pieces[j][3], j))
        if able:
            return able[-1]
    return far


def _farthest(text: str, pieces: list[_Piece], i: int, limit: int, count: TokenCounter) -> tuple[int, int]:
    """The last piece ``j >= i`` with ``count(pieces i..j) <= limit`` (``i`` itself at least), and that count.

    The sum of the pieces' counts gives the first guess (a sum counts a space between two words twice
    over, so it is mostly short); real counts then gallop on from it, or search back when it was over.
    """
    start, n = pieces[i][0], len(pieces)
    j, total = i, pieces[i][2]
    while j + 1 < n and total + pieces[j + 1][2] <= limit:
        j += 1
        total += pieces[j][2]
    tokens = pieces[i][2] if j == i else _capped(text, start, pieces[j][1], limit, count)
    good, good_tokens, bad = i, pieces[i][2], j
    if tokens <= limit:
        good, good_tokens, bad, step = j, tokens, n, 1
        while (probe := min(good + step, n - 1)) > good:  # windows at most twice the last one that fit
            tokens = _capped(text, start, pieces[probe][1], limit, count)
            if tokens > limit:
                bad = probe
                break
            good, good_tokens, step = probe, tokens, 2 * step
    while bad - good > 1:
        mid = (good + bad) // 2
        tokens = _capped(text, start, pieces[mid][1], limit, count)
        if tokens <= limit:
            good, good_tokens = mid, tokens
        else:
            bad = mid
    return good, good_tokens
