"""Live progress and the run's limits: the ``on_progress`` counts and ``max_calls`` / ``max_llm_tokens``.

Offline and fast: :class:`SimulatedLLM` with no latency (and :class:`FaultyLLM` around it for retries and
fallbacks). No test reads the clock.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations import (
    BudgetExceededError,
    CHOPChunker,
    ConfigurationError,
    LumberChunker,
    Progress,
)
from chop_integrations._llm import progress as live
from chop_integrations._llm.progress_bar import watched
from chop_integrations.testing import SimulatedLLM
from chop_integrations.testing._faulty import FaultyLLM

SECTION = (
    "{n}. Cleaning the {part}\n\nTurn the {model} off and unplug it. Take the {part} out, rinse it under warm "
    "water and let it dry for an hour before you put it back. Never use a brush on the {part}.\n\n"
)
PARTS = ("air filter", "water tank", "drip tray", "lens cover", "paper tray", "fan grille")


def manual(model: str, sections: int = 12) -> str:
    return "".join(SECTION.format(n=i + 1, part=PARTS[i % len(PARTS)], model=model) for i in range(sections))


DOCS = [manual("AX-200"), manual("AX-300", 9)]
METAS = [{"source": "ax200.txt"}, {"source": "ax300.txt"}]
COUNTERS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "retries", "fallbacks", "invalid_answers")


def _monotone(seen: list[Progress]) -> None:
    for before, after in itertools.pairwise(seen):
        for field in dataclasses.fields(Progress):
            assert getattr(after, field.name) >= getattr(before, field.name), field.name


@settings(max_examples=12)
@given(
    decisions=st.sampled_from(["window", "pair", "separate"]),
    concurrency=st.integers(1, 6),
    fault_rate=st.sampled_from([0.0, 0.3]),
)
def test_the_callback_sees_monotone_counts_that_end_at_the_usage_report(
    decisions: str, concurrency: int, fault_rate: float
) -> None:
    seen: list[Progress] = []
    llm = FaultyLLM(SimulatedLLM(latency_ms=0), rate=fault_rate, faults=("garbage", "server_error"), seed=3)
    chop = CHOPChunker(llm, decisions=decisions, max_concurrency=concurrency, on_progress=seen.append)
    chop.chunk_many(DOCS, metadatas=METAS)
    usage = chop.last_usage
    assert seen, "the callback was never called"
    _monotone(seen)
    last = seen[-1]
    assert {name: getattr(last, name) for name in COUNTERS} == {name: getattr(usage, name) for name in COUNTERS}
    assert last.calls == llm.calls  # every request the model received, retries included
    assert last.decisions >= 1 and last.planned_decisions >= 1 and last.planned_tokens >= 1  # the dry run's plan


def test_lumber_with_llm_boundaries_counts_base_and_chop_calls_once() -> None:
    seen: list[Progress] = []
    chop = CHOPChunker(SimulatedLLM(latency_ms=0), llm_boundaries=True, on_progress=seen.append)
    chop.chunk_many(DOCS, metadatas=METAS)
    usage = chop.last_usage
    assert seen[-1].calls == usage.calls and seen[-1].prompt_tokens == usage.prompt_tokens
    lumber_seen: list[Progress] = []
    lumber = LumberChunker(SimulatedLLM(latency_ms=0), max_tokens=60, on_progress=lumber_seen.append)
    lumber.chunk_many(DOCS, metadatas=METAS)
    assert lumber_seen[-1].decisions == lumber_seen[-1].planned_decisions == lumber.last_usage.calls > 1


@settings(max_examples=15)
@given(limit=st.integers(1, 12), concurrency=st.integers(1, 6))
def test_max_calls_stops_the_run_at_the_limit_and_sends_nothing_past_it(limit: int, concurrency: int) -> None:
    llm = SimulatedLLM(latency_ms=0)
    chop = CHOPChunker(llm, decisions="pair", max_concurrency=concurrency, max_calls=limit)
    with pytest.raises(BudgetExceededError, match=f"limit of {limit} LLM calls") as raised:
        chop.chunk_many(DOCS, metadatas=METAS)
    assert llm.calls == limit  # the calls in flight ended and were counted; none was started past the limit
    assert chop.last_usage.calls == limit and chop.last_usage.wall_s > 0
    assert isinstance(raised.value.progress, Progress) and raised.value.progress.calls == limit


def test_a_stream_is_watched_and_limited_too() -> None:
    seen: list[Progress] = []
    lumber = LumberChunker(SimulatedLLM(latency_ms=0), max_tokens=30, on_progress=seen.append)
    chunks = list(lumber.chunk_stream(iter(DOCS[0][i : i + 200] for i in range(0, len(DOCS[0]), 200))))
    assert "".join(c.text for c in chunks) == DOCS[0]
    assert seen and seen[-1].calls == lumber.last_usage.calls > 2 and seen[-1].decisions == seen[-1].calls
    llm = SimulatedLLM(latency_ms=0)
    limited = LumberChunker(llm, max_tokens=30, max_calls=2)
    with pytest.raises(BudgetExceededError, match="limit of 2 LLM calls"):
        list(limited.chunk_stream(iter([DOCS[0]])))
    assert llm.calls == 2


def test_a_run_under_its_limit_is_unchanged() -> None:
    free = CHOPChunker(SimulatedLLM(latency_ms=0), decisions="pair")
    expected = free.chunk_many(DOCS, metadatas=METAS)
    limited = CHOPChunker(SimulatedLLM(latency_ms=0), decisions="pair", max_calls=free.last_usage.calls)
    assert limited.chunk_many(DOCS, metadatas=METAS) == expected
    assert limited.last_usage.calls == free.last_usage.calls


def _unlimited(decisions: str) -> tuple[int, int]:
    """The tokens an unlimited run spends, and the most one of its calls spent (from its callback's steps)."""
    seen: list[Progress] = []
    CHOPChunker(SimulatedLLM(latency_ms=0), decisions=decisions, on_progress=seen.append).chunk_many(
        DOCS, metadatas=METAS
    )
    steps = [b.tokens - a.tokens for a, b in itertools.pairwise([Progress(), *seen]) if b.calls > a.calls]
    return seen[-1].tokens, max(steps)


@settings(max_examples=10)
@given(share=st.floats(0.05, 0.95), decisions=st.sampled_from(["pair", "separate"]))
def test_max_llm_tokens_stops_within_one_decision_of_the_limit(share: float, decisions: str) -> None:
    total, largest = _unlimited(decisions)
    limit = max(1, int(total * share))
    chop = CHOPChunker(SimulatedLLM(latency_ms=0), decisions=decisions, max_concurrency=1, max_llm_tokens=limit)
    with pytest.raises(BudgetExceededError, match="would pass the run's limit"):
        chop.chunk_many(DOCS, metadatas=METAS)
    usage = chop.last_usage
    spent = usage.prompt_tokens + usage.completion_tokens
    assert usage.prompt_tokens <= limit  # no prompt was sent past the limit
    assert limit - largest < spent <= limit + largest  # stopped within one call of it


def test_the_limit_is_not_a_failure_the_fallback_policy_hides() -> None:
    chop = CHOPChunker(SimulatedLLM(latency_ms=0), on_llm_error="fallback", max_calls=1, decisions="separate")
    with pytest.raises(BudgetExceededError):
        chop.chunk_many(DOCS, metadatas=METAS)
    assert chop.last_usage.fallbacks == 0


@pytest.mark.parametrize("value", [0, -3, 2.5, "ten", True])
def test_a_bad_limit_is_refused(value: object) -> None:
    with pytest.raises(ConfigurationError, match="max_calls"):
        CHOPChunker(None, max_calls=value)
    with pytest.raises(ConfigurationError, match="max_llm_tokens"):
        LumberChunker(None, max_llm_tokens=value)


def test_a_callback_that_is_no_function_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="on_progress"):
        CHOPChunker(None, on_progress="print")


