"""One place where every LLM call goes through: cache, retries, timeout, accounting.

The deciders never call an :class:`~chop_integrations.LLM` directly; they
ask an :class:`LLMRunner`, which

* serves a cached answer when the cache has one (keyed by model identity,
  prompt and schema),
* otherwise calls the model, with a per-call timeout and retries with
  exponential backoff on transient errors (see :mod:`chop_integrations._llm.retry`),
* counts calls, cache hits, prompt and completion tokens and retries in the
  run's :class:`~chop_integrations.UsageReport`.

Retries have one owner per call path. A model wrapper that says its client
retries by itself (``retries_itself = True``: ``ChatOpenAI`` and other LangChain
models with ``max_retries > 0``) gets one attempt per call here, so retries never
stack; every other model gets the runner's :class:`~chop_integrations.RetryPolicy`
(a wrapper may suggest its ``max_attempts`` with ``retry_attempts``, as
:class:`~chop_integrations.llama_index.LlamaIndexLLM` does after switching
LlamaIndex's own two retry layers off). Errors that are not transient are never retried.

Tokens are the provider's where the wrapper reports them
(:func:`~chop_integrations._llm.report_usage`: ``AIMessage.usage_metadata``,
LlamaIndex raw responses), counted in ``reported_calls``; otherwise they are
estimated with the token counter, the JSON schema of a structured call
included, and counted in ``estimated_calls``.

There is one call path, :meth:`LLMRunner.aask`; :meth:`LLMRunner.ask` runs it from sync code. A
sync-only model is called from a worker thread by its wrapper's ``acomplete`` (a plain callable, a
LangChain model without native async), so it never blocks the event loop and a timeout can abandon it.

Answers are always text: where the model supports structured output and a
schema is given, the validated object is serialised to JSON, so the cache and
the answer parser see one shape.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Protocol

from pydantic import BaseModel

from .._errors import LLMAnswerError, LLMCallError, LLMTimeoutError
from .._text.tokens import TokenCounter
from .aio import run_sync
from .protocol import CALL_USAGE, LLM, CallUsage, supports_structured
from .retry import RetryPolicy
from .usage import UsageReport

logger = logging.getLogger("chop_integrations")


class AnswerCache(Protocol):
    """Where answers are kept between runs (see :mod:`chop_integrations._llm.cache`)."""

    def get(self, key: str) -> str | None:
        """Return the stored answer for ``key``, or None."""
        ...

    def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``."""
        ...


