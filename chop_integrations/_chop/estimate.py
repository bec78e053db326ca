"""CHOP's dry runs: the calls and tokens a run would spend, counted without calling the LLM.

:meth:`~chop_integrations.CHOPChunker.estimate` builds every prompt a run
would send, assuming the LLM answers what the offline deciders answer, and
counts it exactly; completions are estimated per kind of answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._deciders import DocContext
from .._llm.usage import UsageReport
from .._text.tokens import TokenCounter
from .._types import Chunk
from .excerpts import PromptBudget
from .plan import Decisions, Plan, anchors, windows
from .prompts import cnm_prompt, continuity_prompt, pair_prompt

#: Estimated completion tokens per kind of answer (dry runs only).
EST_COMPLETION = {"continuity": 2, "cnm": 30, "pair_true": 6, "pair_false": 36, "window": 8, "item": 2}

#: Builds a window's prompt from its chunks, the chunk before it (None at a reset) and the document.
WindowPrompt = Callable[[list[Chunk], "Chunk | None", DocContext], str]


def estimate_windows(
    plan: Plan,
    report: UsageReport,
    *,
    offline: Decisions,
    window_prompt: WindowPrompt,
    budget: PromptBudget,
    count: TokenCounter,
) -> None:
    """Add one call per window: its prompt, and a completion of a flag or a CNM per chunk."""
    flags = offline.continues
    starts = set(plan.starts)
    for a, b in windows(plan, budget):
        prompt = window_prompt(plan.chunks[a:b], None if a in starts else plan.chunks[a - 1], plan.docs[a])
        new = sum(1 for i in range(a, b) if not flags.get(i, False))
        done = EST_COMPLETION["window"] + (b - a - new) * EST_COMPLETION["item"] + new * EST_COMPLETION["cnm"]
        report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=done)


def estimate_pairs(
    plan: Plan,
    report: UsageReport,
    *,
    offline: Decisions,
    combined: bool,
    budget: PromptBudget,
    count: TokenCounter,
    source_key: str,
) -> None:
    """Add a CNM call per start and, per pair, a combined call or a continuity call (plus a CNM call on FALSE)."""
    flags, offline_cnms = offline
    owner = anchors(plan)
    kw: dict[str, Any] = {"budget": budget, "count": count}

    def add(prompt: str, answer: str) -> None:
        report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=EST_COMPLETION[answer])

    for i in plan.starts:
        add(cnm_prompt(plan.chunks[i], plan.docs[i], None, **kw), "cnm")
    for i in plan.pairs:
        previous, chunk, doc = plan.chunks[i - 1], plan.chunks[i], plan.docs[i]
        if combined:
            answer = "pair_true" if flags[i] else "pair_false"
            add(pair_prompt(previous, chunk, doc, source_key=source_key, **kw), answer)
            continue
        add(continuity_prompt(previous, chunk, doc, source_key=source_key, **kw), "continuity")
        if not flags[i]:
            add(cnm_prompt(chunk, doc, offline_cnms[owner[i]], **kw), "cnm")


#: Usage counters a base chunker's report contributes (its document and chunk counts are CHOP's own).
_LLM_COUNTERS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "retries", "fallbacks", "invalid_answers")


def merge_llm_counts(usage: UsageReport, other: UsageReport | None) -> None:
    """Add the LLM counters of a base chunker's report (``other``, if any) to ``usage``."""
    if other is not None:
        usage.add(**{name: getattr(other, name) for name in _LLM_COUNTERS})


def base_chunks(
    base: Any, docs: Sequence[DocContext], report: UsageReport, *, count: TokenCounter
) -> list[list[Chunk]]:
    """The base chunks of a dry run: the base LumberChunker's own estimate, then its offline chunks."""
    from .._lumber.chunker import LumberChunker

    estimate = getattr(base, "estimate", None)
    if getattr(base, "llm", None) is not None and callable(estimate):
        merge_llm_counts(report, estimate([d.text for d in docs], [d.metadata for d in docs]))
    max_tokens = getattr(getattr(base, "settings", None), "max_tokens", None)
    options: dict[str, Any] = {
        "token_counter": count,
        **({"max_tokens": max_tokens} if max_tokens else {}),
    }
    if isinstance(base, LumberChunker):  # the same sizes as the run (CHOP's built-in keeps sections as they are)
        options.update(target_tokens=base.settings.target_tokens, min_tokens=base.settings.min_tokens)
    offline = LumberChunker(None, **options)
    return offline.chunk_many([d.text for d in docs], metadatas=[d.metadata for d in docs])


def estimate_calls(
    plan: Plan,
    report: UsageReport,
    *,
    decisions: str,
    offline: Decisions,
    window_prompt: WindowPrompt | None,
    budget: PromptBudget,
    count: TokenCounter,
    source_key: str,
) -> None:
    """Add the calls a run in ``decisions`` mode would make to ``report``, assuming the ``offline`` answers."""
    if decisions == "window":
        assert window_prompt is not None
        estimate_windows(plan, report, offline=offline, window_prompt=window_prompt, budget=budget, count=count)
    else:
        combined = decisions == "pair"
        estimate_pairs(
            plan, report, offline=offline, combined=combined, budget=budget, count=count, source_key=source_key
        )
