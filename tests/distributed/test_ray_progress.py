"""The Ray actors' LLM progress, reported on Ray's own progress bars (``tqdm_ray``), without a cluster."""

from __future__ import annotations

from typing import Any

from chop_integrations.ray import ChunkBatches
from chop_integrations.ray._progress import ActorProgress
from chop_integrations.testing import SimulatedLLM

from .conftest import synthetic_table


class _Bar:
    """Records what a ``tqdm_ray`` bar is told: its total, its count and its description."""

    def __init__(self) -> None:
        self.total = 0
        self.n = 0
        self.descriptions: list[str] = []
        self.flushed = -1

    def set_description(self, desc: str) -> None:
        self.descriptions.append(desc)

    def update(self, n: int = 1) -> None:
        assert n >= 0  # counts only grow
        self.n += n

    def refresh(self) -> None:
        self.flushed = self.n


def test_an_actor_reports_its_decisions_over_its_batches() -> None:
    actor = ChunkBatches(
        "chop", llm=SimulatedLLM(latency_ms=0), decisions="pair", defer_prefix=True, show_progress=True
    )
    assert actor.progress is not None
    bar: Any = _Bar()
    actor.progress = ActorProgress("CHOPChunker", bar)
    table = synthetic_table(6)
    calls = 0
    for part in (table.slice(0, 3), table.slice(3, 3)):
        actor(part)
        calls += actor.engine.last_usage.calls
    assert bar.n == bar.total == calls > 0  # pair mode: one decision per call, summed over both batches
    assert bar.flushed == calls  # sent at the end of each batch
    assert f"calls {calls} " in bar.descriptions[-1]


def test_no_bar_offline_or_unasked() -> None:
    assert ChunkBatches("chop", defer_prefix=True, show_progress=True).progress is None  # offline: no decisions
    assert ChunkBatches("chop", llm=SimulatedLLM(latency_ms=0), defer_prefix=True).progress is None