def cache_key(model_id: str, prompt: str, schema: type[BaseModel] | None) -> str:
    """The cache key of one call: a SHA-256 over model identity, schema and prompt.

    ``model_id`` must name the decoding settings too (the wrappers put the
    temperature and similar options in it), so answers sampled under other
    settings are never served.
    """
    schema_part = "" if schema is None else json.dumps(schema.model_json_schema(), sort_keys=True)
    payload = json.dumps([model_id, schema_part, prompt], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def scrub_prompt(prompt: str) -> str:
    """``prompt`` with lone surrogates replaced by U+FFFD (a valid pair is joined into its character).

    A Python ``str`` can hold lone surrogates (from ``surrogateescape`` decoding or
    broken JSON), but no LLM client can send them: UTF-8 encoding fails. The
    prompt is only a view of the document, so replacing them loses nothing in the
    chunks, whose offsets index the original text.
    """
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError:
        return prompt.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return prompt


class LLMRunner:
    """Calls an LLM with caching, retries, a timeout and usage accounting.

    Args:
        llm: The model.
        usage: The report the counts go to.
        token_counter: Counts prompt and completion tokens.
        cache: Optional answer cache; ``None`` disables caching.
        retry: Retry policy for transient errors; defaults to :class:`RetryPolicy` (with the
            model wrapper's ``retry_attempts`` as ``max_attempts`` where it gives one). Unused
            when the wrapper's client retries by itself (``retries_itself``).
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
        suggested = getattr(llm, "retry_attempts", None)
        if retry is None:
            retry = (
                RetryPolicy(max_attempts=suggested) if isinstance(suggested, int) and suggested >= 1 else RetryPolicy()
            )
        self.retry = retry
        self.timeout = timeout
        self.structured = supports_structured(llm)
        #: True when the model's client retries transient errors itself: the runner then never does.
        self.client_retries = bool(getattr(llm, "retries_itself", False))

    def ask(self, prompt: str, schema: type[BaseModel] | None = None) -> str:
        """Sync :meth:`aask` (the same path, run by :func:`~chop_integrations._llm.aio.run_sync`)."""
        return run_sync(self.aask(prompt, schema))

    async def aask(self, prompt: str, schema: type[BaseModel] | None = None) -> str:
        """Answer ``prompt``: from the cache, or by calling the model with retries.

        Raises:
            LLMCallError: When every attempt failed.
            LLMTimeoutError: When the last attempt timed out.
            LLMAnswerError: When a structured call answered without a valid object (not retried here:
                the failure policy sends its corrective retry).
        """
        prompt = scrub_prompt(prompt)
        key = self._lookup_key(prompt, schema)
        cached = self._cached(key, prompt)
        if cached is not None:
            return cached
        attempt = 0
        while True:
            attempt += 1
            holder = CallUsage()
            token = CALL_USAGE.set(holder)
            try:
                answer = await asyncio.wait_for(self._call(prompt, schema), self.timeout)
            except Exception as exc:  # timeouts become LLMTimeoutError in _after_failure
                delay = self._after_failure(exc, attempt, prompt, schema, holder)
                await self.retry.asleep(delay)
                continue
            finally:
                CALL_USAGE.reset(token)
            return self._record(key, prompt, answer, schema, holder)

    # -- internals -------------------------------------------------------------------------

    def _lookup_key(self, prompt: str, schema: type[BaseModel] | None) -> str:
        return cache_key(self.llm.model_id, prompt, schema if self.structured else None)

    def _cached(self, key: str, prompt: str) -> str | None:
        if self.cache is None:
            return None
        try:
            answer = self.cache.get(key)
        except Exception as exc:  # a user-supplied cache must cost a call, never the run
            logger.warning("answer cache lookup failed (%s: %s); calling the LLM", type(exc).__name__, exc)
            return None
        if answer is not None and not isinstance(answer, str):
            logger.warning("answer cache returned a %s, not a string; ignoring it", type(answer).__name__)
            return None
        if answer is not None:
            self.usage.add(cache_hits=1, prompt_tokens=self.count_tokens(prompt))
        return answer

    async def _call(self, prompt: str, schema: type[BaseModel] | None) -> str:
        if schema is not None and self.structured:
            result = await self.llm.acomplete_json(prompt, schema)  # type: ignore[attr-defined]
            return result.model_dump_json()
        return await self.llm.acomplete(prompt)

    def _after_failure(
        self, exc: BaseException, attempt: int, prompt: str, schema: type[BaseModel] | None, holder: CallUsage
    ) -> float:
        """Count a failed call and return the delay before the next try, or raise."""
        if isinstance(exc, LLMAnswerError):  # the model answered: a call with tokens, for the policy to judge
            self._count_call(prompt, exc.answer or "", schema, holder)
            raise exc
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) and not isinstance(exc, LLMTimeoutError):
            exc = LLMTimeoutError(f"LLM call timed out after {self.timeout} s")
        delay = None if self.client_retries else self.retry.delay(exc, attempt)
        self.usage.add(calls=1, retries=0 if delay is None else 1)
        if delay is None:
            if isinstance(exc, LLMCallError):
                raise exc
            raise LLMCallError(f"LLM call failed after {attempt} attempt(s): {type(exc).__name__}: {exc}") from exc
        return delay

    def _count_call(self, prompt: str, answer: str, schema: type[BaseModel] | None, holder: CallUsage) -> None:
        """Count one answered call: the provider's tokens where it reported them, else an estimate."""
        if holder.reported:
            self.usage.add(
                calls=1,
                reported_calls=1,
                prompt_tokens=holder.prompt_tokens or 0,
                completion_tokens=holder.completion_tokens or 0,
            )
            return
        prompt_tokens = self.count_tokens(prompt)
        if schema is not None and self.structured:  # the schema travels with the prompt (tool or response format)
            prompt_tokens += self.count_tokens(json.dumps(schema.model_json_schema()))
        self.usage.add(
            calls=1, estimated_calls=1, prompt_tokens=prompt_tokens, completion_tokens=self.count_tokens(answer)
        )

    def _record(
        self, key: str, prompt: str, answer: str, schema: type[BaseModel] | None = None, holder: CallUsage | None = None
    ) -> str:
        answer = "" if answer is None else str(answer)
        self._count_call(prompt, answer, schema, holder or CallUsage())
        if self.cache is not None:
            try:
                self.cache.set(key, answer)
            except Exception as exc:  # a user-supplied cache must cost a call, never the run
                logger.warning("answer cache write failed (%s: %s); continuing", type(exc).__name__, exc)
        return answer
