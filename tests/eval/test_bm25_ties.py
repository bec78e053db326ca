"""The bench's BM25 ranks equal scores by index, whatever else the index holds (as the dense retriever does)."""

from __future__ import annotations

import pytest

from chop_bench.eval.retrievers import BM25Retriever

pytest.importorskip("bm25s")

_SAME = "Galaxy Note 8: OneDrive stores and shares photos and videos in your free online account."
_OTHER = [
    "Wi-Fi connects your device to a network without mobile data.",
    "Bluetooth pairs your device with headphones and speakers nearby.",
    "The Gallery shows the pictures and videos stored on your device.",
    "Dual messenger uses two separate accounts for the same app.",
]


@pytest.mark.parametrize("filler", range(len(_OTHER) + 1))
def test_a_tie_between_two_equal_chunks_goes_to_the_one_indexed_first(filler: int) -> None:
    # The two equal chunks sit among a varying number of other chunks: bm25s's own partial sort let the filler
    # decide which of them came first.
    texts = [*_OTHER[:filler], _SAME, _SAME.replace("Note 8", "Note 9"), *_OTHER[filler:]]
    retriever = BM25Retriever()
    retriever.index(texts)
    (top,) = retriever.search(["OneDrive on the Galaxy Note 8"], k=3)
    assert top[:2] == [filler, filler + 1]  # "8" and "9" are one-character words BM25 drops: the scores are equal


def test_ranks_follow_the_scores_and_a_query_of_stop_words_alone_gets_the_first_chunks() -> None:
    retriever = BM25Retriever()
    retriever.index(_OTHER)
    # One chunk matches each query; the rest score 0 and follow in index order.
    assert retriever.search(["pictures videos gallery", "bluetooth headphones"], k=2) == [[2, 0], [1, 0]]
    assert retriever.search(["the and of"], k=2) == [[0, 1]]
