"""Retries with exponential backoff and jitter for transient LLM errors.

Transient: timeouts, connection errors, rate limits (HTTP 429, honouring a
``Retry-After`` / ``retry-after-ms`` header where the error carries one, as
``openai.RateLimitError`` does in ``response.headers``) and server errors
(408, 409, 5xx). Anything else (a bad request, an authentication error, a
programming error) fails at once. Attempts are bounded by ``max_attempts``.
The clock and the sleep are injectable, so tests never sleep.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .._errors import ConfigurationError, LLMTimeoutError

#: Words in an exception's class name that mark it as transient when it carries no HTTP status
#: (``httpx.ConnectError``, ``openai.APITimeoutError``, ``anthropic.OverloadedError``...).
_TRANSIENT_NAME_WORDS = ("timeout", "connect", "ratelimit", "unavailable", "overloaded", "temporar", "throttl")
_TRANSIENT_STATUS = (408, 409, 425, 429)


def status_code(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (``status_code``, ``status`` or ``response.status_code``), if any."""
    for name in ("status_code", "status", "http_status"):
        value = getattr(exc, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _header(headers: Any, name: str) -> Any:
    try:
        return headers.get(name) or headers.get(name.title())
    except (AttributeError, TypeError):
        return None


def retry_after(exc: BaseException, *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asked us to wait, if it said so.

    Reads a ``retry_after`` attribute, then the response headers ``retry-after-ms``
    (milliseconds, sent by OpenAI) and ``Retry-After`` (seconds, or an HTTP date).

    Args:
        exc: The error.
        now: Wall clock used to turn an HTTP date into seconds (injectable for tests).
    """
    value = getattr(exc, "retry_after", None)
    if value is not None:
        return _seconds(value, now)
    headers = getattr(getattr(exc, "response", None), "headers", None) or getattr(exc, "headers", None)
    if headers is None:
        return None
    millis = _header(headers, "retry-after-ms")
    if millis is not None:
        seconds = _seconds(millis, now)
        if seconds is not None:
            return seconds / 1000.0
    return _seconds(_header(headers, "retry-after"), now)


def _seconds(value: Any, now: Callable[[], float]) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:  # pragma: no cover - older Pythons return None instead of raising
        return None
    return max(0.0, when.timestamp() - now())


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: timeouts, connection errors, 408/409/425/429 and 5xx."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError, LLMTimeoutError)):
        return True
    code = status_code(exc)
    if code is not None:
        return code in _TRANSIENT_STATUS or code >= 500
    name = type(exc).__name__.lower()
    return any(word in name for word in _TRANSIENT_NAME_WORDS)


def _in_thread(sleep: Callable[[float], None]) -> Callable[[float], Awaitable[None]]:
    """``sleep`` as an async sleep that runs it in a worker thread."""

    async def asleep(seconds: float) -> None:
        await asyncio.to_thread(sleep, seconds)

    return asleep


@dataclass
class RetryPolicy:
    """How often and how long to wait before retrying a failed call.

    The n-th retry waits ``base_delay * 2**(n-1)`` seconds, capped at
    ``max_delay``, times a random factor in ``[1 - jitter, 1 + jitter]`` so that
    many workers hitting one rate limit do not retry in lockstep. A server's
    ``Retry-After`` replaces the computed delay (capped at ``max_delay``).

    Args:
        max_attempts: Attempts in all, the first included (1 disables retries).
        base_delay: Seconds before the second attempt; doubles each time.
        max_delay: Upper bound of one wait (a ``Retry-After`` is capped too).
        jitter: Fraction of the delay drawn at random, in [0, 1] (0 for none).
        sleep: Sync sleep function (injectable for tests). Every call runs on the async path, so a
            custom ``sleep`` given without a custom ``asleep`` serves as both (from a worker thread).
        asleep: Async sleep function (injectable for tests).
        rng: Random source for the jitter.
        now: Wall clock for ``Retry-After`` HTTP dates (injectable for tests).

    Raises:
        ConfigurationError: When an argument is out of range.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.25
    sleep: Callable[[float], None] = time.sleep
    asleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)
    now: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ConfigurationError(f"max_attempts must be an int >= 1 (1 disables retries), got {self.max_attempts}")
        if not all(0 <= delay < math.inf for delay in (self.base_delay, self.max_delay)):  # NaN fails too
            raise ConfigurationError(
                "base_delay and max_delay must be finite numbers of seconds >= 0, "
                f"got {self.base_delay} and {self.max_delay}"
            )
        if not 0 <= self.jitter <= 1:
            raise ConfigurationError(f"jitter must be a fraction in [0, 1], got {self.jitter}")
        if self.asleep is asyncio.sleep and self.sleep is not time.sleep:
            self.asleep = _in_thread(self.sleep)

    def delay(self, exc: BaseException, attempt: int) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None when ``exc`` must not be retried."""
        if attempt >= self.max_attempts or not is_transient(exc):
            return None
        asked = retry_after(exc, now=self.now)
        if asked is not None:
            return min(asked, self.max_delay)
        backoff = min(self.base_delay * (2 ** (attempt - 1)), self.max_delay)
        return backoff * (1 - self.jitter + 2 * self.jitter * self.rng.random())
