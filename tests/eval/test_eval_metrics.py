import math

import pytest

from chop_integrations.eval.metrics import (
    ChunkRef,
    Gold,
    contains_hit_scores,
    dcg_at,
    grade,
    ideal_grades,
    is_span_hit,
    mean_scores,
    ndcg_at,
    reciprocal_rank,
    score_query,
)

GOLD = Gold("A", 100, 200)


@pytest.mark.parametrize(
    ("chunk", "expected"),
    [
        (ChunkRef("A", 100, 200), True),  # identical
        (ChunkRef("A", 120, 140), True),  # small chunk inside the section
        (ChunkRef("A", 0, 1000), True),  # big chunk containing the section
        (ChunkRef("A", 150, 400), True),  # overlap 50 = half of the shorter (100)
        (ChunkRef("A", 151, 400), False),  # overlap 49 < 50
        (ChunkRef("A", 200, 300), False),  # touches only
        (ChunkRef("A", 0, 100), False),
        (ChunkRef("B", 100, 200), False),  # right span, wrong document
        (ChunkRef("A", 150, 150), False),  # empty chunk
    ],
)
def test_is_span_hit(chunk, expected):
    assert is_span_hit(chunk, GOLD) is expected


def test_grades():
    assert grade(ChunkRef("A", 100, 200), GOLD) == 2
    assert grade(ChunkRef("A", 500, 600), GOLD) == 1
    assert grade(ChunkRef("B", 100, 200), GOLD) == 0


def test_reciprocal_rank_and_dcg():
    assert reciprocal_rank([False, False, True]) == pytest.approx(1 / 3)
    assert reciprocal_rank([False] * 10 + [True]) == 0.0  # beyond the cutoff
    assert dcg_at([2, 0, 1]) == pytest.approx(2 + 1 / 2)
    assert ndcg_at([0, 0], [0, 0]) == 0.0


def test_score_query_hand_made_ranking():
    ranked = [
        ChunkRef("B", 100, 200),  # wrong manual: grade 0
        ChunkRef("A", 500, 600),  # right manual, wrong section: grade 1
        ChunkRef("A", 90, 210),  # span hit: grade 2
    ] + [ChunkRef("C", 0, 10)] * 7
    pool = [ChunkRef("A", 90, 210), ChunkRef("A", 500, 600), ChunkRef("A", 0, 50), ChunkRef("B", 100, 200)]
    ideal = ideal_grades(pool, GOLD)
    assert ideal == [2, 1, 1]
    scores = score_query(ranked, GOLD, ideal)
    assert scores["doc@1"] == 0.0
    assert scores["doc@5"] == 1.0
    assert scores["doc@10"] == 1.0
    assert scores["span@1"] == 0.0
    assert scores["span@5"] == 1.0
    assert scores["mrr@10"] == pytest.approx(0.5)
    dcg = 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert scores["ndcg@10"] == pytest.approx(dcg / idcg)


def test_perfect_and_empty_rankings():
    pool = [ChunkRef("A", 100, 200), ChunkRef("A", 300, 400)]
    ideal = ideal_grades(pool, GOLD)
    perfect = score_query(pool, GOLD, ideal)
    assert all(v == pytest.approx(1.0) for v in perfect.values())
    nothing = score_query([ChunkRef("B", 0, 5)], GOLD, ideal)
    assert all(v == 0.0 for v in nothing.values())


def test_only_the_top_ten_count():
    ranked = [ChunkRef("B", 0, 5)] * 10 + [ChunkRef("A", 100, 200)]
    scores = score_query(ranked, GOLD, [2])
    assert scores["doc@10"] == 0.0 and scores["ndcg@10"] == 0.0


def test_contains_hit_and_mean():
    assert contains_hit_scores([False, True]) == {"hit@1": 0.0, "hit@5": 1.0, "hit@10": 1.0, "mrr@10": 0.5}
    assert mean_scores([{"x": 1.0}, {"x": 0.0}, {"x": 0.5}]) == {"x": 0.5}
    assert mean_scores([]) == {}
