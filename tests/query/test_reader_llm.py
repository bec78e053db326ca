"""The reader's optional LLM path: asked only when the offline reading finds nothing; kept only when known."""

from __future__ import annotations

import logging
import re

import pytest

from chop_integrations import CHOPConfig, ConfigurationError, InMemoryCache, LLMConfig, LLMError, RetryPolicy
from chop_integrations._query import QueryReader, QueryReading
from chop_integrations.testing import ScriptedLLM

MODELS = ["Galaxy S10", "Galaxy Note 10+", "Nimbus AC-12"]


def test_the_llm_is_not_asked_when_the_offline_reading_finds_the_model() -> None:
    llm = ScriptedLLM([])
    assert QueryReader(MODELS, llm=llm).read("my S10 battery").model == "Galaxy S10"
    assert llm.prompts == []


@pytest.mark.parametrize(
    "answer", ["Galaxy Note 10+", " galaxy note 10 plus. ", "'Galaxy-Note-10+'", "- Galaxy Note 10+"]
)
def test_an_answer_that_is_one_known_value_is_kept(answer: str) -> None:
    llm = ScriptedLLM([answer])
    reading = QueryReader(MODELS, llm=llm).read("the big pen phone: how do I pair the pen?")
    assert reading.model == "Galaxy Note 10+"
    (prompt,) = llm.prompts
    assert "the big pen phone" in prompt and all(f"- {m}" in prompt for m in MODELS)


@pytest.mark.parametrize("answer", ["NONE", "Galaxy Note 20", "Note 10+", "Galaxy S10 or Galaxy Note 10+", ""])
def test_an_answer_that_is_not_exactly_one_known_value_gives_nothing(answer: str) -> None:
    assert QueryReader(MODELS, llm=ScriptedLLM([answer])).read("the big pen phone") == QueryReading()


def test_a_failed_call_gives_nothing_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    reader = QueryReader(MODELS, llm=ScriptedLLM([ValueError("boom")], default=ValueError("boom")))
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert reader.read("the big pen phone") == QueryReading()
    assert "LLM call failed" in caplog.text


async def test_aread_asks_the_llm_the_same_way() -> None:
    llm = ScriptedLLM(["Nimbus AC-12"])
    reader = QueryReader(MODELS, llm=llm)
    assert (await reader.aread("the cooling box in the hall")).model == "Nimbus AC-12"
    assert (await reader.aread("Nimbus AC-12 filter")).model == "Nimbus AC-12"
    assert len(llm.prompts) == 1 and reader.usage.calls == 1


def test_a_plain_callable_is_accepted_as_the_llm() -> None:
    reader = QueryReader(MODELS, llm=lambda prompt: "Galaxy S10")
    assert reader.read("the small phone").model == "Galaxy S10"


def test_no_llm_call_without_known_models() -> None:
    llm = ScriptedLLM([])
    assert QueryReader([], llm=llm).read("anything") == QueryReading()
    assert llm.prompts == []


def test_the_default_prompt_speaks_of_names_not_products() -> None:
    llm = ScriptedLLM(["NONE"])
    QueryReader(["Civil Code 2019 edition", "Civil Code 2024 edition"], llm=llm).read("the older code")
    (prompt,) = llm.prompts
    assert "product" not in prompt.lower()
    assert "- Civil Code 2019 edition\n- Civil Code 2024 edition" in prompt and "the older code" in prompt


def test_a_prompt_template_of_ones_own_is_filled_and_asked() -> None:
    llm = ScriptedLLM(["Civil Code 2024 edition"])
    template = "Editions:\n{names}\nWhich edition does this ask about? {question}"
    reader = QueryReader(["Civil Code 2019 edition", "Civil Code 2024 edition"], llm=llm, prompt=template)
    assert reader.read("the newest code").model == "Civil Code 2024 edition"
    assert llm.prompts == [
        "Editions:\n- Civil Code 2019 edition\n- Civil Code 2024 edition\n"
        "Which edition does this ask about? the newest code"
    ]


@pytest.mark.parametrize(
    ("template", "named"),
    [
        ("{question}", "['question']"),
        ("{names} {question} {model}", "['model', 'names', 'question']"),
        ("{names}", "['names']"),
        ("no placeholder", "[]"),
    ],
)
def test_a_template_without_both_placeholders_or_with_another_is_refused(template: str, named: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(named)):
        QueryReader(MODELS, prompt=template)


@pytest.mark.parametrize("template", ["{names", 42, None])
def test_a_template_that_is_no_template_is_refused(template: object) -> None:
    with pytest.raises(ConfigurationError, match="prompt"):
        QueryReader(MODELS, prompt=template)  # type: ignore[arg-type]


def test_the_cache_of_the_config_answers_a_question_asked_again() -> None:
    cache = InMemoryCache()
    llm = ScriptedLLM(["Nimbus AC-12"])
    assert QueryReader(MODELS, llm=llm, cache=cache).read("the cooling box").model == "Nimbus AC-12"
    again = QueryReader(MODELS, llm=llm, config=LLMConfig(cache=cache))  # a new reader, the same cache
    assert again.read("the cooling box").model == "Nimbus AC-12"
    assert len(llm.prompts) == 1 and again.usage.calls == 0


def test_the_retry_policy_of_the_config_is_used() -> None:
    llm = ScriptedLLM([TimeoutError("busy"), "Nimbus AC-12"])
    reader = QueryReader(MODELS, llm=llm, retry=RetryPolicy(max_attempts=2, base_delay=0, jitter=0))
    assert reader.read("the cooling box").model == "Nimbus AC-12"
    assert len(llm.prompts) == 2


def test_on_llm_error_raise_lets_the_failure_through() -> None:
    reader = QueryReader(
        MODELS, llm=ScriptedLLM([], default=ValueError("boom")), on_llm_error="raise", retry=RetryPolicy(max_attempts=1)
    )
    with pytest.raises(LLMError):
        reader.read("the cooling box")


def test_an_engine_config_lends_its_llm_fields_and_a_keyword_overrides_them() -> None:
    reader = QueryReader(MODELS, config=CHOPConfig(timeout=7.0, max_concurrency=3), timeout=2.0)
    assert type(reader.config) is LLMConfig
    assert (reader.config.timeout, reader.config.max_concurrency) == (2.0, 3)
    assert QueryReader(MODELS).config.timeout == 30.0


def test_an_option_that_is_no_llm_field_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown option 'timout'.*did you mean 'timeout'"):
        QueryReader(MODELS, timout=5)
    with pytest.raises(ConfigurationError, match="config must be a LLMConfig"):
        QueryReader(MODELS, config={"timeout": 5})  # type: ignore[arg-type]
