"""CHOP's engine and stream at a topic change that no heading marks: the offline continuity threshold decides.

A manual's air-filter paragraphs, then a harbour story, with only a blank line between: the first chunk of the
story must not inherit the manual's signature (``chop_continues`` False), every other chunk of a topic must.
The stream meets the same change in pieces and decides the same. The threshold itself is tested at its edge.
"""

from __future__ import annotations

from collections import Counter

import pytest

from chop_integrations import CHOPChunker, OfflineContinuity
from chop_integrations._deciders import DocContext
from chop_integrations._offline._text import cosine, words
from chop_integrations._types import Chunk

FILTER = (
    "Switch the unit off. Pull the air filter out and rinse the filter under warm water. Let the filter dry "
    "before you put the air filter back into the unit. A clean filter keeps the air flow strong and the unit quiet. "
)
HARBOUR = (
    "The harbour master counted ships and coal sacks while sailors tied ropes on the quay. Gulls cried over the "
    "harbour and the sailors sang as the ships left the quay at dawn. "
)
DOC = "Breezer X-200 air conditioner manual\n\n" + FILTER * 3 + "\n\n" + HARBOUR * 3


def make_doc(text: str) -> DocContext:
    return DocContext(doc_id="doc", text=text, metadata={})


def chunk(text: str) -> Chunk:
    return Chunk(text=text, start=0, end=len(text), token_count=len(text.split()))


def _topics(chunks: list[Chunk]) -> list[str]:
    return ["harbour" if "harbour" in c.text or "sailors" in c.text else "filter" for c in chunks]


def _check(chunks: list[Chunk]) -> None:
    assert "".join(c.text for c in chunks) == DOC
    topics = _topics(chunks)
    change = topics.index("harbour")
    assert 1 < change < len(chunks) - 1  # filter chunks before it, harbour chunks after it
    continues = [c.metadata["chop_continues"] for c in chunks]
    assert continues[change] is False  # a new topic: a fresh signature, though no heading says so
    assert all(continues[1:change]) and all(continues[change + 1 :])  # within a topic: inherited


def test_the_engine_starts_afresh_where_the_topic_changes() -> None:
    _check(CHOPChunker(max_tokens=60).chunk(DOC))


@pytest.mark.parametrize("size", [7, 97, 1000])
def test_the_stream_meets_the_change_in_pieces_and_decides_the_same(size: int) -> None:
    pieces = [DOC[i : i + size] for i in range(0, len(DOC), size)]
    streamed = list(CHOPChunker(max_tokens=60).chunk_stream(pieces))
    _check(streamed)
    assert [(c.text, c.metadata["chop_continues"]) for c in streamed] == [
        (c.text, c.metadata["chop_continues"]) for c in CHOPChunker(max_tokens=60).chunk(DOC)
    ]


def test_with_no_threshold_the_engine_never_sees_the_change() -> None:
    """The threshold is what finds it: at zero every chunk after the first inherits (so the test above can fail)."""
    chunks = CHOPChunker(max_tokens=60, offline_continuity=OfflineContinuity(min_similarity=0.0)).chunk(DOC)
    assert [c.metadata["chop_continues"] for c in chunks][1:] == [True] * (len(chunks) - 1)


def _similarity(before: str, after: str) -> float:
    return cosine(Counter(words(before)), Counter(words(after)))


def test_the_threshold_is_inclusive_at_its_edge() -> None:
    previous, current = chunk(FILTER), chunk("Rinse the filter once a month, and dry the unit's filter frame.")
    doc = make_doc(DOC)
    edge = _similarity(previous.text, current.text)
    assert 0 < edge < 1
    assert OfflineContinuity(min_similarity=edge).decide(previous, current, doc) is True
    assert OfflineContinuity(min_similarity=edge + 1e-9).decide(previous, current, doc) is False
    assert OfflineContinuity().decide(previous, chunk(HARBOUR), doc) is False  # the default: below 0.08
    assert OfflineContinuity().decide(previous, current, doc) is True


def test_only_the_edges_are_compared() -> None:
    """``edge_chars`` of the previous chunk's end and the current one's start: words beyond them do not count."""
    doc = make_doc(DOC)
    previous = chunk(FILTER + HARBOUR)  # ends on the harbour
    current = chunk(HARBOUR + FILTER * 4)  # opens on the harbour
    assert OfflineContinuity(edge_chars=len(HARBOUR)).decide(previous, current, doc) is True
    shifted = chunk(FILTER + HARBOUR * 4)  # opens on the filter: against the harbour edge, a change
    assert OfflineContinuity(edge_chars=len(HARBOUR)).decide(previous, shifted, doc) is False
    assert OfflineContinuity(edge_chars=10_000).decide(previous, shifted, doc) is True  # whole chunks: shared words


def test_nothing_to_compare_keeps_the_context() -> None:
    doc = make_doc(DOC)
    assert OfflineContinuity().decide(chunk("... --- ..."), chunk(HARBOUR), doc) is True
    assert OfflineContinuity().decide(chunk(FILTER), chunk("1234 5678"), doc) is True
