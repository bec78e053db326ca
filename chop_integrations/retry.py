"""Retries with exponential backoff and jitter for transient LLM errors.

Transient: timeouts, connection errors, rate limits (HTTP 429, honouring a
``Retry-After`` header where the error carries one) and server errors (5xx).
Anything else (a bad request, an authentication error) fails at once.
The clock and the sleep are injectable, so tests never sleep.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


def status_code(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (``status_code``, ``status`` or ``response.status_code``), if any."""
    for name in ("status_code", "status", "http_status"):
        value = getattr(exc, name, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` header or attribute), if any."""
    value = getattr(exc, "retry_after", None)
    if value is None:
        headers = getattr(getattr(exc, "response", None), "headers", None) or {}
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except AttributeError:
            value = None
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: timeouts, connection errors, 408/409/429 and 5xx."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError)):
        return True
    code = status_code(exc)
    if code is not None:
        return code in (408, 409, 429) or code >= 500
    name = type(exc).__name__.lower()
    return any(word in name for word in ("timeout", "connection", "ratelimit", "unavailable", "overloaded"))


@dataclass
class RetryPolicy:
    """How often and how long to wait before retrying a failed call.

    Args:
        max_attempts: Attempts in all, the first included (1 disables retries).
        base_delay: Seconds before the second attempt; doubles each time.
        max_delay: Upper bound of one wait (a ``Retry-After`` is capped too).
        jitter: Fraction of the delay drawn at random (0 for none).
        sleep: Sync sleep function (injectable for tests).
        asleep: Async sleep function (injectable for tests).
        rng: Random source for the jitter.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.25
    sleep: Callable[[float], None] = time.sleep
    asleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, exc: BaseException, attempt: int) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None when ``exc`` must not be retried."""
        if attempt >= self.max_attempts or not is_transient(exc):
            return None
        asked = retry_after(exc)
        if asked is not None:
            return min(asked, self.max_delay)
        backoff = min(self.base_delay * (2 ** (attempt - 1)), self.max_delay)
        return backoff * (1 - self.jitter + 2 * self.jitter * self.rng.random())
