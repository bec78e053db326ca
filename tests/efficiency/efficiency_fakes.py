"""Fakes shared by the efficiency tests: a fake clock, HTTP-like errors, a scripted flaky model."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from typing import Any


class FakeClock:
    """Records the waits a retry policy asks for instead of sleeping."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


class Headers(dict):
    """Case-insensitive header lookup, like ``httpx.Headers``."""

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        for key, value in self.items():
            if key.lower() == name.lower():
                return value
        return default


class Response:
    def __init__(self, status_code: int, headers: dict[str, str] | None = None) -> None:
        self.status_code = status_code
        self.headers = Headers(headers or {})


class HTTPError(Exception):
    """An error carrying ``response.status_code`` and ``response.headers``, as SDK errors do."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.response = Response(status, headers)


class FlakyLLM:
    """Raises or answers from a script, on both paths; counts calls."""

    model_id = "flaky"

    def __init__(self, script: Iterable[BaseException | str], default: str = "ok") -> None:
        self.script = list(script)
        self.default = default
        self.calls = 0
        self._lock = threading.Lock()

    def _next(self) -> str:
        with self._lock:
            self.calls += 1
            item = self.script.pop(0) if self.script else self.default
        if isinstance(item, BaseException):
            raise item
        return item

    def complete(self, prompt: str) -> str:
        return self._next()

    async def acomplete(self, prompt: str) -> str:
        await asyncio.sleep(0)
        return self._next()


class HangingLLM:
    """Never answers within a test: the sync path blocks on an event, the async path awaits one."""

    model_id = "hanging"

    def __init__(self, release_after: float = 10.0) -> None:
        self.release = threading.Event()
        self.release_after = release_after
        self.calls = 0
        self.finished = 0

    def complete(self, prompt: str) -> str:
        self.calls += 1
        self.release.wait(self.release_after)
        self.finished += 1
        return "late"

    async def acomplete(self, prompt: str) -> str:
        self.calls += 1
        await asyncio.sleep(self.release_after)
        return "late"
