"""CHOPConfig: every option of :class:`~chop_integrations.CHOPChunker`, validated once; and what it implies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import Field, InstanceOf, ValidationInfo, field_validator, model_validator

from .._checks import positive_int
from .._deciders import as_async
from .._defaults import BUILTIN_TARGET_TOKENS, DEFAULT_MAX_TOKENS, PREFIX_RESERVE
from .._errors import ConfigurationError
from .._llm.options import EngineConfig
from .._lumber.config import LumberConfig
from .._text.embedding_limit import EmbeddingLimit, resolve_embedding_limit
from .._text.tokens import TokenCounter, resolve_counter
from .base_chunks import Splitter, splitter_of
from .decide import DecisionMode, check_decisions, check_source_key
from .excerpts import PromptBudget
from .prefix import ADAPTIVE, PrefixPolicy

__all__ = ["CHOPConfig", "CHOPSettings"]


def _check_prefix(value: Any) -> Any:
    if not isinstance(value, PrefixPolicy):
        PrefixPolicy(value)  # a bad template fails here
    return value


def _check_chunker(value: Any) -> Any:
    if value is not None:
        splitter_of(value)
    return value


#: The one check of each CHOP field that needs one, by name: the value as the config holds it, or a
#: ConfigurationError.
_CHOP_CHECKS: dict[str, Callable[[Any], Any]] = {
    "chunker": _check_chunker,
    "prefix": _check_prefix,
    "source_key": check_source_key,
    "decisions": check_decisions,
    "max_tokens": lambda value: None if value is None else positive_int("max_tokens", value),
}


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

    @field_validator(*_CHOP_CHECKS, mode="before")
    @classmethod
    def _check_chop_field(cls, value: Any, info: ValidationInfo) -> Any:
        return _CHOP_CHECKS[str(info.field_name)](value)

    @model_validator(mode="after")
    def _check_max_tokens_fits(self) -> CHOPConfig:
        if self.chunker is not None and self.max_tokens is not None:
            raise ConfigurationError("max_tokens applies only to the built-in LumberChunker; set it on your chunker")
        return self

    def base_config(self, embedding: EmbeddingLimit | None, *, join: bool) -> LumberConfig:
        """The built-in LumberChunker's config: this one's LLM options and token counter, its own sizes.

        Sections as they are, or with ``join`` LumberChunker's own sizes (see
        :data:`~chop_integrations._defaults.BUILTIN_TARGET_TOKENS`); with ``embedding``,
        :data:`~chop_integrations._defaults.PREFIX_RESERVE` tokens of the limit kept free for the prefix.
        """
        return LumberConfig(
            **self.llm_fields(),
            max_tokens=DEFAULT_MAX_TOKENS if self.max_tokens is None else self.max_tokens,
            token_counter=self.token_counter,
            embedding=embedding,
            embedding_reserve=PREFIX_RESERVE if embedding is not None else 0,
            target_tokens=None if join else BUILTIN_TARGET_TOKENS,
            min_tokens=None if join else BUILTIN_TARGET_TOKENS,
        )


@dataclass(frozen=True)
class CHOPSettings:
    """What a :class:`CHOPConfig` implies, computed once when the engine is built; the runs read it.

    Attributes:
        policy: The prefix policy (``prefix`` as a :class:`~chop_integrations._chop.prefix.PrefixPolicy`).
        count: The token counter.
        budget: How many tokens of each chunk the prompts show.
        embedding: The embedder's resolved limit, or None.
        continuity: The offline continuity decider (the config's, or ``OfflineContinuity()``).
        extractor: The offline signature extractor (the config's, or ``OfflineCNMExtractor()``).
        splitter: Your base chunker as a plain splitter, or None (the built-in one or a LumberChunker).
    """

    policy: PrefixPolicy
    count: TokenCounter
    budget: PromptBudget
    embedding: EmbeddingLimit | None
    continuity: Any
    extractor: Any
    splitter: Splitter | None

    @classmethod
    def of(cls, config: CHOPConfig) -> CHOPSettings:
        """The settings ``config`` implies.

        Raises:
            ConfigurationError: When an offline decider has neither its async nor its sync method.
        """
        from .._offline import OfflineCNMExtractor, OfflineContinuity

        continuity = OfflineContinuity() if config.offline_continuity is None else config.offline_continuity
        extractor = OfflineCNMExtractor() if config.offline_extractor is None else config.offline_extractor
        as_async(continuity, "adecide"), as_async(extractor, "aextract")  # a wrong object fails here
        prefix = config.prefix
        return cls(
            policy=prefix if isinstance(prefix, PrefixPolicy) else PrefixPolicy(prefix),
            count=resolve_counter(config.token_counter),
            budget=config.budget or PromptBudget(),
            embedding=resolve_embedding_limit(config.embedding),
            continuity=continuity,
            extractor=extractor,
            splitter=None if config.chunker is None else splitter_of(config.chunker),
        )
