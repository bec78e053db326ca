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


def _fits(text: str, start: int, end: int, max_tokens: int, count: TokenCounter) -> bool:
    return end - start <= max_tokens * _UNCOUNTED_FACTOR and count(text[start:end]) <= max_tokens


def bounded_units(
    text: str, start: int, end: int, heading: bool, kind: str, max_tokens: int, count: TokenCounter
) -> list[Unit]:
    """One unit for ``text[start:end]``, or several when it is over ``max_tokens``.

    Prose is cut at sentence ends first, then at line ends; code, lists and tables
    at their own line ends only.
    """
    if _fits(text, start, end, max_tokens, count):
        return [Unit(start, end, text[start:end], count(text[start:end]), heading)]
    if kind != "text":  # a block that fits without its trailing whitespace stays whole
        body_end = start + len(text[start:end].rstrip())
        if start < body_end < end and _fits(text, start, body_end, max_tokens, count):
            tail = _fit(text, body_end, end, max_tokens, count, [line_spans])
            head = Unit(start, body_end, text[start:body_end], count(text[start:body_end]), heading)
            return [head, *(Unit(s, e, text[s:e], n, False) for s, e, n in tail)]
    splitters: list[_Splitter] = [line_spans] if kind != "text" else [sentence_spans, line_spans]
    pieces = _fit(text, start, end, max_tokens, count, splitters)
    spans = _pack(text, pieces, max_tokens, count)
    return [Unit(s, e, text[s:e], n, heading and i == 0) for i, (s, e, n) in enumerate(spans)]


def _fit(
    text: str, start: int, end: int, max_tokens: int, count: TokenCounter, splitters: list[_Splitter]
) -> list[tuple[int, int, int]]:
    """``text[start:end]`` as ``(start, end, tokens)`` pieces that fit, cut by the first splitter that helps."""
    if _fits(text, start, end, max_tokens, count):
        return [(start, end, count(text[start:end]))]
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
