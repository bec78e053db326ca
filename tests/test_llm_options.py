"""LLMOptions: one validated group of LLM options, with parity across both engines and all four adapters.

Every field of :class:`LLMOptions` must be accepted under its own name by each engine and each
adapter, and must reach the engine's ``llm_options`` (the one the runner is built from). The
field list is read from the dataclass, so a field added later without adapter support fails here.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from typing import Any

import pytest

from chop_integrations import (
    CHOPChunker,
    ConfigurationError,
    InMemoryCache,
    LLMAnswerError,
    LLMOptions,
    LumberChunker,
    RetryPolicy,
    ScriptedLLM,
)
from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

FIELDS = [f.name for f in dataclasses.fields(LLMOptions)]
DEFAULTS = LLMOptions()

#: A value other than the default for every field (a test below checks that this covers every field).
CHANGED: dict[str, Any] = {
    "on_llm_error": "raise",
    "max_concurrency": 3,
    "cache": InMemoryCache(),
    "retry": RetryPolicy(max_attempts=2),
    "timeout": 7.5,
}

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


def test_the_changed_values_cover_every_field_and_differ_from_the_defaults() -> None:
    assert set(CHANGED) == set(FIELDS)
    for name in FIELDS:
        assert CHANGED[name] != getattr(DEFAULTS, name), name


@pytest.mark.parametrize("name", FIELDS)
@pytest.mark.parametrize("component", list(BUILDERS))
def test_every_component_accepts_every_field_and_it_reaches_the_engine(component: str, name: str) -> None:
    baseline = BUILDERS[component]().llm_options  # CHOPExtractor's concurrency defaults to its num_workers (4)
    engine = BUILDERS[component](**{name: CHANGED[name]})
    options = engine.llm_options
    assert isinstance(options, LLMOptions)
    assert getattr(baseline, name) != CHANGED[name]
    assert getattr(options, name) == CHANGED[name]
    assert getattr(engine, name) == CHANGED[name]  # the engine's attribute reads the same options
    assert dataclasses.replace(baseline, **{name: CHANGED[name]}) == options  # nothing else changed


@pytest.mark.parametrize("component", ["CHOPChunker", "CHOPDocumentTransformer", "CHOPExtractor"])
def test_chop_hands_its_options_to_its_built_in_lumber_chunker(component: str) -> None:
    chop = BUILDERS[component](**CHANGED)
    assert chop.chunker.llm_options is chop.llm_options


@pytest.mark.parametrize("engine", [LumberChunker, CHOPChunker])
def test_llm_options_can_be_given_whole(engine: type) -> None:
    options = LLMOptions(**CHANGED)
    assert engine(llm_options=options).llm_options is options


@pytest.mark.parametrize("engine", [LumberChunker, CHOPChunker])
def test_llm_options_with_a_changed_keyword_is_a_named_clash(engine: type) -> None:
    with pytest.raises(ConfigurationError, match="timeout"):
        engine(llm_options=LLMOptions(), timeout=5)
    with pytest.raises(ConfigurationError, match="llm_options must be an LLMOptions"):
        engine(llm_options={"timeout": 5})


@pytest.mark.parametrize(
    ("name", "bad"),
    [("on_llm_error", "ignore"), ("max_concurrency", 0), ("timeout", -1), ("retry", 3), ("cache", 42)],
)
def test_every_field_is_validated_at_construction(name: str, bad: Any) -> None:
    with pytest.raises(ConfigurationError, match=name.split("_")[0]):
        LLMOptions(**{name: bad})
    with pytest.raises(ConfigurationError):
        LumberChunker(**{name: bad})


def test_llm_options_are_frozen_and_resolve_a_cache_path_once(tmp_path: Any) -> None:
    options = LLMOptions(cache=tmp_path / "answers.sqlite")
    assert callable(options.cache.get) and callable(options.cache.set)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.timeout = 1  # type: ignore[misc]


def test_the_engine_runs_with_the_options_it_holds() -> None:
    """The options are used, not only stored: "raise" raises, and the shared cache answers a second engine."""
    text = "Alpha paragraph one.\n\nBeta paragraph two.\n\nGamma paragraph three."
    with pytest.raises(LLMAnswerError):
        LumberChunker(ScriptedLLM(default="no idea"), llm_options=LLMOptions(on_llm_error="raise")).chunk(text)
    options = LLMOptions(cache=InMemoryCache(), max_concurrency=1)
    first = LumberChunker(ScriptedLLM(default='{"starts": []}'), llm_options=options)
    first.chunk(text)
    second_llm = ScriptedLLM(default='{"starts": []}')
    LumberChunker(second_llm, llm_options=options).chunk(text)
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
    with pytest.raises(TypeError, match="unexpected keyword"):
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
    (LLMOptions, "on_llm_error"),
]


@pytest.mark.parametrize(("cls", "name"), MODE_OPTIONS, ids=[f"{c.__name__}.{n}" for c, n in MODE_OPTIONS])
def test_mode_options_are_literals_checked_at_construction(cls: type, name: str) -> None:
    hints = typing.get_type_hints(cls if dataclasses.is_dataclass(cls) else cls.__init__)
    assert typing.get_origin(hints[name]) is typing.Literal, hints[name]
    with pytest.raises(ConfigurationError, match=f"{name} must be"):
        cls(**{name: "nonsense"})
