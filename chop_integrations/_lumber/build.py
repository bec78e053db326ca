"""Chunks from chunk starts, built left to right with bounded state (shared by batch and stream runs)."""

from __future__ import annotations

from collections.abc import Sequence

from .._checks import chunk_metadata
from .._deciders import DocContext
from .._text.cuts import may_cut
from .._text.headings import HeadingStack
from .._text.token_sums import joined_count
from .._text.tokens import TokenCounter
from .._types import Chunk, Unit

__all__ = ["ChunkBuilder"]


class ChunkBuilder:
    """Turns spans of units into chunks: exact offsets, heading paths, running chunk index.

    Spans must come in document order; the builder keeps only the heading stack
    and the next chunk index, so a stream can drop units once their chunks are built.

    Args:
        doc: The document (its metadata goes into every chunk).
        max_tokens: A chunk whose real token count is over this is halved (unit sums may undercount).
        count: Token counter.
    """

    def __init__(self, doc: DocContext, *, max_tokens: int, count: TokenCounter) -> None:
        self.doc = doc
        self.max_tokens = max_tokens
        self.count = count
        self.index = 0
        self._headings = HeadingStack()
        self._entered = 0  # absolute index of the next unit the heading stack has not seen

    def build(self, units: Sequence[Unit], base: int, a: int, b: int) -> list[Chunk]:
        """Chunks of units ``a..b`` (absolute indexes; ``units[i - base]`` is unit ``i``)."""
        local = units[a - base : b - base]
        chunks = []
        for x, y, tokens in _checked(local, 0, len(local), self.max_tokens, self.count):
            self._skip_to(units, base, a + x)
            path = self._headings.enter(local[x])
            self._entered += 1
            for unit in local[x + 1 : y] if local[x].text.isspace() else ():
                path = self._headings.enter(unit)  # a chunk that opens with white space: its first text decides
                self._entered += 1
                if not unit.text.isspace():
                    break
            metadata = chunk_metadata(self.doc, self.index, local[x].start)
            metadata.setdefault("header_path", path)
            chunks.append(
                Chunk(
                    text="".join([u.text for u in local[x:y]]),
                    start=local[x].start,
                    end=local[y - 1].end,
                    token_count=tokens,
                    metadata=metadata,
                )
            )
            self.index += 1
        self._skip_to(units, base, b)
        return chunks

    def _skip_to(self, units: Sequence[Unit], base: int, end: int) -> None:
        """Walk the heading stack over the units before ``end`` whose paths no chunk takes (its headings only)."""
        if self._entered < end:
            for unit in units[self._entered - base : end - base]:
                if unit.heading:  # (entering any other unit leaves the stack as it is)
                    self._headings.enter(unit)
            self._entered = end


def _checked(units: Sequence[Unit], a: int, b: int, max_tokens: int, count: TokenCounter) -> list[tuple[int, int, int]]:
    """``[(a, b, tokens)]``, or halves of it while the chunk's real token count is over ``max_tokens``.

    The halving cut is the one nearest the middle that parts no heading from its body (the middle when all do).
    """
    tokens = joined_count(count, [u.text for u in units[a:b]], [u.tokens for u in units[a:b]])
    if b - a <= 1 or tokens <= max_tokens:
        return [(a, b, tokens)]
    mid = (a + b) // 2
    near = sorted(range(a + 1, b), key=lambda p: abs(p - mid))
    mid = next((p for p in near if may_cut(units, p)), mid)  # a heading stays with its body where it can
    return _checked(units, a, mid, max_tokens, count) + _checked(units, mid, b, max_tokens, count)
