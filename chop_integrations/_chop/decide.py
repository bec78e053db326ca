"""CHOP's LLM decisions for one run: the deciders on one runner, the first round of calls, the missing signatures.

Step 1 asks every first-round question concurrently (a window of chunks per call, or a continuity or pair
question per adjacent pair plus the signature of each document's first chunk); step 2 extracts the signatures
still missing, document openings first, since theirs are the hint for the others. Step 3, resolving inheritance,
is :func:`~chop_integrations._chop.plan.resolve`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from .._checks import check_choice
from .._deciders import CNMExtractor, ContinuityDecider
from .._errors import ConfigurationError
from .._llm.aio import gather_limited
from .._llm.policy import OnLLMError
from .._llm.runner import LLMRunner
from .excerpts import PromptBudget
from .plan import Call, Decisions, Plan, anchors, collect_answers, missing_signatures, windows
from .prompts import LLMCNMExtractor, LLMContinuity, LLMPairJudge, LLMWindowJudge


@dataclass(frozen=True)
class LLMDecisions:
    """The LLM-backed deciders of one run, all on one runner, each falling back to the offline ones.

    Attributes:
        continuity: Asks whether a chunk continues the one before it (``decisions="separate"``).
        extractor: Extracts a fresh signature.
        pair: Asks continuity and, on FALSE, the signature in one call (``decisions="pair"``).
        window: Judges a window of consecutive chunks in one call (``decisions="window"``).
        mode: ``"window"``, ``"pair"`` or ``"separate"``.
        budget: How many tokens of each chunk the prompts show.
        max_concurrency: Calls in flight at once.
    """

    continuity: LLMContinuity
    extractor: LLMCNMExtractor
    pair: LLMPairJudge
    window: LLMWindowJudge
    mode: DecisionMode
    budget: PromptBudget
    max_concurrency: int

    @classmethod
    def build(
        cls,
        runner: LLMRunner,
        *,
        continuity: ContinuityDecider,
        extractor: CNMExtractor,
        mode: DecisionMode,
        on_llm_error: OnLLMError,
        budget: PromptBudget,
        source_key: str,
        max_concurrency: int,
    ) -> LLMDecisions:
        """The four deciders on ``runner``, falling back to the offline ``continuity`` and ``extractor``."""
        options: dict[str, Any] = {"on_llm_error": on_llm_error, "budget": budget, "source_key": source_key}
        return cls(
            continuity=LLMContinuity(runner, fallback=continuity, **options),
            extractor=LLMCNMExtractor(runner, fallback=extractor, **options),
            pair=LLMPairJudge(runner, continuity=continuity, extractor=extractor, **options),
            window=LLMWindowJudge(runner, continuity=continuity, extractor=extractor, **options),
            mode=mode,
            budget=budget,
            max_concurrency=max_concurrency,
        )

    def first_round(self, plan: Plan) -> list[Call]:
        """Step 1's calls: each with the chunk indexes it answers for."""
        chunks, docs, starts = plan.chunks, plan.docs, set(plan.starts)
        if self.mode == "window":
            judge = self.window
            return [
                (list(range(a, b)), partial(judge.ajudge, chunks[a:b], None if a in starts else chunks[a - 1], docs[a]))
                for a, b in windows(plan, self.budget)
            ]
        calls: list[Call] = [([i], partial(self.extractor.aextract, chunks[i], docs[i], None)) for i in plan.starts]
        ask = self.pair.ajudge if self.mode == "pair" else self.continuity.adecide
        calls += [([i], partial(ask, chunks[i - 1], chunks[i], docs[i])) for i in plan.pairs]
        return calls

    async def decide(self, plan: Plan) -> Decisions:
        """Steps 1 and 2: every first-round call concurrently, then the signatures still missing."""
        calls = self.first_round(plan)
        results = await gather_limited([factory for _, factory in calls], self.max_concurrency)
        decisions = collect_answers(plan, calls, results, windowed=self.mode == "window")
        fresh, owner = decisions.fresh, anchors(plan)
        chunks, docs = plan.chunks, plan.docs
        # Document openings first: their signatures are the hint for the others.
        for group in missing_signatures(plan, decisions):
            extracted = await gather_limited(
                [partial(self.extractor.aextract, chunks[i], docs[i], fresh.get(owner[i])) for i in group],
                self.max_concurrency,
            )
            fresh.update(zip(group, extracted, strict=True))
        return decisions


#: How the LLM is asked: one call per window of chunks, per pair (continuity + CNM), or separately.
DecisionMode = Literal["window", "pair", "separate"]
DECISION_MODES: tuple[DecisionMode, ...] = ("window", "pair", "separate")


def check_source_key(source_key: Any) -> str:
    """Validate ``source_key``.

    Raises:
        ConfigurationError: When it is not a non-empty str.
    """
    if not isinstance(source_key, str) or not source_key:
        raise ConfigurationError(f"source_key must be a non-empty str, got {source_key!r}")
    return source_key


def check_decisions(decisions: str) -> DecisionMode:
    """Validate ``decisions``.

    Raises:
        ConfigurationError: When it is not one of :data:`DECISION_MODES`.
    """
    return check_choice("decisions", decisions, DecisionMode)  # type: ignore[no-any-return]
