"""Content-defined windows: editing one section re-asks only the LLM windows around the edit (issue 15)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_bench.scale.incremental import edit_one_section, tiling
from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._chop.excerpts import PromptBudget
from chop_integrations._chop.plan import Plan, windows
from chop_integrations._errors import ConfigurationError
from chop_integrations._lumber.plans import window_end
from chop_integrations._text.tiling import ContentCuts, content_hash
from chop_integrations._types import Chunk, Unit
from tests.support.data import MANUALS

from .support import insert_paragraph, manual, reasked

SEEDS = range(6)
#: Smaller CHOP windows than the default, so that a synthetic manual holds enough of them.
BUDGET = PromptBudget(window_tokens=600)
ENGINES: dict[str, Any] = {
    "lumber": lambda llm, cache: LumberChunker(llm, cache=cache, max_tokens=200),
    "chop": lambda llm, cache: CHOPChunker(llm, cache=cache, max_tokens=200, budget=BUDGET),
    "chop-llm-boundaries": lambda llm, cache: CHOPChunker(
        llm, cache=cache, max_tokens=200, budget=BUDGET, llm_boundaries=True
    ),
}


@pytest.mark.parametrize(("method", "most"), [("lumber", 3), ("chop", 3), ("chop-llm-boundaries", 5)])
def test_an_inserted_paragraph_reasks_only_the_windows_around_it(method: str, most: int) -> None:
    make = ENGINES[method]
    content = [reasked(make, manual(seed), insert_paragraph(manual(seed))) for seed in SEEDS]
    with tiling("positional"):
        positional = [reasked(make, manual(seed), insert_paragraph(manual(seed))) for seed in SEEDS]
    assert min(full for full, _ in content) >= 10  # enough windows for a cascade to show
    assert max(again for _, again in content) <= most  # with the LLM's boundaries: its windows and CHOP's
    # By position, the inserted paragraph can shift every window after it.
    assert sum(again for _, again in positional) > sum(again for _, again in content)


def test_an_unchanged_document_costs_no_call() -> None:
    full, again = reasked(ENGINES["chop-llm-boundaries"], manual(7), manual(7))
    assert full > 0 and again == 0


@pytest.mark.skipif(not MANUALS.is_dir(), reason="the manuals are not beside the checkout")
@pytest.mark.parametrize("method", ["lumber", "chop"])
def test_editing_one_section_of_a_manual_reasks_at_most_a_few_windows(method: str) -> None:
    make = {"lumber": lambda llm, cache: LumberChunker(llm, cache=cache), "chop": ENGINES["chop"]}[method]
    for path in sorted(MANUALS.glob("*.txt"))[:4]:
        text = path.read_text(encoding="utf-8")
        for edited in (edit_one_section(text), insert_paragraph(text)):
            full, again = reasked(make, text, edited)
            assert again <= 3, (path.name, full, again)


# -- the tiling itself ------------------------------------------------------------------------------


def test_content_hash_is_stable_across_processes() -> None:
    code = "from chop_integrations._text.tiling import content_hash; print(content_hash('Battery'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == content_hash("Battery") != content_hash("battery")


@pytest.mark.parametrize(("low", "mean"), [(-0.1, 0.3), (1.1, 0.3), (0.3, 0.0), (0.3, 1.5)])
def test_content_cuts_reject_shares_out_of_range(low: float, mean: float) -> None:
    with pytest.raises(ConfigurationError):
        ContentCuts(min_share=low, expected_share=mean)


def _units(sizes: list[int], words: list[int]) -> list[Unit]:
    units, start = [], 0
    for size, word in zip(sizes, itertools.cycle(words), strict=False):
        text = f"unit {word} {size}\n\n"
        units.append(Unit(start, start + len(text), text, size))
        start += len(text)
    return units


def _tiles(units: list[Unit], capacity: int) -> list[tuple[int, int]]:
    cum = [0, *itertools.accumulate(u.tokens for u in units)]
    tiles, first = [], 0
    while first < len(units):
        end = window_end(units, cum, first, capacity)
        tiles.append((first, end))
        first = end
    return tiles


sizes = st.lists(st.integers(1, 120), min_size=1, max_size=80)


@given(sizes=sizes, words=st.lists(st.integers(0, 30), min_size=1, max_size=10), capacity=st.integers(50, 600))
def test_windows_tile_the_units_within_the_capacity(sizes: list[int], words: list[int], capacity: int) -> None:
    units = _units(sizes, words)
    tiles = _tiles(units, capacity)
    assert [a for a, _ in tiles] == [0, *(b for _, b in tiles[:-1])] and tiles[-1][1] == len(units)
    assert all(b - a == 1 or sum(u.tokens for u in units[a:b]) <= capacity for a, b in tiles)


@given(sizes=sizes, words=st.lists(st.integers(0, 30), min_size=1, max_size=10), data=st.data())
def test_windows_are_placed_left_to_right(sizes: list[int], words: list[int], data: st.DataObject) -> None:
    """A window depends only on the units up to the first past its capacity: editing later units never moves it."""
    units = _units(sizes, words)
    cut = data.draw(st.integers(0, len(units)))
    changed = units[:cut] + _units(data.draw(st.lists(st.integers(1, 120), max_size=20)), [99])
    known = sum(u.tokens for u in units[:cut])

    def settled(tiles: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(a, b) for a, b in tiles if known - sum(u.tokens for u in units[:a]) > 300]

    assert settled(_tiles(units, 300)) == settled(_tiles(changed, 300))


def _plan(sizes: list[int], resets: set[int]) -> Plan:
    chunks = [Chunk(text=f"chunk {i % 7} {size}", start=0, end=1, token_count=size) for i, size in enumerate(sizes)]
    return Plan(chunks, [None] * len(chunks), sorted({0} | resets), [])  # type: ignore[list-item]


@given(
    sizes=st.lists(st.integers(1, 400), min_size=1, max_size=120),
    resets=st.sets(st.integers(1, 119), max_size=6),
    budget=st.builds(PromptBudget, window_tokens=st.integers(150, 1500), window_chunks=st.integers(1, 24)),
)
def test_chop_windows_tile_the_chunks(sizes: list[int], resets: set[int], budget: PromptBudget) -> None:
    plan = _plan(sizes, {r for r in resets if r < len(sizes)})
    tiles = windows(plan, budget)
    assert [a for a, _ in tiles] == [0, *(b for _, b in tiles[:-1])] and tiles[-1][1] == len(sizes)
    shown = [min(size, budget.cnm_tokens + budget.tail_tokens) + 4 for size in sizes]
    for a, b in tiles:
        assert not any(i in plan.starts for i in range(a + 1, b))  # never across a signature reset
        assert b - a == 1 or (b - a <= budget.window_chunks and sum(shown[a:b]) <= budget.window_tokens)
