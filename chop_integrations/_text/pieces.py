"""Cutting a block that is over ``max_tokens`` into units that fit.

Prose is cut at sentence ends, then at line ends, then at the largest prefix that fits; code,
lists and tables at their own line ends only; small pieces are packed back together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .._types import Unit
from .structure import line_spans, sentence_spans
from .tokens import TokenCounter

#: Characters per token assumed when sizing the first window of a hard split.
_CHARS_PER_TOKEN_GUESS = 4
#: A text longer than ``max_tokens`` times this is treated as oversized without counting it whole.
_UNCOUNTED_FACTOR = 64
_Splitter = Callable[[str, int, int], Iterator[tuple[int, int]]]


def fitting_count(text: str, start: int, end: int, max_tokens: int, count: TokenCounter) -> int | None:
    """The tokens of ``text[start:end]`` when they are at most ``max_tokens``, else ``None`` (counted once)."""
    if end - start > max_tokens * _UNCOUNTED_FACTOR:
        return None
    tokens = count(text[start:end])
    return tokens if tokens <= max_tokens else None


def bounded_units(
    text: str, start: int, end: int, heading: bool, kind: str, max_tokens: int, count: TokenCounter
) -> list[Unit]:
    """One unit for ``text[start:end]``, or several when it is over ``max_tokens``.

    Prose is cut at sentence ends first, then at line ends; code, lists and tables
    at their own line ends only.
    """
    tokens = fitting_count(text, start, end, max_tokens, count)
    if tokens is not None:
        return [Unit(start, end, text[start:end], tokens, heading)]
    if kind != "text":  # a block that fits without its trailing whitespace stays whole
        body_end = start + len(text[start:end].rstrip())
        body = fitting_count(text, start, body_end, max_tokens, count) if start < body_end < end else None
        if body is not None:
            tail = _fit(text, body_end, end, max_tokens, count, [line_spans])
            head = Unit(start, body_end, text[start:body_end], body, heading)
            return [head, *(Unit(s, e, text[s:e], n, False) for s, e, n in tail)]
    splitters: list[_Splitter] = [line_spans] if kind != "text" else [sentence_spans, line_spans]
    pieces = _fit(text, start, end, max_tokens, count, splitters)
    spans = _pack(text, pieces, max_tokens, count)
    return [Unit(s, e, text[s:e], n, heading and i == 0) for i, (s, e, n) in enumerate(spans)]


def _fit(
    text: str, start: int, end: int, max_tokens: int, count: TokenCounter, splitters: list[_Splitter]
) -> list[tuple[int, int, int]]:
    """``text[start:end]`` as ``(start, end, tokens)`` pieces that fit, cut by the first splitter that helps."""
    tokens = fitting_count(text, start, end, max_tokens, count)
    if tokens is not None:
        return [(start, end, tokens)]
    if not splitters:
        return _hard_split(text, start, end, max_tokens, count)
    out: list[tuple[int, int, int]] = []
    for s_start, s_end in splitters[0](text, start, end):
        out.extend(_fit(text, s_start, s_end, max_tokens, count, splitters[1:]))
    return out


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
        tokens = count(text[start:probe])
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
        tokens = count(text[start:mid])
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
            tokens = count(text[start : good + step])
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
