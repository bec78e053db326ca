r"""Token counts of a document's lines from one encoding of the document, summed for any text made of them.

Segmentation counts every block, then a block that does not fit in pieces, then the heading run before a
block with the block, then the chunks: the same characters were encoded about twice over. For ``cl100k_base``
the tokens of a text are those of its parts, one after another, wherever it is cut at a *clean joint*: after a
line break, where a line that is not blank starts (its first character is not white space, as in
:func:`~chop_integrations._text.token_sums.clean_joint`, or it is indented). The proof for an unindented line is
in :mod:`~chop_integrations._text.token_sums`; an indented one adds a whitespace run after the line break,
with no line break in it before the line's first visible character. No piece of the pattern crosses such a
joint: a piece that holds the line break is ``\s*[\r\n]+`` (the longest whitespace ending with a line break:
it ends at the joint, as no line break follows in the run), ``\s++$`` (which fails in the whole text, as the
run ends before a visible character, and takes the same whitespace in the left part alone, which ends with
the line break) or a punctuation run's trailing line breaks (which stop at the indent); on the right the
pattern starts afresh at the joint, as it looks at nothing before a match.

So one encoding of a document gives the count of each of its *line segments* (the document cut at every clean
joint): the tokens whose bytes lie between the segment's first and last byte. :class:`LineCounts` keeps those
counts by segment, and for the text it read last the tokens before each joint, so a span of it between two
joints is counted by a subtraction (:meth:`LineCounts.span`, given the same string object). Any other text
to count is cut at its own clean joints and each piece that is a known segment is summed rather than encoded;
a run of other pieces (the start of a text that begins inside a line, a line of another document) is encoded.

Where it is unsure it encodes: a text that tiktoken cannot encode as it is (a lone surrogate) or overflows on
adds no counts; an encoding whose tokens do not end exactly at every segment's last byte (which the proof says
cannot happen) adds none either; a text longer than :data:`SUM_CHARS` is counted whole, as before (tiktoken
overflows only on whitespace runs near a million characters, and such a text is counted in halves: only
shorter texts are sure to count as the sum of their pieces). Memory is bounded: the counts of at most
:data:`TABLE_BUDGET_CHARS` characters of segments are kept (the older half is dropped first), so a document's
counts go once later documents have filled the table, and a huge document's as it is read (the engines read
a document in pieces, each encoded in parts of :data:`PART_CHARS`).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from collections.abc import Callable

from .tokens import get_encoding

__all__ = ["LINE_ADDITIVE", "PART_CHARS", "SUM_CHARS", "TABLE_BUDGET_CHARS", "LineCounts", "line_segments"]

#: Encodings additive at clean joints (see :mod:`~chop_integrations._text.token_sums` for the proof). Not
#: o200k_base (its punctuation runs take a trailing ``/`` after line breaks: ``".\n/"`` is one piece) nor the
#: GPT-2 style patterns (``\s+(?!\S)`` takes two line breaks as one piece at the end of a text, but not before
#: a letter).
LINE_ADDITIVE = frozenset({"cl100k_base"})
#: The longest text whose count is a sum of its pieces' counts (longer: counted whole, as before).
SUM_CHARS = 1 << 17
#: Characters encoded at once when a text's lines are counted (cut at a clean joint past this).
PART_CHARS = 1 << 17
#: The most characters of segments whose counts are kept (in two halves: the older is dropped first).
TABLE_BUDGET_CHARS = 1 << 22
#: A clean joint, found by the line break before it: a line that is not blank starts there (see the module docs).
_JOINT = re.compile(r"\n(?=[^\S\r\n]*\S)")
_SURROGATE = re.compile("[\ud800-\udfff]")


def line_segments(text: str) -> list[str]:
    """``text`` cut at every clean joint (after a line break, where a line that is not blank starts)."""
    cuts = [match.end() for match in _JOINT.finditer(text)]
    if not cuts:
        return [text]
    return [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]


def _consecutive(indexes: list[int]) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of consecutive numbers in the ascending ``indexes``."""
    runs: list[tuple[int, int]] = []
    for i in indexes:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


@functools.lru_cache(maxsize=4)
def _token_bytes(encoding_name: str) -> list[int]:
    """The bytes of each ordinary token of ``encoding_name``, by id (special tokens never occur: they count as text)."""
    ranks = get_encoding(encoding_name)._mergeable_ranks
    sizes = [0] * (max(ranks.values()) + 1)
    for token, rank in ranks.items():
        sizes[rank] = len(token)
    return sizes


