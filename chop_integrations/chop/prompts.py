"""CHOP's prompts, answer schemas and LLM-backed deciders.

CHOP asks an LLM two questions (DESIGN.md, section 1):

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

Every decision goes through :func:`chop_integrations.llm.policy.adecide` (or
``decide``): one corrective retry on an unusable answer, then ``on_llm_error``
raises or falls back to the offline decider.

This module is the public face: the excerpts live in
:mod:`chop_integrations.chop.excerpts`, the answer schemas and parsers in
:mod:`chop_integrations.chop.answers`, the window mode's prompt and parser in
:mod:`chop_integrations.chop.window`; all are importable from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..deciders import CNMExtractor, ContinuityDecider, DocContext
from ..llm.policy import Decision, OnLLMError, adecide, decide
from ..llm.runner import LLMRunner
from ..text.tokens import TokenCounter
from ..types import CNM, Chunk
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


def _fill_pair_question(
    template: str,
    previous: Chunk,
    current: Chunk,
    doc: DocContext,
    *,
    head_tokens: int,
    budget: PromptBudget,
    count: TokenCounter,
    source_key: str,
) -> str:
    """Fill a pair template: document hints, the files of a straddling pair, A's tail and B's ``head_tokens``."""
    return template.format(
        hints=hint_line(doc),
        pair=pair_context(previous, current, source_key),
        tail=tail(previous.text, budget.tail_tokens, count),
        head=section_hint(current, doc) + head(current.text, head_tokens, count),
    )


def continuity_prompt(
    previous: Chunk,
    current: Chunk,
    doc: DocContext,
    *,
    budget: PromptBudget,
    count: TokenCounter,
    source_key: str = "source",
) -> str:
    """The continuity prompt for the pair (``previous``, ``current``)."""
    return _fill_pair_question(
        CONTINUITY_PROMPT,
        previous,
        current,
        doc,
        head_tokens=budget.head_tokens,
        budget=budget,
        count=count,
        source_key=source_key,
    )


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


def pair_prompt(
    previous: Chunk,
    current: Chunk,
    doc: DocContext,
    *,
    budget: PromptBudget,
    count: TokenCounter,
    source_key: str = "source",
) -> str:
    """The combined prompt: continuity of the pair, plus ``current``'s CNM when it does not continue."""
    return _fill_pair_question(
        PAIR_PROMPT,
        previous,
        current,
        doc,
        head_tokens=budget.cnm_tokens,
        budget=budget,
        count=count,
        source_key=source_key,
    )


# -- deciders ---------------------------------------------------------------------------------

T = TypeVar("T")


class _LLMDecider:
    """Shared plumbing: a runner, the failure policy, the budget and the token counter."""

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

    def _ask(self, decision: Decision[T]) -> T:
        """Make ``decision`` under this decider's runner and failure policy."""
        return decide(decision, self.runner, self.on_llm_error)

    async def _aask(self, decision: Decision[T]) -> T:
        """Async :meth:`_ask`."""
        return await adecide(decision, self.runner, self.on_llm_error)


class _OfflineBackedJudge(_LLMDecider):
    """A judge that answers both questions at once, with both offline deciders for its fallbacks."""

    def __init__(
        self, runner: LLMRunner, *, continuity: ContinuityDecider, extractor: CNMExtractor, **options: Any
    ) -> None:
        super().__init__(runner, **options)
        self.continuity = continuity
        self.extractor = extractor


class LLMContinuity(_LLMDecider):
    """A :class:`~chop_integrations.deciders.ContinuityDecider` that asks an LLM.

    Args:
        runner: The runner every call goes through (cache, retries, usage).
        fallback: The offline decider used under ``on_llm_error="fallback"``.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of each chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    def __init__(self, runner: LLMRunner, *, fallback: ContinuityDecider, **options: Any) -> None:
        super().__init__(runner, **options)
        self.fallback = fallback

    def _decision(self, previous: Chunk, current: Chunk, doc: DocContext) -> Decision[bool]:
        prompt = continuity_prompt(
            previous, current, doc, budget=self.budget, count=self.count, source_key=self.source_key
        )
        return Decision(
            prompt=prompt,
            parse=parse_continuity,
            fallback=lambda: self.fallback.decide(previous, current, doc),
            task="continuity",
            document=doc.doc_id,
            position=current.start,
            schema=ContinuityAnswer,
        )

    def decide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """True when ``current`` continues ``previous``'s document and topic."""
        return self._ask(self._decision(previous, current, doc))

    async def adecide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """Async :meth:`decide`."""
        return await self._aask(self._decision(previous, current, doc))


