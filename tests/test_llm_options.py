"""LLMConfig: the LLM options both engines' configs share, with parity across both engines and all four adapters.

Every field of :class:`LLMConfig` must be accepted under its own name by each engine and each
adapter, and must reach the engine's ``config`` (the one the runner is built from). The field
list is read from the model, so a field added later without adapter support fails here.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from chop_integrations import (
    CHOPChunker,
    CHOPConfig,
    ConfigurationError,
    InMemoryCache,
    LLMAnswerError,
    LLMConfig,
    LumberChunker,
    LumberConfig,
    ScriptedLLM,
)
from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from tests.support.config_samples import SAMPLES

FIELDS = list(LLMConfig.model_fields)
DEFAULTS = LLMConfig()

#: A value other than the default for every field (a field without a sample fails here, at import).
CHANGED: dict[str, Any] = {name: SAMPLES[name]() for name in FIELDS}

#: Each engine and adapter: build it with some options and return the engine that runs the calls.
BUILDERS: dict[str, Callable[..., Any]] = {
    "LumberChunker": lambda **kw: LumberChunker(**kw),
    "CHOPChunker": lambda **kw: CHOPChunker(**kw),
    "LumberChunkerTextSplitter": lambda **kw: LumberChunkerTextSplitter(**kw).chunker,
    "CHOPDocumentTransformer": lambda **kw: CHOPDocumentTransformer(**kw).chop,
    "LumberChunkerNodeParser": lambda **kw: LumberChunkerNodeParser(**kw)._engine(),
    "LumberChunkerNodeParser.from_defaults": lambda **kw: LumberChunkerNodeParser.from_defaults(**kw)._engine(),
    "CHOPExtractor": lambda **kw: CHOPExtractor(**kw)._engine(),
}


def test_the_changed_values_differ_from_the_defaults() -> None:
    for name in FIELDS:
        assert CHANGED[name] != getattr(DEFAULTS, name), name


@pytest.mark.parametrize("name", FIELDS)
@pytest.mark.parametrize("component", list(BUILDERS))
def test_every_component_accepts_every_field_and_it_reaches_the_engine(component: str, name: str) -> None:
    baseline = BUILDERS[component]().config
    engine = BUILDERS[component](**{name: CHANGED[name]})
    config = engine.config
    assert isinstance(config, LLMConfig)
    assert getattr(baseline, name) != CHANGED[name]
    assert getattr(config, name) == CHANGED[name]
    assert getattr(engine, name) == CHANGED[name]  # the engine's attribute reads the same config
    assert {**baseline.llm_fields(), name: CHANGED[name]} == config.llm_fields()  # nothing else changed


@pytest.mark.parametrize("component", ["CHOPChunker", "CHOPDocumentTransformer", "CHOPExtractor"])
def test_chop_hands_its_options_to_its_built_in_lumber_chunker(component: str) -> None:
    chop = BUILDERS[component](**CHANGED)
    assert chop.chunker.config.llm_fields() == chop.config.llm_fields()


@pytest.mark.parametrize(
    ("name", "bad"),
    [("on_llm_error", "ignore"), ("max_concurrency", 0), ("timeout", -1), ("retry", 3), ("cache", 42)],
)
def test_every_field_is_validated_at_construction(name: str, bad: Any) -> None:
    with pytest.raises(ConfigurationError, match=name.split("_")[0]):
        LLMConfig(**{name: bad})
    with pytest.raises(ConfigurationError):
        LumberChunker(**{name: bad})


def test_the_config_is_frozen_and_resolves_a_cache_path_once(tmp_path: Any) -> None:
    config = LLMConfig(cache=tmp_path / "answers.sqlite")
    assert callable(config.cache.get) and callable(config.cache.set)
    with pytest.raises(ValidationError, match="frozen"):
        config.timeout = 1  # type: ignore[misc]


def test_the_engine_runs_with_the_options_it_holds() -> None:
    """The options are used, not only stored: "raise" raises, and the shared cache answers a second engine."""
    text = "Alpha paragraph one.\n\nBeta paragraph two.\n\nGamma paragraph three."
    with pytest.raises(LLMAnswerError):
        LumberChunker(ScriptedLLM(default="no idea"), LumberConfig(on_llm_error="raise")).chunk(text)
    config = LumberConfig(cache=InMemoryCache(), max_concurrency=1)
    first = LumberChunker(ScriptedLLM(default='{"starts": []}'), config)
    first.chunk(text)
    second_llm = ScriptedLLM(default='{"starts": []}')
    LumberChunker(second_llm, config).chunk(text)
    assert first.last_usage.calls >= 1 and second_llm.prompts == []


@pytest.mark.parametrize(
    "build",
    [
        lambda: LumberChunkerTextSplitter(timeuot=5),
        lambda: CHOPDocumentTransformer(cach=None),
        lambda: CHOPChunker(retries=2),
    ],
    ids=["splitter", "transformer", "chop"],
)
def test_a_misspelt_option_fails_at_construction(build: Callable[[], Any]) -> None:
    with pytest.raises((TypeError, ConfigurationError), match=r"unexpected keyword|unknown option"):
        build()


MODE_OPTIONS = [
    (LumberChunker, "mode"),
    (LumberChunker, "paper_restart"),
    (LumberChunker, "on_llm_error"),
    (CHOPChunker, "decisions"),
    (CHOPChunker, "on_llm_error"),
    (LumberChunkerTextSplitter, "mode"),
    (LumberChunkerTextSplitter, "on_llm_error"),
    (CHOPDocumentTransformer, "on_llm_error"),
    (LLMConfig, "on_llm_error"),
]


@pytest.mark.parametrize(("cls", "name"), MODE_OPTIONS, ids=[f"{c.__name__}.{n}" for c, n in MODE_OPTIONS])
def test_mode_options_are_literals_checked_at_construction(cls: type, name: str) -> None:
    config = {
        LumberChunker: LumberConfig,
        CHOPChunker: CHOPConfig,
        LumberChunkerTextSplitter: LumberConfig,  # the adapters take their engine's config fields as **options
        CHOPDocumentTransformer: CHOPConfig,
    }.get(cls)
    hints = typing.get_type_hints(config or (cls if issubclass(cls, LLMConfig) else cls.__init__))
    assert typing.get_origin(hints[name]) is typing.Literal, hints[name]
    with pytest.raises(ConfigurationError, match=f"{name} must be"):
        cls(**{name: "nonsense"})
