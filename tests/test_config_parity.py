"""Every config field reaches the engine through every framework adapter, by the same name and default.

The test walks ``LumberConfig.model_fields`` and ``CHOPConfig.model_fields``: a field added to a config
without a sample value here fails, and so does an adapter that drops, renames or re-defaults one. The
CLI and Ray halves of the parity live with their own tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chop_integrations import (
    CHOPConfig,
    LumberConfig,
)

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")

from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from tests.support.config_samples import SAMPLES

#: Each adapter, how to build it from options, and the engine it drives.
ADAPTERS: dict[str, tuple[type[Any], Callable[..., Any], Callable[[Any], Any]]] = {
    "LumberChunkerTextSplitter": (LumberConfig, LumberChunkerTextSplitter, lambda a: a.chunker),
    "LumberChunkerNodeParser": (LumberConfig, LumberChunkerNodeParser, lambda a: a._engine()),
    "CHOPDocumentTransformer": (CHOPConfig, CHOPDocumentTransformer, lambda a: a.chop),
    "CHOPExtractor": (CHOPConfig, CHOPExtractor, lambda a: a._engine()),
}

#: Fields an adapter honours itself rather than handing to the engine: the CHOP adapters group their
#: documents by ``source_key`` and give the engine their own group key (see the behaviour tests).
ADAPTER_OWNED = {"source_key"}

CASES = [(adapter, name) for adapter, (config, _, _) in ADAPTERS.items() for name in config.model_fields]
LLAMA_INDEX_CASES = [case for case in CASES if case[0] in ("LumberChunkerNodeParser", "CHOPExtractor")]
#: Options that change where answers come from, not what they are: kept out of the pipeline cache key.
UNKEYED = ("cache", "retry", "max_calls", "max_llm_tokens", "on_progress")


def test_every_config_field_has_a_sample() -> None:
    fields = set(LumberConfig.model_fields) | set(CHOPConfig.model_fields)
    assert fields == set(SAMPLES), "add a non-default sample value for each new config field"
    for config in (LumberConfig, CHOPConfig):
        for name, info in config.model_fields.items():
            assert SAMPLES[name]() != info.default, name


def _same(held: Any, given: Any) -> bool:
    return held is given or held == given


@pytest.mark.parametrize(("adapter", "name"), CASES)
def test_each_adapter_hands_each_field_to_its_engine(adapter: str, name: str) -> None:
    config_class, build, engine_of = ADAPTERS[adapter]
    value = SAMPLES[name]()
    built = build(**{name: value})
    assert _same(getattr(built.config, name), value)
    if name not in ADAPTER_OWNED:
        assert _same(getattr(engine_of(built).config, name), value)
    from_config = build(config=config_class(**{name: value}))  # a ready config object does the same
    assert _same(getattr(from_config.config, name), value)


@pytest.mark.parametrize("adapter", list(ADAPTERS))
def test_defaults_are_the_configs_own(adapter: str) -> None:
    config_class, build, engine_of = ADAPTERS[adapter]
    built = build()
    for name in config_class.model_fields:
        assert _same(getattr(built.config, name), getattr(config_class(), name)), name
        if name not in ADAPTER_OWNED:
            assert _same(getattr(engine_of(built).config, name), getattr(config_class(), name)), name


@pytest.mark.parametrize("component", [LumberChunkerNodeParser, CHOPExtractor])
def test_llama_index_fields_are_the_config_fields(component: Any) -> None:
    config_class = component.CONFIG
    for name, info in config_class.model_fields.items():
        field = component.model_fields[name]
        assert (field.default, field.description) == (info.default, info.description), name


@pytest.mark.parametrize(("adapter", "name"), LLAMA_INDEX_CASES)
def test_every_output_changing_field_is_in_the_pipeline_cache_key(adapter: str, name: str) -> None:
    _, build, _ = ADAPTERS[adapter]
    value = SAMPLES[name]()
    data = build(**{name: value}).to_dict()
    if name in UNKEYED:
        assert name not in data and name not in data["object_ids"]
        assert data == build().to_dict()
        return
    if isinstance(value, (str, int, float, bool)):
        assert data[name] == value  # a plain value is written as it is
    else:
        assert data[name] is None and name in data["object_ids"]  # an object by its identity
    assert data != build().to_dict()