class LLMCNMExtractor(_LLMDecider):
    """A :class:`~chop_integrations.deciders.CNMExtractor` that asks an LLM.

    Args:
        runner: The runner every call goes through.
        fallback: The offline extractor used under ``on_llm_error="fallback"``.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of the chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    def __init__(self, runner: LLMRunner, *, fallback: CNMExtractor, **options: Any) -> None:
        super().__init__(runner, **options)
        self.fallback = fallback

    def _decision(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> Decision[CNM]:
        return Decision(
            prompt=cnm_prompt(chunk, doc, previous, budget=self.budget, count=self.count),
            parse=parse_cnm,
            fallback=lambda: self.fallback.extract(chunk, doc, previous),
            task="cnm",
            document=doc.doc_id,
            position=chunk.start,
            schema=CNMAnswer,
        )

    def extract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """The signature of ``chunk``."""
        return self._ask(self._decision(chunk, doc, previous))

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Async :meth:`extract`."""
        return await self._aask(self._decision(chunk, doc, previous))


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

    def _fallback(self, previous: Chunk, current: Chunk, doc: DocContext) -> Callable[[], PairResult]:
        def run() -> PairResult:
            if self.continuity.decide(previous, current, doc):
                return True, None
            return False, self.extractor.extract(current, doc, None)

        return run

    def _decision(self, previous: Chunk, current: Chunk, doc: DocContext) -> Decision[PairResult]:
        prompt = pair_prompt(previous, current, doc, budget=self.budget, count=self.count, source_key=self.source_key)
        return Decision(
            prompt=prompt,
            parse=parse_pair,
            fallback=self._fallback(previous, current, doc),
            task="continuity",
            document=doc.doc_id,
            position=current.start,
            schema=PairAnswer,
        )

    def judge(self, previous: Chunk, current: Chunk, doc: DocContext) -> PairResult:
        """``(continues, cnm)`` for the pair."""
        return self._ask(self._decision(previous, current, doc))

    async def ajudge(self, previous: Chunk, current: Chunk, doc: DocContext) -> PairResult:
        """Async :meth:`judge`."""
        return await self._aask(self._decision(previous, current, doc))


class LLMWindowJudge(_OfflineBackedJudge):
    """Judges a window of consecutive chunks in one call: continuity of each, and the CNM where it does not continue.

    Returns one ``(continues, cnm)`` per chunk; ``cnm`` is None when the chunk
    continues or when the model gave ``false`` without a signature (the engine
    then extracts it). For a window that opens a document, the first item's
    flag is meaningless (the chunk always starts a signature). The prompt and
    its parser are in :mod:`chop_integrations.chop.window`.

    Args:
        runner: The runner every call goes through.
        continuity: The offline continuity decider for fallbacks.
        extractor: The offline CNM extractor for fallbacks.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of each chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    def prompt(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> str:
        """The prompt for ``chunks`` (``previous`` is the chunk before the window, None at a document start)."""
        excerpts = [section_hint(c, doc) + window_excerpt(c.text, self.budget, self.count) for c in chunks]
        context = None if previous is None else tail(previous.text, self.budget.tail_tokens, self.count)
        return window_prompt(excerpts, None if context is None else context.replace("\n", " / "), doc)

    def _fallback(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> Callable[[], WindowResult]:
        def run() -> WindowResult:
            results: WindowResult = []
            before, signature = previous, None
            for chunk in chunks:
                if before is not None and self.continuity.decide(before, chunk, doc):
                    results.append((True, None))
                else:
                    signature = self.extractor.extract(chunk, doc, signature)
                    results.append((False, signature))
                before = chunk
            return results

        return run

    def _decision(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> Decision[WindowResult]:
        size = len(chunks)
        return Decision(
            prompt=self.prompt(chunks, previous, doc),
            parse=lambda answer: parse_window(answer, size),
            fallback=self._fallback(chunks, previous, doc),
            task="continuity",
            document=doc.doc_id,
            position=chunks[0].start,
            schema=WindowAnswer,
        )

    def judge(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> WindowResult:
        """``(continues, cnm)`` for each chunk of the window."""
        return self._ask(self._decision(chunks, previous, doc))

    async def ajudge(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> WindowResult:
        """Async :meth:`judge`."""
        return await self._aask(self._decision(chunks, previous, doc))
