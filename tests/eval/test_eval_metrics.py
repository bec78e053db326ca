import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_bench.eval.metrics import (
    ChunkRef,
    Gold,
    contains_hit_scores,
    dcg_at,
    grade,
    ideal_grades,
    iou_at,
    is_span_hit,
    mean_scores,
    ndcg_at,
    reciprocal_rank,
    score_query,
    span_iou,
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
    # Every metric is 1 but iou@5: the second chunk adds 100 characters outside the gold span.
    assert {k: v for k, v in perfect.items() if k != "iou@5"} == pytest.approx(
        dict.fromkeys(perfect.keys() - {"iou@5"}, 1.0)
    )
    assert perfect["iou@5"] == pytest.approx(0.5)
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


def test_span_iou_and_iou_at() -> None:
    gold = Gold("A", 100, 200)
    assert span_iou([ChunkRef("A", 100, 200)], gold) == 1.0
    assert span_iou([ChunkRef("A", 0, 400)], gold) == pytest.approx(100 / 400)  # a big chunk: low IoU
    assert span_iou([ChunkRef("A", 100, 150), ChunkRef("A", 140, 200)], gold) == 1.0  # overlapping chunks: union
    assert span_iou([ChunkRef("A", 150, 250)], gold) == pytest.approx(50 / 150)
    assert span_iou([ChunkRef("B", 100, 200)], gold) == 0.0  # other documents do not count
    assert span_iou([ChunkRef("A", 300, 400)], gold) == 0.0
    assert span_iou([], gold) == 0.0
    ranked = [ChunkRef("A", 100, 200), ChunkRef("A", 200, 300), ChunkRef("B", 0, 9)]
    assert iou_at(ranked, gold, 1) == 1.0
    assert iou_at(ranked, gold, 5) == pytest.approx(0.5)


def test_score_query_reports_iou() -> None:
    scores = score_query([ChunkRef("A", 50, 200)], Gold("A", 100, 200), [2])
    assert scores["iou@1"] == pytest.approx(100 / 150) and scores["iou@5"] == pytest.approx(100 / 150)


_spans = st.tuples(st.integers(0, 300), st.integers(1, 200)).map(lambda p: (p[0], p[0] + p[1]))


@given(gold=_spans, chunks=st.lists(_spans, max_size=6))
def test_span_iou_is_a_fraction_and_one_only_for_an_exact_cover(gold, chunks) -> None:
    target = Gold("A", *gold)
    refs = [ChunkRef("A", s, e) for s, e in chunks]
    value = span_iou(refs, target)
    assert 0.0 <= value <= 1.0
    covered = set().union(*(range(s, e) for s, e in chunks)) if chunks else set()
    expected = len(covered & set(range(*gold))) / len(covered | set(range(*gold))) if covered else 0.0
    assert value == pytest.approx(expected)
    assert span_iou([*refs, ChunkRef("B", 0, 999)], target) == value  # other documents never count


def test_span_coverage_is_the_share_of_the_gold_span_held() -> None:
    from chop_bench.eval.metrics import span_coverage

    gold = Gold("m", 100, 200)
    assert span_coverage([ChunkRef("m", 0, 1000)], gold) == 1.0  # all of it, however much else
    assert span_coverage([ChunkRef("m", 150, 170), ChunkRef("m", 160, 250)], gold) == pytest.approx(0.5)
    assert span_coverage([ChunkRef("other", 100, 200)], gold) == 0.0
    assert span_coverage([], Gold("m", 5, 5)) == 0.0
