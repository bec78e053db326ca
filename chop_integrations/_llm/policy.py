"""The failure policy shared by every LLM-backed decision.

One decision = prompt, answer, parse and validate. An answer that does not
parse (the parser raises :class:`~chop_integrations.AnswerParseError`) gets one
corrective retry (the prompt plus a note on what was wrong); so
does a structured call that answered without a valid object (the runner raises
:class:`~chop_integrations.LLMAnswerError` for it, counted as a call and an
invalid answer, never re-asked as plain text).
When the call fails or the answer is still invalid, ``on_llm_error`` decides:

* ``"raise"``: a typed :class:`~chop_integrations.LLMError` naming the
  document, the position and the task;
* ``"fallback"``: the offline decider answers instead; the fallback is counted
  in the usage report and logged at WARNING, never silently.

Every path returns or raises after a bounded number of calls (at most two per
decision, plus the runner's retries of transient errors), so no answer can
make an engine loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from .._checks import check_choice
from .._errors import AnswerParseError, LLMAnswerError, LLMError
from .runner import LLMRunner

logger = logging.getLogger("chop_integrations")

OnLLMError = Literal["raise", "fallback"]

#: The task of the decision whose LLM call is in progress (``"topic_shift"``, ``"continuity"``, ``"cnm"``),
#: or None outside a decision. Framework wrappers read it to name their traced runs (``chop.topic_shift``).
CURRENT_TASK: ContextVar[str | None] = ContextVar("chop_current_task", default=None)
T = TypeVar("T")

#: What a parser may raise on an answer of a hostile size or shape (an integer past Python's 4,300-digit
#: limit, nesting past the recursion limit): the policy reads these as an invalid answer.
UNREADABLE = (ValueError, RecursionError, OverflowError)

CORRECTION = (
    "\n\nYour previous answer could not be used: {problem}\n"
    "Previous answer: {answer}\n"
    "Answer again, following the required format exactly."
)


def check_policy(on_llm_error: str) -> OnLLMError:
    """Validate an ``on_llm_error`` argument.

    Raises:
        ConfigurationError: When it is not ``"raise"`` or ``"fallback"``.
    """
    return check_choice("on_llm_error", on_llm_error, OnLLMError)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Decision(Generic[T]):
    """Everything one LLM decision needs.

    Attributes:
        prompt: The prompt to send.
        parse: Turns an answer into a value, or raises :class:`~chop_integrations.AnswerParseError`
            saying what is wrong with it (:data:`UNREADABLE` errors count as an invalid answer too;
            any other exception is a bug and propagates).
        fallback: Computes the offline answer.
        task: ``"topic_shift"``, ``"continuity"`` or ``"cnm"`` (for errors and logs).
        document: The document's identifier.
        position: Character offset the decision is about.
        schema: Pydantic schema for models with structured output, if any.
    """

    prompt: str
    parse: Callable[[str], T]
    fallback: Callable[[], T]
    task: str
    document: str
    position: int
    schema: type[BaseModel] | None = None


def _give_up(decision: Decision[T], policy: OnLLMError, runner: LLMRunner, error: LLMError) -> T:
    if policy == "raise":
        runner.usage.stop_clock()  # the run ends here: its report keeps the time it took
        raise error
    runner.count(fallbacks=1)
    logger.warning(
        "LLM %s decision failed for document %r at offset %d; using the offline decider: %s",
        decision.task,
        decision.document,
        decision.position,
        error,
    )
    return decision.fallback()


def _answer_error(decision: Decision[T], problem: str) -> LLMAnswerError:
    return LLMAnswerError(
        f"invalid LLM answer after a corrective retry: {problem}",
        document=decision.document,
        position=decision.position,
        task=decision.task,
    )


def _located(decision: Decision[T], error: LLMError) -> LLMError:
    """Return ``error`` re-raised with the decision's document, position and task."""
    located = type(error)(
        getattr(error, "message", str(error)),
        document=decision.document,
        position=decision.position,
        task=decision.task,
        answer=error.answer,
    )
    located.__cause__ = error.__cause__ or error
    return located


class _Invalid(Exception):
    """One answer that could not be used: what was wrong, and the answer's text (for the retry prompt)."""

    def __init__(self, problem: str, answer: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.answer = answer


def _judged(decision: Decision[T], answer: str) -> T:
    """The parsed value of an answer.

    Raises:
        AnswerParseError: Saying what was wrong with it.
    """
    try:
        return decision.parse(answer)
    except AnswerParseError:
        raise
    except UNREADABLE as error:  # an answer too big or too deep for a parser is an invalid answer, not a crash
        raise AnswerParseError(f"the answer could not be read ({type(error).__name__}); answer briefly") from error


async def _attempt(decision: Decision[T], runner: LLMRunner, prompt: str) -> T:
    """Ask ``prompt`` once and judge the answer; only a valid answer is kept in the cache.

    An invalid answer served from the cache (left there by an older version, during an outage)
    is not the model's answer to this run: the model is asked again, at no extra attempt.

    Raises:
        _Invalid: When the answer could not be used.
        LLMError: When the call failed (not :class:`LLMAnswerError`, which is an invalid answer).
    """
    use_cache = True
    while True:
        token = CURRENT_TASK.set(decision.task)
        try:
            answer = await runner.afetch(prompt, decision.schema, use_cache=use_cache)
        except LLMAnswerError as error:
            raise _Invalid(error.message, error.answer or "") from error
        finally:
            CURRENT_TASK.reset(token)
        try:
            value = _judged(decision, answer.text)
        except AnswerParseError as error:
            if answer.cached:
                use_cache = False
                continue
            raise _Invalid(error.problem, answer.text) from error
        runner.keep(answer)
        return value


async def adecide(decision: Decision[T], runner: LLMRunner, policy: OnLLMError) -> T:
    """Make one decision under the failure policy (the one decision path).

    A decision that ends (answered, or taken by the offline decider) counts one for the active progress meters.
    """
    value = await _adecide(decision, runner, policy)
    runner.note(decisions=1)
    return value


async def _adecide(decision: Decision[T], runner: LLMRunner, policy: OnLLMError) -> T:
    prompt = decision.prompt
    for attempt in (1, 2):
        try:
            return await _attempt(decision, runner, prompt)
        except _Invalid as invalid:
            problem, answer = invalid.problem, invalid.answer
        except LLMError as error:
            return _give_up(decision, policy, runner, _located(decision, error))
        runner.count(invalid_answers=1)
        if attempt == 1:
            runner.count(retries=1)
            prompt = decision.prompt + CORRECTION.format(problem=problem, answer=answer[:300] or "(no usable object)")
    return _give_up(decision, policy, runner, _answer_error(decision, problem))
