"""CHOPConfig: every option of :class:`~chop_integrations.CHOPChunker`, validated once."""

from __future__ import annotations

from typing import Any

from pydantic import Field, InstanceOf, field_validator, model_validator

from .._checks import positive_int
from .._errors import ConfigurationError
from .._llm.options import EngineConfig
from .base_chunks import splitter_of
from .decide import DecisionMode, check_decisions, check_source_key
from .excerpts import PromptBudget
from .prefix import ADAPTIVE, PrefixPolicy

__all__ = ["CHOPConfig"]


class CHOPConfig(EngineConfig):
    """The options of :class:`~chop_integrations.CHOPChunker` (and the LLM options of :class:`LLMConfig`).

    Build it with keyword arguments (``CHOPConfig(decisions="pair")``) and pass it as
    ``CHOPChunker(llm, config)``, or pass the same keywords to the chunker. Frozen; every
    value is checked here, once.

    Raises:
        ConfigurationError: On an invalid value, an unknown field name, or ``max_tokens``
            together with your own ``chunker``.
    """

    chunker: Any = Field(
        None,
        description="The base chunker: None (the built-in LumberChunker, see llm_boundaries), a LumberChunker, "
        "a callable str -> list[str], or an object with split_text (a LangChain text splitter).",
    )
    prefix: str | InstanceOf[PrefixPolicy] = Field(
        ADAPTIVE,
        description='What goes in front of each chunk\'s text for embedding: "adaptive" (the fields that tell '
        'chunks apart in the call\'s documents, or in corpus=), "fixed" (the CHOP template '
        '"model: [category | nouns | model]"), or a str.format template using at least one of {category}, '
        "{nouns}, {model} (a str with none is refused as a misspelt keyword).",
    )
    new_document_resets: bool = Field(
        True,
        description="A new document always starts a fresh signature; False judges a document's first chunk "
        "against the last chunk of the one before.",
    )
    source_key: str = Field("source", description="Metadata key naming a chunk's document.")
    max_tokens: int | None = Field(
        None,
        description="Maximum tokens per chunk of the built-in LumberChunker; None: LumberChunker's default. "
        "Only with chunker=None.",
    )
    decisions: DecisionMode = Field(
        "window",
        description='How the LLM is asked: "window" (one call judges a window of consecutive chunks; the '
        'cheapest), "pair" (one call per adjacent pair: continuity and, on FALSE, the signature) or '
        '"separate" (the paper\'s two modules: a continuity call per pair, a signature call per FALSE).',
    )
    llm_boundaries: bool = Field(
        False,
        description="With chunker=None and an llm: True lets the LLM choose the chunk boundaries too (about "
        "2.2x the document's tokens in prompts instead of 1.1x); False lets the offline decider place them.",
    )
    budget: InstanceOf[PromptBudget] | None = Field(
        None, description="How many tokens of each chunk the prompts show (a PromptBudget); None: its defaults."
    )
    offline_continuity: Any = Field(
        None, description="Continuity decider without an LLM and on fallbacks; None: OfflineContinuity()."
    )
    offline_extractor: Any = Field(
        None, description="Signature extractor without an LLM and on fallbacks; None: OfflineCNMExtractor()."
    )
    embedding: Any = Field(
        None,
        description="The embedding model's input limit (a number of tokens or an embedder): the built-in "
        "LumberChunker keeps room for the prefix under it, and a warning is logged when a prefixed chunk is "
        "still over it. None: no limit.",
    )

    @field_validator("prefix", mode="before")
    @classmethod
    def _check_prefix(cls, value: Any) -> Any:
        if not isinstance(value, PrefixPolicy):
            PrefixPolicy(value)  # a bad template fails here
        return value

    @field_validator("source_key", mode="before")
    @classmethod
    def _check_source_key(cls, value: Any) -> Any:
        return check_source_key(value)

    @field_validator("decisions", mode="before")
    @classmethod
    def _check_decisions(cls, value: Any) -> Any:
        return check_decisions(value)

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _check_max_tokens(cls, value: Any) -> Any:
        return None if value is None else positive_int("max_tokens", value)

    @field_validator("chunker", mode="before")
    @classmethod
    def _check_chunker(cls, value: Any) -> Any:
        if value is not None:
            splitter_of(value)
        return value

    @model_validator(mode="after")
    def _check_max_tokens_fits(self) -> CHOPConfig:
        if self.chunker is not None and self.max_tokens is not None:
            raise ConfigurationError("max_tokens applies only to the built-in LumberChunker; set it on your chunker")
        return self
