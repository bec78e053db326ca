"""Live progress and a spending limit for runs that call an LLM, counted per decision.

A :class:`ProgressMeter` watches every LLM call and decision made while it is active (a context
variable: :func:`metering`), whoever makes them: the engines' runners send it the same counts they add to
the run's :class:`~chop_integrations.UsageReport` (calls, cache hits, tokens, retries, fallbacks) and
one count per finished decision; an engine that knows its plan says how many decisions and tokens
are to come (:func:`plan`). Each change hands a frozen :class:`Progress` to the meter's listeners: a
user's ``on_progress`` callback, a terminal bar (:class:`ProgressBar`). Counts only grow, and listeners
see them in order.

The meter is also the budget: with ``max_calls`` or ``max_tokens`` it refuses to start a call that
would pass the limit (:meth:`ProgressMeter.reserve`, called by the runner before every attempt), so a
run with several calls in flight never sends more than ``max_calls`` requests. The refused decision
waits for the calls in flight to end (they are paid for: they are counted), then the run stops with
:class:`~chop_integrations.BudgetExceededError`, within one decision of the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, fields

from .._errors import BudgetExceededError

__all__ = [
    "LLM_COUNTS",
    "Progress",
    "ProgressMeter",
    "Refused",
    "active",
    "hold",
    "metering",
    "note",
    "plan",
    "planning",
    "release",
    "stop",
]

#: Seconds between two looks at the calls still in flight when a limit stops a run.
SETTLE_POLL_S = 0.02

#: The usage counters a meter follows (the LLM part of a :class:`~chop_integrations.UsageReport`).
LLM_COUNTS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "retries", "fallbacks", "invalid_answers")


@dataclass(frozen=True)
class Progress:
    """The counts of a metered run so far: what an ``on_progress`` callback receives.

    Every count only grows from one call of the callback to the next; the planned totals are the
    engine's estimate (the dry run's: see ``estimate()``), raised to what was done when a run needs more.

    Attributes:
        decisions: LLM decisions finished (answered, or taken by the offline decider after a failure).
        planned_decisions: Decisions the run is expected to make; 0 while unknown.
        calls: LLM requests sent (retries included), as in the usage report.
        cache_hits: Answers served from the answer cache.
        retries: Calls repeated after a transient error or an invalid answer.
        fallbacks: Decisions the offline decider took because the LLM failed.
        invalid_answers: Answers that could not be parsed or validated.
        prompt_tokens: Prompt tokens so far (as the usage report counts them).
        completion_tokens: Completion tokens so far.
        planned_tokens: Prompt plus completion tokens the run is expected to spend; 0 while unknown.
        documents: Documents finished (counted by the caller that knows them: the CLI, the adapters).
        planned_documents: Documents in the run; 0 while unknown.
        elapsed_s: Seconds since the meter started.
    """

    decisions: int = 0
    planned_decisions: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    fallbacks: int = 0
    invalid_answers: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    planned_tokens: int = 0
    documents: int = 0
    planned_documents: int = 0
    elapsed_s: float = 0.0

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens so far."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def remaining_s(self) -> float | None:
        """Seconds left at the pace so far, by decisions; None before the first decision or without a plan."""
        if not self.decisions or self.planned_decisions <= 0:
            return None
        return self.elapsed_s * max(0, self.planned_decisions - self.decisions) / self.decisions

    def describe(self) -> str:
        """One short line: calls, retries, fallbacks, prompt+completion tokens (exact) of the estimate, documents."""
        planned = f" of ~{_short(self.planned_tokens)}" if self.planned_tokens else ""
        line = (
            f"calls {self.calls} retries {self.retries} fallbacks {self.fallbacks} "
            f"tokens {self.prompt_tokens}+{self.completion_tokens}{planned}"
        )
        if self.planned_documents:
            line += f" doc {self.documents}/{self.planned_documents}"
        return line


def _short(number: int) -> str:
    return (
        f"{number / 1e6:.2f}M" if number >= 1_000_000 else f"{number / 1e3:.1f}k" if number >= 10_000 else str(number)
    )


Listener = Callable[[Progress], None]


class ProgressMeter:
    """Counts of LLM work while active, sent to listeners, with an optional spending limit.

    Args:
        listeners: Called with a :class:`Progress` after every change, in order (one at a time). An
            exception a listener raises stops the run where the count was made.
        max_calls: Most LLM requests to start (retries included); None for no limit.
        max_tokens: Most prompt plus completion tokens to spend; None for no limit. A call is not
            started when the tokens spent, the prompts in flight and its own prompt would pass it.
        planned: Fixed planned totals (``decisions``, ``tokens``, ``documents``) from an estimate made up
            front; the engines' own plans are then ignored. None: the engines' plans add up.
    """

    def __init__(
        self,
        *,
        listeners: tuple[Listener, ...] = (),
        max_calls: int | None = None,
        max_tokens: int | None = None,
        planned: dict[str, int] | None = None,
    ) -> None:
        self.listeners = listeners
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.fixed_plan = planned is not None
        self._counts: dict[str, int] = {f.name: 0 for f in fields(Progress) if f.name != "elapsed_s"}
        for name, value in (planned or {}).items():
            self._counts[f"planned_{name}"] = int(value)
        self._started = time.perf_counter()
        self._lock = threading.RLock()  # RLock: a listener may read snapshot() while it is told
        self._calls_started = 0
        self._in_flight = 0
        self._tokens_in_flight = 0

    @property
    def limited(self) -> bool:
        """True when the meter has a spending limit."""
        return self.max_calls is not None or self.max_tokens is not None

    def snapshot(self) -> Progress:
        """The counts now."""
        with self._lock:
            return Progress(**self._counts, elapsed_s=time.perf_counter() - self._started)

    def add(self, **counts: int) -> None:
        """Add to counts by name (unknown names are ignored) and tell the listeners."""
        with self._lock:
            changed = False
            for name, value in counts.items():
                if value and name in self._counts:
                    self._counts[name] += int(value)
                    changed = True
            if changed:
                self._emit()

    def plan(self, **planned: int) -> None:
        """Add an engine's planned ``decisions`` and ``tokens`` (ignored when the plan was fixed up front)."""
        if not self.fixed_plan:
            self.add(**{f"planned_{name}": value for name, value in planned.items()})

    def reserve(self, prompt_tokens: Callable[[], int]) -> int:
        """Take one call from the budget before it is sent; returns the tokens held for it (see :meth:`release`).

        Raises:
            BudgetExceededError: When the call would pass ``max_calls`` or ``max_tokens`` (nothing is held).
        """
        if not self.limited:
            return 0
        held = prompt_tokens() if self.max_tokens is not None else 0
        with self._lock:
            spent = self._counts["prompt_tokens"] + self._counts["completion_tokens"]
            if self.max_calls is not None and self._calls_started >= self.max_calls:
                raise self.exceeded(f"the run reached its limit of {self.max_calls} LLM calls")
            if self.max_tokens is not None and spent + self._tokens_in_flight + held > self.max_tokens:
                raise self.exceeded(
                    f"the next LLM call ({held} prompt tokens) would pass the run's limit of {self.max_tokens} "
                    f"tokens ({spent} spent, {self._tokens_in_flight} in prompts in flight)"
                )
            self._calls_started += 1
            self._in_flight += 1
            self._tokens_in_flight += held
        return held

    def release(self, held: int) -> None:
        """A reserved call has ended (counted, failed or cancelled)."""
        if self.limited:
            with self._lock:
                self._in_flight -= 1
                self._tokens_in_flight -= held

    async def settle(self) -> None:
        """Wait until no reserved call is in flight, so what they cost is counted before the run stops."""
        while self._in_flight > 0:
            await asyncio.sleep(SETTLE_POLL_S)

    def exceeded(self, reason: str) -> BudgetExceededError:
        """The error that stops the run, with the counts now."""
        progress = self.snapshot()
        return BudgetExceededError(
            f"{reason}; no call past it was sent (calls={progress.calls}, prompt_tokens={progress.prompt_tokens}, "
            f"completion_tokens={progress.completion_tokens}, decisions={progress.decisions})",
            progress=progress,
            reason=reason,
        )

    def _emit(self) -> None:
        if self.listeners:
            progress = self.snapshot()
            for listener in self.listeners:
                listener(progress)