def test_the_base_chunker_gets_no_copy_of_the_run_fields() -> None:
    chop = CHOPChunker(SimulatedLLM(latency_ms=0), llm_boundaries=True, max_calls=5, on_progress=print)
    assert chop.chunker.config.max_calls is None and chop.chunker.config.on_progress is None


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_draws_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with watched(show=True, description="LLM decisions"):
        CHOPChunker(SimulatedLLM(latency_ms=0)).chunk_many(DOCS, metadatas=METAS)
    assert "decision" not in piped.getvalue()  # no bar (a warning may be logged there)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    chop = CHOPChunker(SimulatedLLM(latency_ms=0))
    with watched(show=True, description="LLM decisions"):
        chop.chunk_many(DOCS, metadatas=METAS)
    drawn = terminal.getvalue()
    usage = chop.last_usage
    assert "LLM decisions" in drawn and "decision" in drawn
    assert f"tokens {usage.prompt_tokens}+{usage.completion_tokens}" in drawn.rsplit("\r", 1)[-1]


def test_nothing_is_metered_or_planned_when_nobody_watches() -> None:
    assert live.active() == ()
    with watched():  # nothing asked: no meter
        assert live.active() == ()
    meter = live.ProgressMeter()
    with live.metering(meter):
        assert live.active() == (meter,)
    assert live.active() == ()
