"""Every surface refuses a non-finite timeout and an out-of-range whole number with a ConfigurationError.

NaN compares false with every bound, so ``timeout=nan`` used to pass the ``<= 0`` check and every LLM call
then ended "timed out after nan s"; ``max_tokens=10**400`` ended in an ``OverflowError`` deep in the engine.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from chop_integrations import CHOPChunker, ConfigurationError, LumberChunker, RetryPolicy

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")

from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

SURFACES: list[Any] = [
    CHOPChunker,
    LumberChunker,
    LumberChunkerTextSplitter,
    CHOPDocumentTransformer,
    LumberChunkerNodeParser,
    CHOPExtractor,
]


@pytest.mark.parametrize("surface", SURFACES, ids=lambda s: s.__name__)
@pytest.mark.parametrize(
    "timeout", [math.nan, math.inf, -math.inf, 1e300, 10**400], ids=["nan", "inf", "-inf", "1e300", "1e400"]
)
def test_a_timeout_that_is_no_finite_number_of_seconds_is_refused(surface: Any, timeout: float) -> None:
    with pytest.raises(ConfigurationError, match=r"timeout must be a number of seconds > 0 and <= 1e\+09"):
        surface(timeout=timeout)


@pytest.mark.parametrize("surface", SURFACES, ids=lambda s: s.__name__)
def test_a_finite_timeout_is_kept(surface: Any) -> None:
    assert surface(timeout=2.5).config.timeout == 2.5


@pytest.mark.parametrize("surface", SURFACES, ids=lambda s: s.__name__)
@pytest.mark.parametrize("value", [10**400, 10**12, 10**9 + 1], ids=["1e400", "1e12", "1e9+1"])
def test_a_whole_number_past_the_bound_is_refused_with_the_bound(surface: Any, value: int) -> None:
    with pytest.raises(ConfigurationError, match=r"max_tokens must be an integer <= 1000000000"):
        surface(max_tokens=value)


@pytest.mark.parametrize("name", ["theta", "window_tokens", "context_tokens", "max_concurrency", "embedding_reserve"])
def test_every_whole_number_option_has_the_bound(name: str) -> None:
    with pytest.raises(ConfigurationError, match=f"{name} must be an integer <= 1000000000"):
        LumberChunker(**{name: 10**400})


@pytest.mark.parametrize("delays", [{"base_delay": math.nan}, {"max_delay": math.inf}, {"max_delay": math.nan}])
def test_a_retry_delay_that_is_no_finite_number_is_refused(delays: dict[str, float]) -> None:
    with pytest.raises(ConfigurationError, match="finite numbers of seconds"):
        RetryPolicy(**delays)


@pytest.mark.parametrize("component", [LumberChunkerNodeParser, CHOPExtractor], ids=lambda c: c.__name__)
@pytest.mark.parametrize("value", [math.nan, 2.5, "many"])
def test_a_llama_index_component_refuses_a_value_of_the_wrong_type_as_the_engines_do(
    component: Any, value: Any
) -> None:
    with pytest.raises(ConfigurationError, match="max_tokens must be an integer >= 1"):
        component(max_tokens=value)
    with pytest.raises(ConfigurationError, match="max_tokens must be an integer >= 1"):
        LumberChunker(max_tokens=value)


def test_a_llama_index_component_refuses_a_bad_field_of_its_own_with_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="show_progress"):
        CHOPExtractor(show_progress="garbage")


@pytest.mark.parametrize(
    "template",
    ["{model:>50000000}", "{model:9>500}", "{model:.300}", "{nouns:<201}", "{model:" + "9" * 5000 + "}"],
)
@pytest.mark.parametrize("surface", [CHOPChunker, CHOPDocumentTransformer, CHOPExtractor], ids=lambda s: s.__name__)
def test_a_prefix_format_width_past_the_bound_is_refused(surface: Any, template: str) -> None:
    with pytest.raises(ConfigurationError, match="a format width or precision must be <= 200"):
        surface(prefix=template)


def test_a_prefix_format_spec_taking_its_width_from_a_field_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="a format spec may not hold a field"):
        CHOPChunker(prefix="{model:>{nouns}}")


@pytest.mark.parametrize("template", ["{model:>20} [{nouns:.200}]", "{model:0>200}", "{model!r:^12}"])
def test_a_prefix_format_width_within_the_bound_is_kept(template: str) -> None:
    chunks = CHOPChunker(prefix=template).chunk("# Pump X1\n\nThe pump moves water from the tank.\n")
    assert chunks and all(len(c.prefix) < 1000 for c in chunks)
