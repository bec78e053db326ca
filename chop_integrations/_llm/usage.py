"""Usage accounting: what a run cost in calls, tokens and time.

Each run fills its own :class:`UsageReport`. An engine's ``last_usage`` is kept per
thread (:class:`UsageSlot`): a thread reads the report of its own last run, never one
another thread started meanwhile; a thread that has not run yet reads the latest run
of any thread. The report is published when the run starts and filled as it goes, so
after a run that raised (``on_llm_error="raise"``) it still holds what was spent.
"""

from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass, field, fields
from typing import Any

#: The thread a sync entry point was called from, while its coroutine runs on a helper thread
#: (:func:`chop_integrations._llm.run_sync` inside a running loop, as in Jupyter): the run's
#: report then belongs to the caller's thread.
CALLER_THREAD: ContextVar[int | None] = ContextVar("chop_caller_thread", default=None)


#: Guards the counters of every report: an update is a few attribute writes, so one lock for all costs
#: nothing, and a report stays plain data that pickles and copies as it is.
_COUNTS_LOCK = threading.Lock()


def _thread_key() -> int:
    return CALLER_THREAD.get() or threading.get_ident()


@dataclass
class UsageReport:
    """Counters for one run (or a dry-run estimate) of an engine.

    Attributes:
        calls: LLM requests actually sent (cache hits excluded, retries included): one per attempt
            of ours, or, for a model whose ``httpx`` clients can be watched (``ChatOpenAI``, the
            OpenAI SDK...), every HTTP request the client sent, its own retries included. A client
            that retries by itself out of sight counts one per call, and a warning names it.
        cache_hits: Answers served from the cache instead of a call.
        prompt_tokens: Tokens sent in prompts: the provider's count where it reported one
            (see ``reported_calls``), else estimated with the engine's token counter, the JSON
            schema of a structured call included (``estimated_calls``); cache hits are estimated.
        completion_tokens: Tokens received in answers (same sources as ``prompt_tokens``).
        reported_calls: Answered calls whose tokens the provider reported.
        estimated_calls: Answered calls whose tokens were estimated (the provider reported none).
        document_tokens: Tokens of the documents processed.
        retries: Calls repeated after a transient error or an invalid answer (a watched client's own
            retries included).
        fallbacks: Decisions taken by the offline decider because the LLM failed.
        invalid_answers: Answers that could not be parsed or validated.
        documents: Documents processed.
        chunks: Chunks produced.
        wall_s: Wall-clock seconds of the run.
        estimated: True for a dry-run estimate, where nothing was called.
        token_counter: The counter that counted every token above (e.g. ``tiktoken:cl100k_base``,
            ``chars``); several joined with ``+`` when merged reports used different ones.
        prefix_choice: What CHOP put in the embedding prefix and why (``"adaptive: model, nouns
            (category dropped: ...)"``); empty for LumberChunker. A text, not a counter: the last wins.
    """

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported_calls: int = 0
    estimated_calls: int = 0
    document_tokens: int = 0
    retries: int = 0
    fallbacks: int = 0
    invalid_answers: int = 0
    documents: int = 0
    chunks: int = 0
    wall_s: float = 0.0
    estimated: bool = False
    token_counter: str = ""
    prefix_choice: str = ""
    _created: float = field(default_factory=time.perf_counter, repr=False, compare=False)

    def stop_clock(self) -> None:
        """Set ``wall_s`` to the seconds since this report was made (a run's report is made as it starts).

        A run that raises never reaches its engine's last step, which records ``wall_s``; the
        failure policy stops the clock before it raises, so the report still says how long it took.
        """
        self.wall_s = time.perf_counter() - self._created

    @property
    def amplification(self) -> float:
        """Prompt tokens sent (or served from cache) per document token; 0.0 with no documents."""
        return self.prompt_tokens / self.document_tokens if self.document_tokens else 0.0

    def add(self, **counts: float | str) -> None:
        """Add to counters by name, safely from several threads."""
        with _COUNTS_LOCK:
            for name, value in counts.items():
                if isinstance(value, str):
                    if value:
                        setattr(self, name, value)  # a description, not a counter: the last one wins
                    continue
                setattr(self, name, getattr(self, name) + value)

    def merge(self, other: UsageReport) -> None:
        """Add every counter of ``other`` into this report."""
        self.add(
            **{k: v for k, v in other.to_dict().items() if k not in {"amplification", "estimated", "token_counter"}}
        )
        with _COUNTS_LOCK:
            names = [n for n in (*self.token_counter.split("+"), *other.token_counter.split("+")) if n]
            self.token_counter = "+".join(dict.fromkeys(names))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view including the derived ``amplification``."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}
        data["amplification"] = round(self.amplification, 4)
        return data

    def summary(self) -> str:
        """One human-readable line, as the CLI prints it."""
        tokens = "" if not self.estimated_calls else f" (estimated for {self.estimated_calls} calls)"
        return (
            f"calls={self.calls} cache_hits={self.cache_hits} prompt_tokens={self.prompt_tokens} "
            f"completion_tokens={self.completion_tokens}{tokens} document_tokens={self.document_tokens} "
            f"amplification={self.amplification:.3f} retries={self.retries} fallbacks={self.fallbacks} "
            f"invalid_answers={self.invalid_answers} documents={self.documents} chunks={self.chunks} "
            f"wall_s={self.wall_s:.2f} token_counter={self.token_counter or '?'}"
            + (" (estimate)" if self.estimated else "")
        )


class UsageSlot:
    """Where an engine keeps ``last_usage``: one report per thread, thread-safe, picklable.

    Attributes:
        latest: The report of the run that started last, in any thread.
        started: Whether any run has published a report yet.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_thread: dict[int, UsageReport] = {}
        self.latest = UsageReport()
        self.started = False

    def get(self) -> UsageReport:
        """This thread's last report, else the latest of any thread."""
        with self._lock:
            return self._by_thread.get(_thread_key(), self.latest)

    def set(self, report: UsageReport) -> None:
        """Publish ``report`` as this thread's (and the latest) report."""
        with self._lock:
            self._by_thread[_thread_key()] = report
            self.latest = report
            self.started = True

    def __getstate__(self) -> dict[str, Any]:
        return {"latest": self.latest, "started": self.started}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]
        self.latest, self.started = state["latest"], state["started"]


class ReportsUsage:
    """Mixin for an engine: ``last_usage``, this thread's report of its last run.

    The engine keeps a :class:`UsageSlot` in ``self._usage`` and publishes a run's report
    when the run starts, so a run that raised still says what it spent.
    """

    _usage: UsageSlot

    @property
    def last_usage(self) -> UsageReport:
        """The usage report of this thread's last run, published when the run starts (so also after a raise)."""
        return self._usage.get()

    @last_usage.setter
    def last_usage(self, report: UsageReport) -> None:
        self._usage.set(report)
