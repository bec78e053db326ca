"""LumberConfig: every option of :class:`~chop_integrations.LumberChunker`, validated once; and what it implies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator

from .._checks import check_choice, positive_int
from .._deciders import as_async
from .._defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_MAX_TOKENS, MIN_SHARE, TARGET_SHARE, WINDOW_FACTOR
from .._errors import ConfigurationError
from .._llm.options import EngineConfig
from .._text.embedding_limit import EmbeddingLimit, combined_counter, resolve_embedding_limit
from .._text.tokens import TokenCounter, resolve_counter
from .prompts import Mode, PaperRestart

__all__ = ["LumberConfig", "LumberSettings"]

#: The fields that must be whole numbers, with their least allowed value.
_MINIMUM = {
    "max_tokens": 1,
    "theta": 1,
    "window_tokens": 1,
    "context_tokens": 0,
    "target_tokens": 0,
    "min_tokens": 0,
    "embedding_reserve": 0,
}


class LumberConfig(EngineConfig):
    """The options of :class:`~chop_integrations.LumberChunker` (and the LLM options of :class:`LLMConfig`).

    Build it with keyword arguments (``LumberConfig(max_tokens=200)``) and pass it as
    ``LumberChunker(llm, config)``, or pass the same keywords to the chunker. Frozen; every
    value is checked here, once.

    Raises:
        ConfigurationError: On an invalid value or an unknown field name.
    """

    mode: Mode = Field(
        "default", description='"default" (one call per window, all shifts) or "paper" (the original procedure).'
    )
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, description="Hard maximum of tokens per chunk (both modes).")
    theta: int = Field(550, description="Paper mode: the group-size threshold in tokens (550 in the paper).")
    paper_restart: PaperRestart = Field(
        "answer", description='Paper mode: the next group starts at "answer" (the paper) or "answer+1" (its code).'
    )
    window_tokens: int | None = Field(
        None, description="Default mode: tokens of new text per window; None: four times max_tokens."
    )
    context_tokens: int = Field(
        DEFAULT_CONTEXT_TOKENS, description="Default mode: tokens of the text before a window re-sent as context."
    )
    fallback: Any = Field(
        None,
        description="The offline topic-shift decider, used without an LLM and when a call fails; None: "
        "OfflineTopicShift().",
    )
    target_tokens: int | None = Field(
        None,
        description="Default mode: small sections (titles, short paragraphs, list items) join their neighbours "
        "toward this size unless a real topic shift stands between them; None: a fifth of max_tokens; 0: no "
        "joining. Paper mode ignores it.",
    )
    min_tokens: int | None = Field(
        None,
        description="Default mode: a section under this joins a neighbour across any boundary (within "
        "max_tokens); None: a quarter of target_tokens.",
    )
    embedding: Any = Field(
        None,
        description="Cap chunks at the embedding model's input limit: a number of tokens, or an embedder to "
        "read it from (sentence-transformers, LangChain or LlamaIndex Hugging Face embeddings); chunks then "
        "count the larger of both token counts. None: no cap.",
    )
    embedding_reserve: int = Field(
        0, description="Tokens of the embedder's limit kept free for text embedded with the chunk (a prefix)."
    )

    @field_validator(*_MINIMUM, mode="before")
    @classmethod
    def _check_int(cls, value: Any, info: Any) -> Any:
        if value is None and info.field_name in ("window_tokens", "target_tokens", "min_tokens"):
            return None
        return positive_int(info.field_name, value, minimum=_MINIMUM[info.field_name])

    @field_validator("mode", mode="before")
    @classmethod
    def _check_mode(cls, value: Any) -> Any:
        return check_choice("mode", value, Mode)

    @field_validator("paper_restart", mode="before")
    @classmethod
    def _check_restart(cls, value: Any) -> Any:
        return check_choice("paper_restart", value, PaperRestart)


@dataclass(frozen=True)
class LumberSettings:
    """What a :class:`LumberConfig` implies, computed once when the engine is built; the plans read it.

    Attributes:
        max_tokens: ``max_tokens``, capped by the embedder's limit less ``embedding_reserve``.
        window_tokens: Default mode's window (``WINDOW_FACTOR`` times ``max_tokens`` unless given).
        context_tokens: Tokens of context before a window.
        target_tokens: Sections join toward this (a fifth of ``max_tokens`` unless given; at most it).
        min_tokens: A section under this joins a neighbour (a quarter of ``target_tokens`` unless given).
        embedding: The embedder's resolved limit, or None.
        embed_cap: The tokens a chunk may have under it (``None`` without one).
        count: The token counter (the larger of both counts with an embedder).
        fallback: The offline topic-shift decider (the config's, or ``OfflineTopicShift()``).
    """

    max_tokens: int
    window_tokens: int
    context_tokens: int
    target_tokens: int
    min_tokens: int
    embedding: EmbeddingLimit | None
    embed_cap: int | None
    count: TokenCounter
    fallback: Any

    @classmethod
    def of(cls, config: LumberConfig) -> LumberSettings:
        """The settings ``config`` implies.

        Raises:
            ConfigurationError: When ``embedding_reserve`` leaves no room under the embedder's limit, or the
                fallback has neither ``achoose`` nor ``choose``.
        """
        max_tokens, embedding, embed_cap = config.max_tokens, resolve_embedding_limit(config.embedding), None
        if embedding is not None:
            embed_cap = embedding.max_tokens - config.embedding_reserve
            if embed_cap < 1:
                raise ConfigurationError(
                    f"embedding_reserve ({config.embedding_reserve}) leaves no room under the embedder's limit "
                    f"({embedding.max_tokens})"
                )
            max_tokens = min(max_tokens, embed_cap)
        target = round(TARGET_SHARE * max_tokens) if config.target_tokens is None else config.target_tokens
        target = min(target, max_tokens)
        low = round(MIN_SHARE * target) if config.min_tokens is None else config.min_tokens
        fallback = config.fallback
        if fallback is None:
            from .._offline import OfflineTopicShift

            fallback = OfflineTopicShift()
        as_async(fallback, "achoose")  # a wrong object fails here, not on the first window
        return cls(
            max_tokens=max_tokens,
            window_tokens=WINDOW_FACTOR * max_tokens if config.window_tokens is None else config.window_tokens,
            context_tokens=config.context_tokens,
            target_tokens=target,
            min_tokens=min(low, max_tokens),
            embedding=embedding,
            embed_cap=embed_cap,
            count=combined_counter(resolve_counter(config.token_counter), embedding),
            fallback=fallback,
        )
