"""LumberConfig: every option of :class:`~chop_integrations.LumberChunker`, validated once."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from .._checks import check_choice, positive_int
from .._defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_MAX_TOKENS
from .._llm.options import EngineConfig
from .prompts import Mode, PaperRestart

__all__ = ["LumberConfig"]

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
