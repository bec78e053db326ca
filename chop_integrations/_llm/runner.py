"""One place where every LLM call goes through: cache, retries, timeout, accounting.

The deciders never call an :class:`~chop_integrations.LLM` directly; they
ask an :class:`LLMRunner`, which

* serves a cached answer when the cache has one (keyed by model identity,
  prompt and schema),
* otherwise calls the model, with a per-call timeout and retries with
  exponential backoff on transient errors (see :mod:`chop_integrations._llm.retry`),
* counts calls, cache hits, prompt and completion tokens and retries in the
  run's :class:`~chop_integrations.UsageReport`,
* rejects an answer longer than any question of the package needs (:func:`answer_limit`)
  before anything counts or parses it.

Only answers that passed validation are cached: the failure policy fetches an answer
(:meth:`LLMRunner.afetch`), judges it and only then keeps it (:meth:`LLMRunner.keep`), so a
model that answered nonsense during an outage leaves nothing behind for later runs.

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
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel

from .._errors import LLMAnswerError, LLMCallError, LLMTimeoutError
from .._text.tokens import TokenCounter, counter_name
from . import progress
from .aio import run_sync
from .observe import watch_requests
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


#: Models already named in the warning that their client's own retries cannot be counted.
_UNOBSERVED: set[str] = set()

#: Shortest answer length (characters) the runner reads in full, whatever the prompt.
MIN_ANSWER_CHARS = 65_536


def answer_limit(prompt: str) -> int:
    """The longest answer to ``prompt`` worth reading, in characters.

    Every question of the package is answered in a few words or a small JSON object; even an
    answer that quotes its whole prompt back stays well under four times its length. A longer answer
    is rejected before it is token-counted or parsed, so the work on a reply is bounded
    whatever a provider sends (an 8 MB reply used to cost seconds of counting per call).
    """
    return max(MIN_ANSWER_CHARS, 4 * len(prompt))


@dataclass(frozen=True)
class Answer:
    """One answer of :meth:`LLMRunner.afetch`, not yet kept in the cache.

    Attributes:
        text: The answer.
        key: Its cache key.
        cached: True when it was served from the cache.
    """

    text: str
    key: str
    cached: bool


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
        #: Meters that watch every call of this runner, wherever it runs (a stream's: no context carries it).
        self.meters: tuple[progress.ProgressMeter, ...] = ()
        self.structured = supports_structured(llm)
        #: True when the model's client retries transient errors itself: the runner then never does.
        self.client_retries = bool(getattr(llm, "retries_itself", False))
        if not usage.token_counter:  # named now, so a run that raises still says which counter counted
            usage.token_counter = counter_name(token_counter)
        if not watch_requests(llm) and self.client_retries and llm.model_id not in _UNOBSERVED:
            _UNOBSERVED.add(llm.model_id)  # said once per model and process, not at every run
            logger.warning(
                "%s retries by itself and its HTTP requests cannot be observed: the usage report counts one "
                "request per call, its own retries not included",
                llm.model_id,
            )

    def ask(self, prompt: str, schema: type[BaseModel] | None = None) -> str:
        """Sync :meth:`aask` (the same path, run by :func:`~chop_integrations._llm.aio.run_sync`)."""
        return run_sync(self.aask(prompt, schema))

    async def aask(self, prompt: str, schema: type[BaseModel] | None = None) -> str:
        """Answer ``prompt`` and keep the answer in the cache as it is (no parser judges it here).

        The engines use :meth:`afetch` and :meth:`keep` instead, so only answers that passed
        their validation are cached.

        Raises:
            LLMCallError: When every attempt failed.
            LLMTimeoutError: When the last attempt timed out.
            LLMAnswerError: See :meth:`afetch`.
        """
        answer = await self.afetch(prompt, schema)
        self.keep(answer)
        return answer.text

    async def afetch(self, prompt: str, schema: type[BaseModel] | None = None, *, use_cache: bool = True) -> Answer:
        """Answer ``prompt``: from the cache, or by calling the model with retries; nothing is cached yet.

        Args:
            prompt: The prompt.
            schema: The answer's schema, for models with structured output.
            use_cache: False to call the model even when the cache holds an answer (one that
                failed validation, left by an older version).

        Raises:
            LLMCallError: When every attempt failed.
            LLMTimeoutError: When the last attempt timed out.
            LLMAnswerError: When a structured call answered without a valid object, or an answer was
                longer than :func:`answer_limit` (not retried here: the failure policy sends its
                corrective retry).
        """
        prompt = scrub_prompt(prompt)
        key = self._lookup_key(prompt, schema)
        cached = self._cached(key, prompt) if use_cache else None
        if cached is not None:
            return Answer(cached, key, cached=True)
        attempt = 0
        while True:
            attempt += 1
            holder = CallUsage()
            held = await self._reserve(prompt)  # a run's limit refuses the call here, before it is sent
            token = CALL_USAGE.set(holder)
            try:
                answer = await asyncio.wait_for(self._call(prompt, schema), self.timeout)
            except Exception as exc:  # timeouts become LLMTimeoutError in _after_failure
                delay = self._after_failure(exc, attempt, prompt, schema, holder)
            else:
                return Answer(self._record(prompt, answer, schema, holder), key, cached=False)
            finally:
                CALL_USAGE.reset(token)
                progress.release(held)
            await self.retry.asleep(delay)

    def keep(self, answer: Answer) -> None:
        """Store an answer that passed validation in the cache (a cache hit is already there)."""
        if self.cache is None or answer.cached:
            return
        try:
            self.cache.set(answer.key, answer.text)
        except Exception as exc:  # a user-supplied cache must cost a call, never the run
            logger.warning("answer cache write failed (%s: %s); continuing", type(exc).__name__, exc)

    def count(self, **counts: int) -> None:
        """Add to the run's usage report and to the progress meters watching (the same counts to both)."""
        self.usage.add(**counts)
        self.note(**counts)

    def note(self, **counts: int) -> None:
        """Add counts (``decisions=1``...) to the meters watching: the active ones and the runner's own."""
        for meter in self._watching():
            meter.add(**counts)

    def _watching(self) -> tuple[progress.ProgressMeter, ...]:
        """The active meters (:func:`~chop_integrations._llm.progress.metering`), then :attr:`meters`."""
        active = progress.active()
        return active + self.meters if self.meters else active

    # -- internals -------------------------------------------------------------------------

    async def _reserve(self, prompt: str) -> list[tuple[progress.ProgressMeter, int]]:
        """Hold one call of the active meters' budgets (nothing to hold when none has a limit).

        Raises:
            BudgetExceededError: When a limit refuses the call: once the calls in flight have ended and been
                counted, with the report's clock stopped.
        """
        meters = self._watching()
        if not meters:
            return []
        try:
            return progress.hold(lambda: self.count_tokens(prompt), meters)
        except progress.Refused as refused:
            error = await progress.stop(refused, meters)
            self.usage.stop_clock()
            raise error from None

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
        if answer is not None and len(answer) > answer_limit(prompt):
            logger.warning("answer cache returned %d characters, more than any answer needs; ignoring it", len(answer))
            return None
        if answer is not None:
            self.count(cache_hits=1, prompt_tokens=self.count_tokens(prompt))
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
        sent = holder.sent
        self.count(calls=sent, retries=sent - 1 + (0 if delay is None else 1))
        if delay is None:
            if isinstance(exc, LLMCallError):
                raise exc
            requests = f", {sent} HTTP requests by its client" if sent > 1 else ""
            raise LLMCallError(
                f"LLM call failed after {attempt} attempt(s){requests}: {type(exc).__name__}: {exc}"
            ) from exc
        return delay

    def _count_call(
        self, prompt: str, answer: str, schema: type[BaseModel] | None, holder: CallUsage, scale: float = 1.0
    ) -> None:
        """Count one answered call: the provider's tokens where it reported them, else an estimate.

        ``scale`` says how many times longer than ``answer`` the real answer was (a cut-off answer's
        completion tokens are estimated from its first part).
        """
        sent = holder.sent
        if holder.reported:
            self.count(
                calls=sent,
                retries=sent - 1,
                reported_calls=1,
                prompt_tokens=holder.prompt_tokens or 0,
                completion_tokens=holder.completion_tokens or 0,
            )
            return
        prompt_tokens = self.count_tokens(prompt)
        if schema is not None and self.structured:  # the schema travels with the prompt (tool or response format)
            prompt_tokens += self.count_tokens(json.dumps(schema.model_json_schema()))
        self.count(
            calls=sent,
            retries=sent - 1,
            estimated_calls=1,
            prompt_tokens=prompt_tokens,
            completion_tokens=round(self.count_tokens(answer) * scale),
        )

    def _record(self, prompt: str, answer: object, schema: type[BaseModel] | None, holder: CallUsage) -> str:
        """Count an answered call and return its text.

        Raises:
            LLMAnswerError: When the answer is longer than :func:`answer_limit` (counted first, from a
                bounded piece of it: nothing reads more of it).
        """
        text = "" if answer is None else str(answer)
        limit = answer_limit(prompt)
        if len(text) <= limit:
            self._count_call(prompt, text, schema, holder)
            return text
        self._count_call(prompt, text[:limit], schema, holder, scale=len(text) / limit)
        raise LLMAnswerError(
            f"the answer was {len(text):,} characters long, more than such a question needs ({limit:,}); "
            "answer briefly, in the required format",
            answer=text[:300],
        )
