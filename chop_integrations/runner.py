"""One place where every LLM call goes through: cache, retries, timeout, accounting.

The deciders never call an :class:`~chop_integrations.llm.LLM` directly; they
ask an :class:`LLMRunner`, which

* serves a cached answer when the cache has one (keyed by model identity,
  prompt and schema),
* otherwise calls the model, with a per-call timeout and retries with
  exponential backoff on transient errors (see :mod:`chop_integrations.retry`),
* counts calls, cache hits, prompt and completion tokens and retries in the
  run's :class:`~chop_integrations.usage.UsageReport`.

Answers are always text: where the model supports structured output and a
schema is given, the validated object is serialised to JSON, so the cache and
the answer parser see one shape.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Protocol

from pydantic import BaseModel

from .errors import LLMCallError, LLMTimeoutError
from .llm import LLM, run_sync, supports_structured
from .retry import RetryPolicy
from .tokens import TokenCounter
from .usage import UsageReport


class AnswerCache(Protocol):
    """Where answers are kept between runs (see :mod:`chop_integrations.cache`)."""

    def get(self, key: str) -> str | None:
        """Return the stored answer for ``key``, or None."""
        ...

    def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``."""
        ...


def cache_key(model_id: str, prompt: str, schema: type[BaseModel] | None) -> str:
    """The cache key of one call: a SHA-256 over model identity, schema and prompt."""
    schema_part = "" if schema is None else json.dumps(schema.model_json_schema(), sort_keys=True)
    payload = json.dumps([model_id, schema_part, prompt], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class LLMRunner:
    """Calls an LLM with caching, retries, a timeout and usage accounting.

    Args:
        llm: The model.
        usage: The report the counts go to.
        token_counter: Counts prompt and completion tokens.
        cache: Optional answer cache; ``None`` disables caching.
        retry: Retry policy for transient errors; defaults to :class:`RetryPolicy`.
        timeout: Seconds one call may take before it counts as failed; ``None`` for no limit.
    """

    def __init__(
        self,
        llm: LLM,
        *,
        usage: UsageReport,
        token_counter: TokenCounter,
        cache: AnswerCache | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
    ) -> None:
        self.llm = llm
        self.usage = usage
        self.count_tokens = token_counter
        self.cache = cache
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self.structured = supports_structured(llm)

    def ask(self, prompt: str, schema: type[BaseModel] | None = None) -> str:
        """Answer ``prompt`` synchronously (see :meth:`aask`).

        Raises:
            LLMCallError: When every attempt failed.
            LLMTimeoutError: When the last attempt timed out.
        """
        key = self._lookup_key(prompt, schema)
        cached = self._cached(key, prompt)
        if cached is not None:
            return cached
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                answer = self._call_sync(prompt, schema)
            except Exception as exc:
                delay = self._after_failure(exc, attempt, time.monotonic() - started)
                self.retry.sleep(delay)
                continue
            return self._record(key, prompt, answer)

    async def aask(self, prompt: str, schema: type[BaseModel] | None = None) -> str:
        """Answer ``prompt``: from the cache, or by calling the model with retries.

        Raises:
            LLMCallError: When every attempt failed.
            LLMTimeoutError: When the last attempt timed out.
        """
        key = self._lookup_key(prompt, schema)
        cached = self._cached(key, prompt)
        if cached is not None:
            return cached
        attempt = 0
        while True:
            attempt += 1
            try:
                answer = await asyncio.wait_for(self._call_async(prompt, schema), self.timeout)
            except Exception as exc:
                if isinstance(exc, asyncio.TimeoutError):
                    exc = LLMTimeoutError(f"LLM call timed out after {self.timeout} s")
                delay = self._after_failure(exc, attempt, None)
                await self.retry.asleep(delay)
                continue
            return self._record(key, prompt, answer)

    # -- internals -------------------------------------------------------------------------

    def _lookup_key(self, prompt: str, schema: type[BaseModel] | None) -> str:
        return cache_key(self.llm.model_id, prompt, schema if self.structured else None)

    def _cached(self, key: str, prompt: str) -> str | None:
        if self.cache is None:
            return None
        answer = self.cache.get(key)
        if answer is not None:
            self.usage.add(cache_hits=1, prompt_tokens=self.count_tokens(prompt))
        return answer

    def _call_sync(self, prompt: str, schema: type[BaseModel] | None) -> str:
        if self.timeout is not None:
            return run_sync(asyncio.wait_for(self._call_async(prompt, schema), self.timeout))
        if schema is not None and self.structured:
            return self.llm.complete_json(prompt, schema).model_dump_json()  # type: ignore[attr-defined]
        return self.llm.complete(prompt)

    async def _call_async(self, prompt: str, schema: type[BaseModel] | None) -> str:
        if schema is not None and self.structured:
            result = await self.llm.acomplete_json(prompt, schema)  # type: ignore[attr-defined]
            return result.model_dump_json()
        return await self.llm.acomplete(prompt)

    def _after_failure(self, exc: BaseException, attempt: int, elapsed: float | None) -> float:
        """Count a failed call and return the delay before the next try, or raise."""
        self.usage.add(calls=1, retries=1)
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) and not isinstance(exc, LLMTimeoutError):
            exc = LLMTimeoutError(f"LLM call timed out after {self.timeout} s")
        delay = self.retry.delay(exc, attempt)
        if delay is None:
            self.usage.add(retries=-1)
            if isinstance(exc, LLMCallError):
                raise exc
            raise LLMCallError(f"LLM call failed after {attempt} attempt(s): {type(exc).__name__}: {exc}") from exc
        return delay

    def _record(self, key: str, prompt: str, answer: str) -> str:
        answer = "" if answer is None else str(answer)
        self.usage.add(
            calls=1,
            prompt_tokens=self.count_tokens(prompt),
            completion_tokens=self.count_tokens(answer),
        )
        if self.cache is not None:
            self.cache.set(key, answer)
        return answer
