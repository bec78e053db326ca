"""Test doubles that work across Ray actors: a counter of calls in flight and a slow model that reports to it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import ray

from chop_integrations.testing import valid_answer


@ray.remote(num_cpus=0, max_concurrency=1000)
class InFlight:
    """Counts the model calls in flight over every actor, and the most there ever were at once."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.calls = 0

    async def enter(self) -> None:
        self.now += 1
        self.calls += 1
        self.peak = max(self.peak, self.now)

    async def leave(self) -> None:
        self.now -= 1

    async def stats(self) -> dict[str, int]:
        return {"now": self.now, "peak": self.peak, "calls": self.calls}


class SlowLLM:
    """Answers every prompt validly after ``delay`` seconds, telling ``counter`` when a call starts and ends."""

    model_id = "slow-fake"

    def __init__(self, counter: Any, delay: float = 0.05) -> None:
        self.counter = counter
        self.delay = delay

    async def acomplete(self, prompt: str) -> str:
        await self.counter.enter.remote()
        try:
            await asyncio.sleep(self.delay)
        finally:
            await self.counter.leave.remote()
        return valid_answer(prompt)

    def complete(self, prompt: str) -> str:
        ray.get(self.counter.enter.remote())
        try:
            time.sleep(self.delay)
        finally:
            ray.get(self.counter.leave.remote())
        return valid_answer(prompt)
