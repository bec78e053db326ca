r"""Token counts of joined texts as sums of their parts' counts, where that is exact.

A chunk is a run of units whose counts are known; counting the chunk's text again encodes
it a second time. For tiktoken's ``cl100k_base`` (the default counter) the count of a join is
the sum of the parts' counts whenever the left part ends with a line break and the right
part starts with a non-whitespace character (a *clean joint*), because:

* tiktoken cuts a text into pieces with a regular expression and encodes each piece on its
  own (byte-pair merges never cross a piece), so a count is the sum over pieces;
* no piece of its pattern holds a line break followed by a non-whitespace character
  (letter runs may take one leading character, but never a line break; punctuation runs
  take trailing line breaks, never what follows them; whitespace pieces hold whitespace
  only), so the whole text's pieces end at the joint;
* the pieces left of the joint are those of the left part alone: the only alternatives that
  look past their match are ``\s++$`` and ``\s+(?!\S)``, and a whitespace run that reaches
  the joint ends with the line break, so ``\s++$`` and ``\s*[\r\n]`` take that same run
  whether the text goes on or not; the pieces right of it are those of the right part
  alone, as the pattern looks at nothing before a match.

Non-whitespace is read as Python's ``not str.isspace()``, which excludes a few more characters
than the pattern's ``\S`` does (so a joint is at worst taken as unclean). The property tests
compare the sums with a fresh encoding on random texts and cuts (whitespace, line breaks, CJK,
combining marks, punctuation). Any other counter, or any unclean joint, is counted directly.

A tiktoken count also has a floor no encoding is needed for: no token holds more bytes than the
encoding's longest (128 for ``cl100k_base``), and a character is at least one byte, so a text of more
characters than ``tokens`` times that is surely over ``tokens`` (:func:`surely_over`). A run of one
character has a lower ceiling: its tokens hold only that character's bytes (``*`` at most 80 of them in
``cl100k_base``, ``.`` 64). A search for the largest piece that fits skips such counts
(:func:`capped_count`); the branch it takes is the one the count would have taken.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .document_counts import LINE_ADDITIVE
from .run_memo import MemoCounter
from .tokens import TiktokenCounter, TokenCounter, get_encoding

__all__ = [
    *("capped_count", "clean_joint", "joined_count", "longest_token_bytes", "span_count", "sums_at_lines"),
    "surely_over",
]


def sums_at_lines(count: TokenCounter) -> bool:
    """Whether ``count`` is additive at every clean joint (a tiktoken counter of a checked encoding)."""
    return isinstance(count, TiktokenCounter) and count.encoding_name in LINE_ADDITIVE


@functools.lru_cache(maxsize=8)
def longest_token_bytes(encoding_name: str) -> int:
    """The most bytes one token of the tiktoken encoding ``encoding_name`` holds (special tokens count as text)."""
    return max(len(token) for token in get_encoding(encoding_name)._mergeable_ranks)


def surely_over(count: TokenCounter, chars: int, tokens: int) -> bool:
    """Whether any text of ``chars`` characters is sure to count over ``tokens`` with ``count``, without counting.

    True only for a tiktoken counter and more characters than ``tokens`` of its longest token hold (a
    character is one byte at least; a text tiktoken counts in halves sums halves bound alike).
    """
    return isinstance(count, TiktokenCounter) and chars > tokens * longest_token_bytes(count.encoding_name)


def capped_count(text: str, start: int, end: int, limit: int, count: TokenCounter) -> int:
    """The tokens of ``text[start:end]``, or ``limit + 1`` where they are surely over ``limit`` (not counted)."""
    if surely_over(count, end - start, limit) or _run_over(text, start, end, limit, count):
        return limit + 1
    return span_count(text, start, end, count)


def span_count(text: str, start: int, end: int, count: TokenCounter) -> int:
    """The tokens of ``text[start:end]``, from a run's line counts where it can.

    A run's counter subtracts its counts before two clean joints of the text it read last
    (:meth:`~chop_integrations._text.run_memo.MemoCounter.span`); any other counter counts the slice.
    """
    if isinstance(count, MemoCounter):
        return count.span(text, start, end)
    return count(text[start:end])


def _run_over(text: str, start: int, end: int, limit: int, count: TokenCounter) -> bool:
    """True when ``text[start:end]`` repeats one character, and holds more of its bytes than ``limit`` tokens can."""
    if not isinstance(count, TiktokenCounter) or end - start <= limit:
        return False
    char = text[start]
    if char != text[end - 1] or "\ud800" <= char <= "\udfff" or text.count(char, start, end) != end - start:
        return False
    return (end - start) * len(char.encode()) > limit * _longest_run_token(count.encoding_name, char)


@functools.lru_cache(maxsize=64)
def _longest_run_token(encoding_name: str, char: str) -> int:
    """The most bytes a token made only of ``char``'s bytes holds (a run of ``char`` encodes into such tokens)."""
    allowed = set(char.encode())
    return max(
        (len(token) for token in get_encoding(encoding_name)._mergeable_ranks if set(token) <= allowed), default=1
    )


def clean_joint(left: str, right: str) -> bool:
    """Whether ``left`` ends with a line break and ``right`` starts with a non-whitespace character."""
    return left.endswith("\n") and right[:1] != "" and not right[0].isspace()


def joined_count(count: TokenCounter, texts: Sequence[str], counts: Sequence[int]) -> int:
    """The tokens of ``"".join(texts)``, given each text's count.

    With a counter that :func:`sums_at_lines`, the counts are summed across clean joints and
    only a run of texts joined elsewhere is counted again (as one string); with any other
    counter the joined text is counted directly (one text: its count).
    """
    if len(texts) == 1:
        return counts[0]
    if not sums_at_lines(count):
        return count("".join(texts))
    total, run = 0, 0  # texts[run:i] are joined at unclean joints
    for i in range(1, len(texts) + 1):
        if i == len(texts) or clean_joint(texts[i - 1], texts[i]):
            total += counts[run] if i - run == 1 else count("".join(texts[run:i]))
            run = i
    return total
