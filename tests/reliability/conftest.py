"""Shared helpers of the reliability suite: a fake retry clock, hostile sample documents, a fuzz-case counter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from reliability_support import FUZZ_CASES

from chop_integrations._llm.retry import RetryPolicy


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print how many generated documents the fuzz tests ran (issue 8 asks for >= 500 per CI run)."""
    if FUZZ_CASES:
        total = sum(FUZZ_CASES.values())
        terminalreporter.write_line(f"reliability fuzz: {total} generated documents across {len(FUZZ_CASES)} tests")
        for name, number in sorted(FUZZ_CASES.items()):
            terminalreporter.write_line(f"  {number:5d}  {name}")


class FakeSleep:
    """Records the delays a RetryPolicy asks for, on both paths, without sleeping."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def retry(fake_sleep: FakeSleep) -> RetryPolicy:
    """Two attempts per call, no real sleeping."""
    return RetryPolicy(max_attempts=2, sleep=fake_sleep, asleep=fake_sleep.asleep)


DOCUMENT = "\n\n".join(
    [
        "# Pump manual",
        "The pump moves water from the tank to the filter. It runs on 12 V and draws 2 A at full speed.",
        "## Installation",
        "Mount the pump below the tank. Tighten the inlet clamp by hand, then a quarter turn with a tool.",
        "Connect the outlet hose to the filter housing and check for leaks before you switch on the power.",
        "## Cleaning the filter",
        "Switch the pump off. Open the housing, rinse the sponge under cold water and let it dry completely.",
        "Replace the sponge every six months, or sooner when the flow rate drops below one litre a minute.",
        "## Troubleshooting",
        "If the pump hums but moves no water, the impeller is blocked: remove the cover and clear it.",
        "If the pump does not start, check the fuse, then the power supply, then the switch.",
    ]
)


@pytest.fixture
def document() -> Iterator[str]:
    yield DOCUMENT