class LineCounts:
    """The token counts of line segments read so far, for a tiktoken encoding additive at clean joints.

    Besides the counts by segment, it keeps, for the text it read last, the tokens before each of its clean
    joints: a span of that text between two joints is counted by a subtraction (:meth:`span`).

    Args:
        encoding_name: A tiktoken encoding in :data:`LINE_ADDITIVE`.
    """

    def __init__(self, encoding_name: str) -> None:
        self._core = get_encoding(encoding_name)._core_bpe
        self._sizes = _token_bytes(encoding_name)
        self._new: dict[str, int] = {}
        self._old: dict[str, int] = {}
        self._held = 0  # characters of the segments in _new
        # The text read last; its clean joints (and ends): offset -> tokens before it; the same offsets, in order.
        # One tuple, replaced whole once a text is read, so a span never mixes two texts.
        self._last: tuple[str, dict[int, int], list[int]] | None = None

    def add(self, text: str) -> None:
        """Encode ``text`` (in parts of about :data:`PART_CHARS`, cut at clean joints) and keep its segments' counts."""
        before, joints = {0: 0}, [0]
        start, tokens = 0, 0
        while start < len(text):
            joint = _JOINT.search(text, start + PART_CHARS) if len(text) - start > 2 * PART_CHARS else None
            end = joint.end() if joint else len(text)
            if end - start > 4 * PART_CHARS:
                break  # a line this long: no joint from here on has a known count before it
            segments = line_segments(text[start:end])
            counts = self._known(segments)
            if counts is None:  # not read: likewise
                break
            befores = list(itertools.accumulate(counts, initial=tokens))
            offsets = list(itertools.accumulate(map(len, segments), initial=start))
            before.update(zip(offsets, befores, strict=True))
            joints += offsets[1:]
            start, tokens = end, befores[-1]
        self._last = text, before, joints

    def span(self, text: str, start: int, end: int, direct: Callable[[str], int]) -> int | None:
        r"""The tokens of ``text[start:end]`` when ``text`` is the text read last, from its counts before its joints.

        A subtraction between the first joint from ``start`` and the last one up to ``end``; a piece before the
        first (``start`` inside a line) or after the last (``end`` inside a line, or in the indent of one) is
        counted by ``direct``. ``None`` for another text, a span with no joint inside, or a span over
        :data:`SUM_CHARS`.

        The piece after the last joint adds its own count: where it shows a visible character the joint is
        a clean one of the span too; else it is spaces or tabs (an indent, no line break in it), and no piece
        of the pattern crosses the line break before it (a run of white space holding a line break is
        ``\s*[\r\n]+``, which ends at its last line break; a punctuation run's line breaks stop there too),
        while the pattern starts afresh after it.
        """
        last = self._last
        if last is None or text is not last[0] or end - start > SUM_CHARS:
            return None
        before, joints = last[1], last[2]
        tokens_before, tokens_after, stop = before.get(start), before.get(end), end
        if tokens_after is None:  # end inside a line: the piece after its last joint counted on its own
            i = bisect.bisect_right(joints, end)
            if i == len(joints) or joints[i - 1] <= start:  # (a joint past it: that line's counts were read)
                return None
            end = joints[i - 1]
            tokens_after = before[end]
        if tokens_before is None:
            joint = joints[bisect.bisect_right(joints, start)]  # (0 is a joint, and end one past start)
            if joint >= end:
                return None
            tokens_before = before[joint] - direct(text[start:joint])
        return tokens_after - tokens_before + (direct(text[end:stop]) if stop > end else 0)

    def _known(self, segments: list[str]) -> list[int] | None:
        """Each segment's count: the kept ones looked up, each run of others encoded once (``None``: unsure).

        A document that repeats lines of earlier ones (manuals of one product family) is encoded only where new.
        """
        counts: list[int | None] = list(map(self._new.get, segments))
        missing = [i for i, tokens in enumerate(counts) if tokens is None]
        if len(missing) * 2 > len(segments):  # mostly new (text that repeats little): one encoding, all learnt
            return self._learn(segments)
        unknown: list[int] = []
        for i in missing:
            tokens = self._old.get(segments[i])
            if tokens is None:
                unknown.append(i)
            else:  # kept among the newer counts: it is still in use
                counts[i] = self._new[segments[i]] = tokens
                self._held += len(segments[i])
        for run in _consecutive(unknown):
            learnt = self._learn(segments[run[0] : run[1]])
            if learnt is None:
                return None
            counts[run[0] : run[1]] = learnt
        return counts  # type: ignore[return-value]  # (every None replaced)

    def _learn(self, segments: list[str]) -> list[int] | None:
        """Encode the joined ``segments`` once, keep and return each one's count (``None``: unsure)."""
        joined = "".join(segments)
        try:
            ids = self._core.encode(joined, set())  # special tokens as text, as TiktokenCounter counts them
            sizes = map(len, segments if joined.isascii() else map(str.encode, segments))
            ends = list(itertools.accumulate(sizes))
        except (ValueError, UnicodeEncodeError):  # an overflow, or a lone surrogate (tiktoken encodes it mended)
            return None
        token_ends = list(itertools.accumulate(map(self._sizes.__getitem__, ids)))
        last = list(map(bisect.bisect_left, itertools.repeat(token_ends), ends))  # each segment's last token
        if last[-1] >= len(token_ends) or not all(map(operator.eq, map(token_ends.__getitem__, last), ends)):
            return None  # a token across a joint: not what the proof says, so nothing is taken from this text
        if self._held + len(joined) > TABLE_BUDGET_CHARS // 2:
            self._old, self._new, self._held = self._new, {}, 0
        counts = list(map(operator.sub, last, [-1, *last[:-1]]))
        self._new.update(zip(segments, counts, strict=True))
        self._held += len(joined)
        return counts

    def count(self, text: str, direct: Callable[[str], int]) -> int:
        """The tokens of ``text``: known segments summed, every run of other pieces counted by ``direct``.

        ``text`` is at most :data:`SUM_CHARS` long (longer: the caller counts it whole). A text with a lone
        surrogate among the pieces to count is counted whole by ``direct``, as before (tiktoken mends the
        surrogate before it encodes, which the proof above does not cover).
        """
        known = self._new.get(text) or self._old.get(text)
        if known is not None:
            return known
        if _JOINT.search(text) is None:  # one piece (a sentence, a line): nothing to sum
            return direct(text)
        pieces = line_segments(text)
        total, run, missed = 0, -1, []  # pieces[run:i] are not known (run >= 0)
        new, old = self._new.get, self._old.get
        for i, piece in enumerate(pieces):
            tokens = new(piece) or old(piece)
            if tokens is None:
                if run < 0:
                    run = i
                continue
            if run >= 0:
                missed.append("".join(pieces[run:i]))
                run = -1
            total += tokens
        if run >= 0:
            missed.append("".join(pieces[run:]))
        if any(map(_SURROGATE.search, missed)):
            return direct(text)
        return total + sum(map(direct, missed))
