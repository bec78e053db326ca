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

Every decision goes through :func:`chop_integrations.policy.adecide` (or
``decide``): one corrective retry on an unusable answer, then ``on_llm_error``
raises or falls back to the offline decider.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .deciders import CNMExtractor, ContinuityDecider, DocContext
from .parsing import extract_json, parse_bool, parse_model
from .policy import Decision, OnLLMError, adecide, decide
from .runner import LLMRunner
from .tokens import TokenCounter
from .types import CNM, Chunk

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

# -- answer schemas ---------------------------------------------------------------------------


class ContinuityAnswer(BaseModel):
    """Structured answer of the continuity question."""

    continues: bool = Field(description="True when B continues A's document and topic; false when a new one starts.")


class CNMAnswer(BaseModel):
    """Structured answer of the CNM question (lenient: a string noun becomes a list)."""

    model_config = ConfigDict(extra="ignore", protected_namespaces=())

    category: str | None = Field(default=None, description="Broad product family, or null.")
    nouns: list[str] = Field(default_factory=list, description="1-2 key nouns for the passage's target or action.")
    model: str | None = Field(default=None, description="Specific model or series name, or null.")

    @field_validator("nouns", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value if v is not None]
        return value

    @field_validator("category", "model", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return " ".join(str(v) for v in value if v is not None) or None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return value

    def to_cnm(self) -> CNM:
        """The sanitised :class:`~chop_integrations.types.CNM`."""
        return CNM(category=self.category, nouns=self.nouns, model=self.model)


class PairAnswer(BaseModel):
    """Structured answer of the combined question: continuity, plus the CNM when it is false."""

    continues: bool = Field(description="True when B continues A's document and topic.")
    cnm: CNMAnswer | None = Field(default=None, description="B's signature, only when continues is false.")


class WindowAnswer(BaseModel):
    """Structured answer of a window: per passage ``true`` (continues) or its signature (a new topic)."""

    passages: list[bool | CNMAnswer] = Field(
        description="One item per passage, in order: true if it continues the passage before it, else its signature."
    )


# -- excerpts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptBudget:
    """How much of each chunk the prompts show, in tokens.

    Attributes:
        tail_tokens: Tokens from the end of ``C_i`` in a continuity prompt.
        head_tokens: Tokens from the start of ``C_i+1`` in a continuity prompt.
        cnm_tokens: Tokens from the start of a chunk in a CNM (or combined) prompt.
        window_tokens: Window mode: most tokens of passages shown in one prompt.
        window_chunks: Window mode: most passages judged in one prompt.
    """

    tail_tokens: int = 32
    head_tokens: int = 48
    cnm_tokens: int = 80
    window_tokens: int = 1500
    window_chunks: int = 24

    def __post_init__(self) -> None:
        from .errors import ConfigurationError

        for name in ("tail_tokens", "head_tokens", "cnm_tokens", "window_tokens", "window_chunks"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ConfigurationError(f"PromptBudget.{name} must be a positive int, got {getattr(self, name)!r}")


_BLANKS = re.compile(r"[ \t\f\v\u00a0\u3000]+")
_NEWLINES = re.compile(r"\s*\n\s*")
_SYMBOL_RUNS = re.compile(r"([^\w\s])(?:\s*[^\w\s]){3,}")
_MAX_CHARS_PER_TOKEN = 6


def compact(text: str) -> str:
    """Squeeze whitespace and runs of symbols (table rules, dot leaders) that cost tokens and say nothing."""
    text = _SYMBOL_RUNS.sub(r"\1", text)
    text = _BLANKS.sub(" ", text)
    return _NEWLINES.sub("\n", text).strip()


def _fit(text: str, max_tokens: int, count: TokenCounter, *, from_end: bool) -> str:
    """The longest head (or tail) of ``text`` within ``max_tokens``, cut at a space where one is near."""
    text = compact(text)
    if not text:
        return ""
    chars = min(len(text), max_tokens * _MAX_CHARS_PER_TOKEN)
    piece = text[-chars:] if from_end else text[:chars]
    tokens = count(piece)
    while tokens > max_tokens and chars > 1:
        chars = max(1, min(chars - 1, int(chars * max_tokens / tokens * 0.95)))
        piece = text[-chars:] if from_end else text[:chars]
        tokens = count(piece)
    if chars == len(text):
        return piece
    # Cut at a word boundary when one lies close to the edge (never for unspaced scripts).
    edge = piece.find(" ") if from_end else piece.rfind(" ")
    if from_end and 0 <= edge < len(piece) // 4:
        piece = piece[edge + 1 :]
    elif not from_end and edge > len(piece) * 3 // 4:
        piece = piece[:edge]
    return "..." + piece if from_end else piece + "..."


def head(text: str, max_tokens: int, count: TokenCounter) -> str:
    """The compacted start of ``text``, at most ``max_tokens`` tokens (plus an ellipsis when cut)."""
    return _fit(text, max_tokens, count, from_end=False)


def tail(text: str, max_tokens: int, count: TokenCounter) -> str:
    """The compacted end of ``text``, at most ``max_tokens`` tokens (plus an ellipsis when cut)."""
    return _fit(text, max_tokens, count, from_end=True)


def _hint_line(doc: DocContext) -> str:
    """One short line naming the document: title, file name, known category and model."""
    parts = []
    hints = doc.hints
    if hints.get("title"):
        parts.append(f'title "{compact(str(hints["title"]))[:120]}"')
    if hints.get("source"):
        parts.append(f'file "{PurePath(str(hints["source"])).name[:120]}"')
    for key in ("category", "model"):
        if hints.get(key):
            parts.append(f'{key} "{compact(str(hints[key]))[:80]}"')
    return "Document: " + ", ".join(parts) + "\n" if parts else ""


def _source_of(chunk: Chunk, source_key: str) -> str | None:
    value = chunk.metadata.get(source_key)
    return None if value is None else str(value)


def _pair_context(previous: Chunk, current: Chunk, source_key: str) -> str:
    """Names both files when the pair straddles two documents (only with new_document_resets=False)."""
    a, b = _source_of(previous, source_key), _source_of(current, source_key)
    if a is not None and b is not None and a != b:
        return f'A is from "{PurePath(a).name[:80]}", B from "{PurePath(b).name[:80]}".\n'
    return ""


# -- prompts ----------------------------------------------------------------------------------

CONTINUITY_PROMPT = (
    "A and B are adjacent passages. Does B continue the same document and topic as A?\n"
    "{hints}{pair}"
    "A ends: {tail}\n"
    "B starts: {head}\n"
    "Answer TRUE (same topic flow) or FALSE (new topic or new document)."
)

CNM_PROMPT = (
    "Signature of the passage, JSON only: "
    '{{"category": broad product family, "nouns": [1-2 key nouns for its target or action], '
    '"model": specific model or series name}}; null where unknown.\n'
    "{hints}{known}"
    "Passage: {head}"
)

PAIR_PROMPT = (
    "A and B are adjacent passages. Does B continue the same document and topic as A?\n"
    "{hints}{pair}"
    "A ends: {tail}\n"
    "B starts: {head}\n"
    'JSON only. Same topic flow: {{"continues": true}}. New topic or document: {{"continues": false, '
    '"cnm": {{"category": broad product family, "nouns": [1-2 key nouns for B\'s target or action], '
    '"model": specific model or series name}}}}; null where unknown.'
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
    return CONTINUITY_PROMPT.format(
        hints=_hint_line(doc),
        pair=_pair_context(previous, current, source_key),
        tail=tail(previous.text, budget.tail_tokens, count),
        head=head(current.text, budget.head_tokens, count),
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
    return CNM_PROMPT.format(hints=_hint_line(doc), known=known, head=head(chunk.text, budget.cnm_tokens, count))


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
    return PAIR_PROMPT.format(
        hints=_hint_line(doc),
        pair=_pair_context(previous, current, source_key),
        tail=tail(previous.text, budget.tail_tokens, count),
        head=head(current.text, budget.cnm_tokens, count),
    )


# -- answer parsers ---------------------------------------------------------------------------


def parse_continuity(answer: str) -> bool | str:
    """``{"continues": ...}`` JSON or a bare TRUE/FALSE; a problem description otherwise."""
    parsed = parse_model(answer, ContinuityAnswer)
    if isinstance(parsed, ContinuityAnswer):
        return parsed.continues
    return parse_bool(answer)


def parse_cnm(answer: str) -> CNM | str:
    """A CNM JSON object (fields may be missing or null); a problem description otherwise."""
    parsed = parse_model(answer, CNMAnswer)
    return parsed.to_cnm() if isinstance(parsed, CNMAnswer) else parsed


def parse_pair(answer: str) -> tuple[bool, CNM | None] | str:
    """The combined answer: ``(continues, cnm)``, where ``cnm`` is None when true or when the model left it out.

    A bare TRUE/FALSE is accepted too; a FALSE without a CNM makes the engine ask
    for the CNM separately.
    """
    parsed = parse_model(answer, PairAnswer)
    if isinstance(parsed, PairAnswer):
        if parsed.continues:
            return True, None
        return False, None if parsed.cnm is None else parsed.cnm.to_cnm()
    flag = parse_bool(answer)
    return (flag, None) if isinstance(flag, bool) else parsed


# -- deciders ---------------------------------------------------------------------------------


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
        return decide(self._decision(previous, current, doc), self.runner, self.on_llm_error)

    async def adecide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """Async :meth:`decide`."""
        return await adecide(self._decision(previous, current, doc), self.runner, self.on_llm_error)


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
        return decide(self._decision(chunk, doc, previous), self.runner, self.on_llm_error)

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Async :meth:`extract`."""
        return await adecide(self._decision(chunk, doc, previous), self.runner, self.on_llm_error)


PairResult = tuple[bool, "CNM | None"]


class LLMPairJudge(_LLMDecider):
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

    def __init__(
        self, runner: LLMRunner, *, continuity: ContinuityDecider, extractor: CNMExtractor, **options: Any
    ) -> None:
        super().__init__(runner, **options)
        self.continuity = continuity
        self.extractor = extractor

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
        return decide(self._decision(previous, current, doc), self.runner, self.on_llm_error)

    async def ajudge(self, previous: Chunk, current: Chunk, doc: DocContext) -> PairResult:
        """Async :meth:`judge`."""
        return await adecide(self._decision(previous, current, doc), self.runner, self.on_llm_error)


# -- window mode ------------------------------------------------------------------------------

WINDOW_PROMPT = (
    "Passages [1]..[{last}] follow each other{where}. For each passage answer true if it continues the topic "
    "of the passage before it, else (a new topic or document) its signature "
    '{{"category": broad product family, "nouns": [1-2 key nouns for its target or action], '
    '"model": specific model or series name}}, null where unknown.{first}\n'
    '{hints}JSON only: {{"passages": [one answer per passage]}}\n'
    "{context}{passages}"
)


def window_excerpt(text: str, budget: PromptBudget, count: TokenCounter) -> str:
    """A passage as a window shows it: whole when short, else its head and its tail, on one line."""
    whole = compact(text).replace("\n", " / ")
    if count(whole) <= budget.cnm_tokens + budget.tail_tokens:
        return whole
    start = head(text, budget.cnm_tokens, count).replace("\n", " / ")
    end = tail(text, budget.tail_tokens, count).replace("\n", " / ")
    return f"{start} {end}"


def window_prompt(excerpts: list[str], context: str | None, doc: DocContext) -> str:
    """The window prompt: ``excerpts`` numbered from 1, after the previous passage's tail as [0] (if any)."""
    hints = _hint_line(doc)
    return WINDOW_PROMPT.format(
        last=len(excerpts),
        where=" in one document" if hints else "",
        first="" if context is not None else " [1] opens the document: give its signature.",
        hints=hints,
        context="" if context is None else f"[0] {context}\n",
        passages="\n".join(f"[{n}] {text}" for n, text in enumerate(excerpts, 1)),
    )


def parse_window(answer: str, size: int) -> list[tuple[bool, CNM | None]] | str:
    """``size`` items of ``(continues, cnm)``; ``false`` gives ``(False, None)`` (the CNM is asked for later)."""
    value = extract_json(answer)
    if isinstance(value, list):
        value = {"passages": value}
    parsed = parse_model(answer if not isinstance(value, dict) else json.dumps(value), WindowAnswer)
    if isinstance(parsed, str):
        items = value.get("passages") if isinstance(value, dict) else None
        if not isinstance(items, list):
            return parsed
        parsed = WindowAnswer(passages=[_lenient_item(item) for item in items])
    if len(parsed.passages) != size:
        return f"expected {size} answers in passages (one per passage), got {len(parsed.passages)}"
    return [
        (True, None) if item is True else (False, None if item is False else item.to_cnm()) for item in parsed.passages
    ]


def _lenient_item(item: Any) -> bool | CNMAnswer:
    """One window item: a boolean, a TRUE/FALSE word, or a CNM object; anything else counts as false."""
    if isinstance(item, bool):
        return item
    if isinstance(item, dict):
        parsed = parse_model(json.dumps(item), CNMAnswer)
        return parsed if isinstance(parsed, CNMAnswer) else False
    flag = parse_bool(str(item))
    return flag if isinstance(flag, bool) else False


WindowResult = list[tuple[bool, "CNM | None"]]


class LLMWindowJudge(_LLMDecider):
    """Judges a window of consecutive chunks in one call: continuity of each, and the CNM where it does not continue.

    Returns one ``(continues, cnm)`` per chunk; ``cnm`` is None when the chunk
    continues or when the model gave ``false`` without a signature (the engine
    then extracts it). For a window that opens a document, the first item's
    flag is meaningless (the chunk always starts a signature).

    Args:
        runner: The runner every call goes through.
        continuity: The offline continuity decider for fallbacks.
        extractor: The offline CNM extractor for fallbacks.
        on_llm_error: ``"raise"`` or ``"fallback"``.
        budget: How much of each chunk the prompt shows.
        source_key: Metadata key naming a chunk's document.
    """

    def __init__(
        self, runner: LLMRunner, *, continuity: ContinuityDecider, extractor: CNMExtractor, **options: Any
    ) -> None:
        super().__init__(runner, **options)
        self.continuity = continuity
        self.extractor = extractor

    def prompt(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> str:
        """The prompt for ``chunks`` (``previous`` is the chunk before the window, None at a document start)."""
        excerpts = [window_excerpt(c.text, self.budget, self.count) for c in chunks]
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
        return decide(self._decision(chunks, previous, doc), self.runner, self.on_llm_error)

    async def ajudge(self, chunks: list[Chunk], previous: Chunk | None, doc: DocContext) -> WindowResult:
        """Async :meth:`judge`."""
        return await adecide(self._decision(chunks, previous, doc), self.runner, self.on_llm_error)
