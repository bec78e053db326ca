"""Retrieval metrics for the benchmark (``docs/architecture.md``, *Metrics*, in brief; exactly here).

Every metric is computed over the top 10 chunks retrieved for a query
(:data:`CUTOFF`). A chunk is known by the document it comes from and its exact
character span in that document (:class:`ChunkRef`); the gold answer of a
query is a document and a span (:class:`Gold`).

- ``doc@k``: 1 when a top-k chunk comes from the gold document (MRAMG-Bench's hit).
- ``span@k``: 1 when a top-k chunk from the gold document overlaps the gold span
  by at least half of the shorter of the two (:func:`is_span_hit`).
- ``mrr@10``: reciprocal rank of the first top-10 chunk from the gold document
  (document-level, like ``doc@k``); 0 when none of the ten is.
- ``ndcg@10``: graded nDCG (see :func:`grade` and :func:`ndcg_at`).
- ``iou@1``, ``iou@5``: how tightly the top-k chunks cover the gold span
  (precision-like; see :func:`iou_at`).
- ``cover@1``, ``cover@5``: how much of the gold span the top-k chunks hold (recall-like; see
  :func:`span_coverage`): what a generator handed those chunks can read of the answer's section.

This module is pure Python (no numpy) so it can be unit-tested exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: How many retrieved chunks every metric looks at.
CUTOFF = 10
#: The k of the ``doc@k`` and ``span@k`` columns.
KS: tuple[int, ...] = (1, 5, 10)
#: The k of the ``iou@k`` columns.
IOU_KS: tuple[int, ...] = (1, 5)
#: Relevance grade of a chunk from the gold document overlapping the gold span (see :func:`is_span_hit`).
SPAN_GRADE = 2
#: Relevance grade of any other chunk from the gold document.
DOC_GRADE = 1


@dataclass(frozen=True)
class ChunkRef:
    """Where a retrieved chunk lies: its document and character span ``[start, end)``."""

    doc: str
    start: int
    end: int


@dataclass(frozen=True)
class Gold:
    """The gold answer of a query: a document and a character span ``[start, end)`` in it."""

    doc: str
    start: int
    end: int


def is_span_hit(chunk: ChunkRef, gold: Gold) -> bool:
    """True when ``chunk`` is from the gold document and overlaps the gold span enough.

    Enough means an overlap of at least half the length of the shorter of the
    two spans, so a small chunk wholly inside a long section counts, and so does
    a large chunk that wholly contains a short section; a chunk that only grazes
    the section does not. Empty spans never hit.
    """
    if chunk.doc != gold.doc:
        return False
    overlap = min(chunk.end, gold.end) - max(chunk.start, gold.start)
    shorter = min(chunk.end - chunk.start, gold.end - gold.start)
    return overlap > 0 and 2 * overlap >= shorter


def _union(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Disjoint, sorted intervals covering exactly the non-empty ``spans``."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def span_iou(chunks: Iterable[ChunkRef], gold: Gold) -> float:
    """Intersection over union, in characters, of the chunks' spans in the gold document and the gold span.

    ``U`` = the union of the spans of those ``chunks`` that come from the gold
    document (chunks of other documents are ignored: ``doc@k`` already counts
    them), ``G`` = the gold span; the result is ``|U & G| / |U | G|``, 0.0 when no
    chunk is from the gold document. 1.0 means the chunks cover exactly the gold
    span; a chunk much larger than the section, or chunks that add other text of
    the document, lower it, which is why it is a precision-like companion of
    ``span@k`` (which a chunk holding the whole document would pass).
    """
    union = _union((c.start, c.end) for c in chunks if c.doc == gold.doc)
    if not union or gold.end <= gold.start:
        return 0.0
    covered = sum(end - start for start, end in union)
    inside = sum(max(0, min(end, gold.end) - max(start, gold.start)) for start, end in union)
    return inside / (covered + (gold.end - gold.start) - inside)


def span_coverage(chunks: Iterable[ChunkRef], gold: Gold) -> float:
    """The share of the gold span's characters that the chunks from the gold document hold, ``|U & G| / |G|``.

    0.0 when no chunk is from the gold document; 1.0 when they hold all of the gold span, however much
    else they hold (which :func:`span_iou` counts against them).
    """
    if gold.end <= gold.start:
        return 0.0
    union = _union((c.start, c.end) for c in chunks if c.doc == gold.doc)
    inside = sum(max(0, min(end, gold.end) - max(start, gold.start)) for start, end in union)
    return inside / (gold.end - gold.start)


def iou_at(ranked: Sequence[ChunkRef], gold: Gold, k: int) -> float:
    """:func:`span_iou` of the top ``k`` retrieved chunks (``iou@k``)."""
    return span_iou(ranked[:k], gold)


def grade(chunk: ChunkRef, gold: Gold) -> int:
    """Graded relevance of a chunk for nDCG: 2 span hit, 1 other chunk of the gold document, 0 otherwise.

    Why graded: the benchmark asks two questions, "did retrieval find the right
    manual?" and "did it find the right section of it?". A binary document-level
    nDCG would ignore the second; a binary span-level one would give no credit
    for the right manual, which is what users of near-identical manuals need
    first. Grades 2/1/0 order the two and keep both visible in one number.
    """
    if chunk.doc != gold.doc:
        return 0
    return SPAN_GRADE if is_span_hit(chunk, gold) else DOC_GRADE


def hit_at(flags: Sequence[bool], k: int) -> float:
    """1.0 when any of the first ``k`` flags is true, else 0.0."""
    return 1.0 if any(flags[:k]) else 0.0


def reciprocal_rank(flags: Sequence[bool], k: int = CUTOFF) -> float:
    """``1 / rank`` of the first true flag within the first ``k`` (rank starts at 1), else 0.0."""
    for rank, flag in enumerate(flags[:k], start=1):
        if flag:
            return 1.0 / rank
    return 0.0


def dcg_at(gains: Sequence[float], k: int = CUTOFF) -> float:
    """Discounted cumulative gain with linear gains: ``sum(g_i / log2(i + 1))`` for ranks ``i = 1..k``."""
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains[:k], start=1))


def ndcg_at(gains: Sequence[float], ideal_gains: Iterable[float], k: int = CUTOFF) -> float:
    """Normalised DCG: ``dcg_at(gains) / dcg_at(sorted(ideal_gains, reverse=True))``; 0.0 when the ideal is 0.

    Args:
        gains: Relevance grades of the retrieved chunks, in rank order.
        ideal_gains: The grades of every chunk in the judged pool (here: every
            chunk of the strategy's index), in any order; the ideal ranking puts
            the best ``k`` of them first.
        k: The cutoff.
    """
    ideal = dcg_at(sorted(ideal_gains, reverse=True), k)
    return dcg_at(gains, k) / ideal if ideal > 0 else 0.0


def ideal_grades(pool: Iterable[ChunkRef], gold: Gold, k: int = CUTOFF) -> list[int]:
    """The best ``k`` grades the pool offers for ``gold`` (the ideal ranking of :func:`ndcg_at`)."""
    return sorted((grade(c, gold) for c in pool if c.doc == gold.doc), reverse=True)[:k]


def score_query(ranked: Sequence[ChunkRef], gold: Gold, ideal: Sequence[int]) -> dict[str, float]:
    """Every metric for one query.

    Args:
        ranked: Retrieved chunks, best first (only the first :data:`CUTOFF` count).
        gold: The query's gold document and span.
        ideal: The grades of the ideal ranking (see :func:`ideal_grades`).

    Returns:
        ``doc@1``, ``doc@5``, ``doc@10``, ``span@1``, ``span@5``, ``span@10``,
        ``mrr@10``, ``ndcg@10``, ``iou@1``, ``iou@5``, ``cover@1`` and ``cover@5``, each in [0, 1].
    """
    top = list(ranked[:CUTOFF])
    grades = [grade(c, gold) for c in top]
    doc_flags = [g > 0 for g in grades]
    span_flags = [g == SPAN_GRADE for g in grades]
    scores = {f"doc@{k}": hit_at(doc_flags, k) for k in KS}
    scores.update({f"span@{k}": hit_at(span_flags, k) for k in KS})
    scores["mrr@10"] = reciprocal_rank(doc_flags, CUTOFF)
    scores["ndcg@10"] = ndcg_at(grades, ideal, CUTOFF)
    scores.update({f"iou@{k}": iou_at(top, gold, k) for k in IOU_KS})
    scores.update({f"cover@{k}": span_coverage(top[:k], gold) for k in IOU_KS})
    return scores


def contains_hit_scores(flags: Sequence[bool]) -> dict[str, float]:
    """Metrics for a containment judgement (GutenQA: a chunk hits when it contains the answer text).

    Returns ``hit@1``, ``hit@5``, ``hit@10`` and ``mrr@10``.
    """
    scores = {f"hit@{k}": hit_at(flags, k) for k in KS}
    scores["mrr@10"] = reciprocal_rank(flags, CUTOFF)
    return scores


def mean_scores(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Average each metric over queries (keys of the first query); empty input gives ``{}``."""
    if not per_query:
        return {}
    return {name: sum(q[name] for q in per_query) / len(per_query) for name in per_query[0]}
