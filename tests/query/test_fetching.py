"""``Deepening``: a search filtered on the client returns the first ``k`` kept hits of the whole ranking."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._query.fetching import Deepening


@given(
    flags=st.lists(st.booleans(), max_size=300),
    k=st.integers(1, 40),
    start=st.integers(1, 60),
    limit=st.integers(1, 400),
)
def test_the_first_k_kept_of_the_ranking_within_the_limit(flags: list[bool], k: int, start: int, limit: int) -> None:
    ranking = list(enumerate(flags))
    depths: list[int] = []
    deepening = Deepening(k, start, lambda hit: hit[1], limit=limit)
    while True:
        depths.append(deepening.depth)
        if (kept := deepening.take(ranking[: deepening.depth])) is not None:
            break
    reach = max(limit, k)
    assert kept == [hit for hit in ranking[:reach] if hit[1]][:k]  # never fewer than k when the reach holds k
    assert depths == sorted(set(depths)) and depths[-1] <= reach  # deeper each time, bounded
    assert len(depths) <= 1 + max(reach, 1).bit_length()


@given(
    flags=st.lists(st.booleans(), max_size=300),
    k=st.integers(1, 40),
    start=st.integers(1, 60),
    growth=st.integers(2, 5),
)
def test_an_index_that_ignores_the_depth_is_asked_twice_at_most(
    flags: list[bool], k: int, start: int, growth: int
) -> None:
    """An index that gives all it holds whatever the depth (a ``SummaryIndex``) holds no more the second time."""
    ranking = list(enumerate(flags))
    deepening = Deepening(k, start, lambda hit: hit[1], growth=growth)
    asked = 0
    while (kept := deepening.take(ranking)) is None:
        asked += 1
    assert asked <= 1
    assert kept == [hit for hit in ranking if hit[1]][:k]
