"""LumberConfig and CHOPConfig: one validated, frozen config per engine, built whole or from keywords."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from pydantic import ValidationError

from chop_integrations import CHOPChunker, CHOPConfig, ConfigurationError, LumberChunker, LumberConfig
from chop_integrations._defaults import DEFAULT_MAX_TOKENS, TARGET_SHARE

ENGINES = [(LumberChunker, LumberConfig), (CHOPChunker, CHOPConfig)]

#: Invalid values, per config, with a word the message must hold.
BAD: list[tuple[type, str, Any, str]] = [
    (LumberConfig, "mode", "papr", "mode must be"),
    (LumberConfig, "max_tokens", 0, "max_tokens must be"),
    (LumberConfig, "max_tokens", True, "max_tokens must be"),
    (LumberConfig, "theta", "550", "theta must be"),
    (LumberConfig, "window_tokens", -1, "window_tokens must be"),
    (LumberConfig, "context_tokens", -1, "context_tokens must be"),
    (LumberConfig, "target_tokens", 1.5, "target_tokens must be"),
    (LumberConfig, "embedding_reserve", -2, "embedding_reserve must be"),
    (LumberConfig, "paper_restart", "answer+2", "paper_restart must be"),
    (LumberConfig, "token_counter", "no.such:module", "could not be loaded"),
    (LumberConfig, "token_counter", 42, "token_counter"),
    (LumberConfig, "max_concurrency", 0, "max_concurrency must be"),
    (LumberConfig, "timeout", 0, "timeout must be"),
    (LumberConfig, "retry", 3, "retry must be"),
    (LumberConfig, "cache", 42, "cache must be"),
    (CHOPConfig, "decisions", "windows", "decisions must be"),
    (CHOPConfig, "source_key", "", "source_key must be"),
    (CHOPConfig, "prefix", 3, "prefix must be"),
    (CHOPConfig, "max_tokens", 0, "max_tokens must be"),
    (CHOPConfig, "chunker", 42, "chunker must be"),
    (CHOPConfig, "budget", {"tail_tokens": 3}, "budget"),
    (CHOPConfig, "new_document_resets", "maybe", "new_document_resets"),
]


@pytest.mark.parametrize(("config", "name", "value", "message"), BAD, ids=[f"{c.__name__}.{n}" for c, n, *_ in BAD])
def test_a_bad_value_is_a_configuration_error_naming_it(config: type, name: str, value: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        config(**{name: value})
    engine = LumberChunker if config is LumberConfig else CHOPChunker
    with pytest.raises(ConfigurationError, match=message):
        engine(**{name: value})


@pytest.mark.parametrize(("engine", "config"), ENGINES)
def test_an_unknown_option_names_the_closest_and_the_valid_ones(engine: type, config: type) -> None:
    with pytest.raises(ConfigurationError, match=r"unknown option 'max_token' .*did you mean 'max_tokens'") as err:
        engine(max_token=200)
    assert all(name in str(err.value) for name in config.model_fields)
    with pytest.raises(ConfigurationError, match="unknown option 'zzz'"):
        config(zzz=1)


@pytest.mark.parametrize(("engine", "config"), ENGINES)
def test_constructors_take_at_most_eight_parameters(engine: type, config: type) -> None:
    parameters = [p for p in inspect.signature(engine.__init__).parameters if p != "self"]
    assert len(parameters) <= 8, parameters
    assert parameters[:2] == ["llm", "config"]


@pytest.mark.parametrize(("engine", "config"), ENGINES)
def test_keywords_build_the_config_or_override_a_given_one(engine: type, config: type) -> None:
    given = config(max_tokens=300, timeout=5)
    assert engine(config=given).config is given
    changed = engine(None, given, max_tokens=200).config
    assert (changed.max_tokens, changed.timeout) == (200, 5)
    assert given.max_tokens == 300  # the given config is frozen, never changed
    assert engine(max_tokens=300, timeout=5).config == given
    with pytest.raises(ConfigurationError, match=f"config must be a {config.__name__}"):
        engine(config={"max_tokens": 300})


def test_configs_are_frozen() -> None:
    with pytest.raises(ValidationError, match="frozen"):
        LumberConfig().max_tokens = 3  # type: ignore[misc]


def test_every_field_has_a_description() -> None:
    for config in (LumberConfig, CHOPConfig):
        for name, info in config.model_fields.items():
            assert info.description, f"{config.__name__}.{name}"


def test_lumber_sizes_follow_max_tokens() -> None:
    """``target_tokens=None`` is a fifth of ``max_tokens``, ``min_tokens=None`` a quarter of the target."""
    settings = LumberChunker(max_tokens=1000).settings
    assert settings.target_tokens == round(TARGET_SHARE * 1000) == 200
    assert settings.min_tokens == 50 and settings.window_tokens == 4000
    assert LumberChunker().settings.max_tokens == DEFAULT_MAX_TOKENS


def test_chop_max_tokens_needs_the_built_in_chunker() -> None:
    with pytest.raises(ConfigurationError, match="max_tokens applies only to the built-in"):
        CHOPConfig(chunker=str.splitlines, max_tokens=100)


def test_chop_hands_its_llm_options_and_counter_to_the_built_in_chunker() -> None:
    chop = CHOPChunker(timeout=4, max_concurrency=2, token_counter="chars", max_tokens=120)
    inner = chop.chunker.config
    assert (inner.timeout, inner.max_concurrency, inner.token_counter, inner.max_tokens) == (4, 2, "chars", 120)
