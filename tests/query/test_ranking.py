"""The framework-free ordering the adapters share: the conditions test, the partition, the merge."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._query.ranking import meets, merged, partitioned


def test_meets_needs_every_condition() -> None:
    metadata = {"chop_model": "A1", "chop_category": "fan"}
    assert meets(metadata, {"chop_model": "A1"})
    assert meets(metadata, {})
    assert not meets(metadata, {"chop_model": "A1", "chop_category": "lamp"})
    assert not meets({}, {"chop_model": "A1"})


@given(st.lists(st.integers(0, 9)))
def test_partitioned_is_stable(items: list[int]) -> None:
    out = partitioned(iter(items), lambda i: i % 2 == 0)
    assert out == [i for i in items if i % 2 == 0] + [i for i in items if i % 2]


@given(st.lists(st.lists(st.integers(0, 9))), st.integers(0, 12))
def test_merged_keeps_first_of_each_key_in_order(groups: list[list[int]], limit: int) -> None:
    expected = list(dict.fromkeys(i for group in groups for i in group))[:limit]
    assert merged(([(i, g) for i in group] for g, group in enumerate(groups)), lambda p: p[0], limit) == [
        next((i, g) for g, group in enumerate(groups) for j in group if j == i) for i in expected
    ]