#: The meters of the runs in progress in this context (innermost last); empty: nobody is watching.
METERS: ContextVar[tuple[ProgressMeter, ...]] = ContextVar("chop_meters", default=())


def active() -> tuple[ProgressMeter, ...]:
    """The meters watching the code running now."""
    return METERS.get()


@contextlib.contextmanager
def metering(meter: ProgressMeter | None) -> Iterator[ProgressMeter | None]:
    """Make ``meter`` watch the LLM work done inside the block (and in the tasks and threads it starts).

    ``None`` does nothing, so a caller can write ``with metering(maybe_meter):``.
    """
    if meter is None:
        yield None
        return
    token = METERS.set((*METERS.get(), meter))
    try:
        yield meter
    finally:
        METERS.reset(token)


def note(**counts: int) -> None:
    """Add counts (``calls=1``, ``decisions=1``...) to every active meter."""
    for meter in METERS.get():
        meter.add(**counts)


def planning() -> bool:
    """Whether an active meter wants an engine's plan (one that shows counts and has no plan fixed up front).

    The plan of a CHOP run costs a dry run's counting of its prompts: skipped when nobody would read it.
    """
    return any(meter.listeners and not meter.fixed_plan for meter in METERS.get())


def plan(**planned: int) -> None:
    """Tell every active meter an engine's planned ``decisions`` and ``tokens``."""
    for meter in METERS.get():
        meter.plan(**planned)


class Refused(Exception):
    """A meter's limit refused a call (internal: :func:`stop` turns it into the run's error).

    Attributes:
        meter: The meter whose limit refused it.
        error: What it said.
    """

    def __init__(self, meter: ProgressMeter, error: BudgetExceededError) -> None:
        super().__init__(str(error))
        self.meter = meter
        self.error = error


def hold(
    prompt_tokens: Callable[[], int], meters: tuple[ProgressMeter, ...] | None = None
) -> list[tuple[ProgressMeter, int]]:
    """Reserve one call in every meter's budget (the active ones by default; release it with :func:`release`).

    Raises:
        Refused: When a meter's limit refuses the call (nothing stays held then).
    """
    held: list[tuple[ProgressMeter, int]] = []
    for meter in METERS.get() if meters is None else meters:
        if meter.limited:
            try:
                held.append((meter, meter.reserve(prompt_tokens)))
            except BudgetExceededError as error:
                release(held)
                raise Refused(meter, error) from None
    return held


def release(held: list[tuple[ProgressMeter, int]]) -> None:
    """End the reservations :func:`hold` made."""
    for meter, tokens in held:
        meter.release(tokens)


async def stop(refused: Refused, meters: tuple[ProgressMeter, ...] | None = None) -> BudgetExceededError:
    """Let the calls in flight end and be counted, then the error that stops the run, with the counts then."""
    for meter in METERS.get() if meters is None else meters:
        await meter.settle()
    return refused.meter.exceeded(refused.error.reason)
