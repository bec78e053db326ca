"""CHOP's prompts, answer schemas and LLM-backed deciders.

CHOP asks an LLM two questions (``docs/architecture.md``, *CHOP*):

* **continuity**: does chunk ``C_i+1`` continue the document and topic flow of
  ``C_i`` (TRUE: it inherits the signature) or does a new topic or document
  start (FALSE: a fresh signature is extracted)?
* **CNM**: the chunk's Category (broad product family), Nouns (1-2 key nouns for
  its target or action) and Model (specific model or series name).

Token cost matters, so the prompts are compact: a continuity prompt shows only
the tail of ``C_i`` and the head of ``C_i+1``, a CNM prompt only the head of the
chunk plus the document hints (title, file name, known category or model).
:class:`PromptBudget` sets how many tokens of each are shown. A *combined*
prompt (:class:`LLMPairJudge`) asks both questions at once: the CNM is only
answered when the answer is FALSE, so one call replaces two on a topic change.

Every decision goes through :func:`chop_integrations._llm.policy.adecide`: one corrective
retry on an unusable answer, then ``on_llm_error`` raises or falls back to the offline
decider. The deciders are async only (the protocols of :mod:`chop_integrations._deciders`); their
fallbacks, the offline deciders, are asked synchronously.

This module is the public face: the excerpts live in
:mod:`chop_integrations._chop.excerpts`, the answer schemas and parsers in
:mod:`chop_integrations._chop.answers`, the window mode's prompt and parser in
:mod:`chop_integrations._chop.window`; all are importable from here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from .._deciders import DocContext
from .._llm.engine import sync_method
from .._llm.policy import Decision, OnLLMError, adecide
from .._llm.runner import LLMRunner
from .._text.tokens import TokenCounter
from .._types import CNM, Chunk
from .answers import CNMAnswer, ContinuityAnswer, PairAnswer, parse_cnm, parse_continuity, parse_pair
from .excerpts import PromptBudget, head, hint_line, pair_context, section_hint, tail
from .excerpts import compact as compact  # re-exported
from .window import WINDOW_PROMPT as WINDOW_PROMPT  # re-exported
from .window import WindowAnswer, WindowResult, parse_window, window_excerpt, window_prompt

__all__ = [
    "CNMAnswer",
    "ContinuityAnswer",
    "LLMCNMExtractor",
    "LLMContinuity",
    "LLMPairJudge",
    "LLMWindowJudge",
    "PairAnswer",
    "PromptBudget",
    "cnm_prompt",
    "continuity_prompt",
    "pair_prompt",
    "window_excerpt",
    "window_prompt",
]

# -- prompts ----------------------------------------------------------------------------------

#: The question and the excerpts both pair prompts share.
_PAIR_QUESTION = (
    "A and B are adjacent passages. Does B continue the same document and topic as A?\n"
    "{hints}{pair}"
    "A ends: {tail}\n"
    "B starts: {head}\n"
)

CONTINUITY_PROMPT = _PAIR_QUESTION + "Answer TRUE (same topic flow) or FALSE (new topic or new document)."

CNM_PROMPT = (
    "Signature of the passage, JSON only: "
    '{{"category": broad product family, "nouns": [1-2 key nouns for its target or action], '
    '"model": specific model or series name}}; null where unknown.\n'
    "{hints}{known}"
    "Passage: {head}"
)

PAIR_PROMPT = _PAIR_QUESTION + (
    'JSON only. Same topic flow: {{"continues": true}}. New topic or document: {{"continues": false, '
    '"cnm": {{"category": broad product family, "nouns": [1-2 key nouns for B\'s target or action], '
    '"model": specific model or series name}}}}; null where unknown.'
)


@dataclass(frozen=True)
class _PairQuestion:
    """A prompt about a pair: document hints, the files of a straddling pair, A's tail, B's head.

    Attributes:
        template: The prompt template (the shared question, then what to answer).
        head_budget: The :class:`PromptBudget` field that sets how many tokens of B are shown.
    """

    template: str
    head_budget: Literal["head_tokens", "cnm_tokens"]

    def __call__(
        self,
        previous: Chunk,
        current: Chunk,
        doc: DocContext,
        *,
        budget: PromptBudget,
        count: TokenCounter,
        source_key: str = "source",
    ) -> str:
        """The prompt for the pair (``previous``, ``current``)."""
        return self.template.format(
            hints=hint_line(doc),
            pair=pair_context(previous, current, source_key),
            tail=tail(previous.text, budget.tail_tokens, count),
            head=section_hint(current, doc) + head(current.text, getattr(budget, self.head_budget), count),
        )


#: The continuity prompt for the pair (``previous``, ``current``).
continuity_prompt = _PairQuestion(CONTINUITY_PROMPT, "head_tokens")
#: The combined prompt: continuity of the pair, plus ``current``'s CNM when it does not continue.
pair_prompt = _PairQuestion(PAIR_PROMPT, "cnm_tokens")


def cnm_prompt(
    chunk: Chunk,
    doc: DocContext,
    previous: CNM | None,
    *,
    budget: PromptBudget,
    count: TokenCounter,
) -> str:
    """The CNM prompt for ``chunk``; ``previous`` (the document's signature so far) is shown as a hint."""
    known = ""
    if previous is not None and (previous.category or previous.model):
        fields = [
            f"category {previous.category}" if previous.category else "",
            f"model {previous.model}" if previous.model else "",
        ]
        known = "Earlier in this document: " + ", ".join(f for f in fields if f) + "\n"
    passage = section_hint(chunk, doc) + head(chunk.text, budget.cnm_tokens, count)
    return CNM_PROMPT.format(hints=hint_line(doc), known=known, head=passage)


# -- deciders ---------------------------------------------------------------------------------

T = TypeVar("T")


class _LLMDecider:
    """Shared plumbing: a runner, the failure policy, the budget and the token counter.

    Attributes:
        task: The decision's task, for errors and logs (``"continuity"`` or ``"cnm"``).
        schema: The answer schema for models with structured output.
    """

    task = "continuity"
    schema: type[BaseModel]

    def __init__(
        self,
        runner: LLMRunner,
        *,
        on_llm_error: OnLLMError = "fallback",
        budget: PromptBudget | None = None,
        source_key: str = "source",
    ) -> None:
        self.runner = runner
        self.on_llm_error = on_llm_error
        self.budget = budget or PromptBudget()
        self.source_key = source_key

    @property
    def count(self) -> TokenCounter:
        return self.runner.count_tokens

    async def _aask(
        self, prompt: str, parse: Callable[[str], T], fallback: Callable[[], T], doc: DocContext, at: Chunk
    ) -> T:
        """Ask ``prompt`` about the chunk ``at`` under this decider's runner and failure policy."""
        decision = Decision(
            prompt, parse, fallback, task=self.task, document=doc.doc_id, position=at.start, schema=self.schema
        )
        return await adecide(decision, self.runner, self.on_llm_error)


class _OfflineBackedJudge(_LLMDecider):
    """A judge that answers both questions at once, with both offline deciders for its fallbacks."""

    def __init__(self, runner: LLMRunner, *, continuity: Any, extractor: Any, **options: Any) -> None:
        super().__init__(runner, **options)
        self.continuity = sync_method(continuity, "adecide")
        self.extractor = sync_method(extractor, "aextract")


class LLMContinuity(_LLMDecider):
    """A :class:`~chop_integrations._deciders.ContinuityDecider` that asks an LLM.

    Args:
        runner: The runner every call goes through (cache, retries, usage).
        fallback: The offline decider used under ``on_llm_error="fallback"``.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of each chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    schema = ContinuityAnswer

    def __init__(self, runner: LLMRunner, *, fallback: Any, **options: Any) -> None:
        super().__init__(runner, **options)
        self.fallback = fallback

    async def adecide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """True when ``current`` continues ``previous``'s document and topic."""
        prompt = continuity_prompt(
            previous, current, doc, budget=self.budget, count=self.count, source_key=self.source_key
        )
        offline = functools.partial(sync_method(self.fallback, "adecide"), previous, current, doc)
        return await self._aask(prompt, parse_continuity, offline, doc, current)


class LLMCNMExtractor(_LLMDecider):
    """A :class:`~chop_integrations._deciders.CNMExtractor` that asks an LLM.

    Args:
        runner: The runner every call goes through.
        fallback: The offline extractor used under ``on_llm_error="fallback"``.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of the chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    task = "cnm"
    schema = CNMAnswer

    def __init__(self, runner: LLMRunner, *, fallback: Any, **options: Any) -> None:
        super().__init__(runner, **options)
        self.fallback = fallback

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """The signature of ``chunk``."""
        prompt = cnm_prompt(chunk, doc, previous, budget=self.budget, count=self.count)
        offline = functools.partial(sync_method(self.fallback, "aextract"), chunk, doc, previous)
        return await self._aask(prompt, parse_cnm, offline, doc, chunk)


PairResult = tuple[bool, "CNM | None"]


class LLMPairJudge(_OfflineBackedJudge):
    """Continuity and, on FALSE, the CNM of the second chunk, in one call (the combined mode).

    Returns ``(continues, cnm)``; ``cnm`` is None when the pair continues, or when
    the model answered FALSE without a signature (the engine then extracts it).

    Args:
        runner: The runner every call goes through.
        continuity: The offline continuity decider for fallbacks.
        extractor: The offline CNM extractor for fallbacks.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of each chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    schema = PairAnswer

    def _offline(self, previous: Chunk, current: Chunk, doc: DocContext) -> PairResult:
        if self.continuity(previous, current, doc):
            return True, None
        return False, self.extractor(current, doc, None)

    async def ajudge(self, previous: Chunk, current: Chunk, doc: DocContext) -> PairResult:
        """``(continues, cnm)`` for the pair."""
        prompt = pair_prompt(previous, current, doc, budget=self.budget, count=self.count, source_key=self.source_key)
        offline = functools.partial(self._offline, previous, current, doc)
        return await self._aask(prompt, parse_pair, offline, doc, current)


class LLMWindowJudge(_OfflineBackedJudge):
    """Judges a window of consecutive chunks in one call: continuity of each, and the CNM where it does not continue.

    Returns one ``(continues, cnm)`` per chunk; ``cnm`` is None when the chunk
    continues or when the model gave ``false`` without a signature (the engine
    then extracts it). For a window that opens a document, the first item's
    flag is meaningless (the chunk always starts a signature). The prompt and
    its parser are in :mod:`chop_integrations._chop.window`. It takes the arguments of :class:`LLMPairJudge`.
    """

    schema = WindowAnswer

    def prompt(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> str:
        """The prompt for ``chunks`` (``previous`` is the chunk before the window, None at a document start)."""
        excerpts = [section_hint(c, doc) + window_excerpt(c.text, self.budget, self.count) for c in chunks]
        context = None if previous is None else tail(previous.text, self.budget.tail_tokens, self.count)
        return window_prompt(excerpts, None if context is None else context.replace("\n", " / "), doc)

    def _offline(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> WindowResult:
        results: WindowResult = []
        before, signature = previous, None
        for chunk in chunks:
            if before is not None and self.continuity(before, chunk, doc):
                results.append((True, None))
            else:
                signature = self.extractor(chunk, doc, signature)
                results.append((False, signature))
            before = chunk
        return results

    async def ajudge(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> WindowResult:
        """``(continues, cnm)`` for each chunk of the window."""
        size = len(chunks)
        offline = functools.partial(self._offline, chunks, previous, doc)
        return await self._aask(
            self.prompt(chunks, previous, doc), lambda answer: parse_window(answer, size), offline, doc, chunks[0]
        )
