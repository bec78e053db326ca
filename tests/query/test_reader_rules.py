"""QueryReader's details: what a reading holds, how an LLM answer is cleaned, what is logged, bad arguments."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._query import QueryReader, QueryReading, SignatureCatalog
from chop_integrations.testing import ScriptedLLM

MODELS = ["Galaxy S10", "Galaxy Note 10+", "Nimbus AC-12"]


def test_a_reading_is_true_when_it_holds_a_model_or_a_category() -> None:
    assert not QueryReading() and QueryReading(model="m") and QueryReading(category="c")
    assert QueryReading(model="m", category="c").metadata_filter() == {"chop_model": "m", "chop_category": "c"}
    assert QueryReading(category="c").metadata_filter() == {"chop_category": "c"}
    assert QueryReading(mention="x").metadata_filter() == {}


def test_categories_are_read_only_when_asked() -> None:
    reader = QueryReader(MODELS, ["phone", "air conditioner"])
    assert reader.read_offline("my air conditioner Nimbus AC-12").category is None
    asked = QueryReader(MODELS, ["phone", "air conditioner"], read_categories=True)
    assert asked.read_offline("my air conditioner Nimbus AC-12") == QueryReading(
        model="Nimbus AC-12", category="air conditioner", mention="Nimbus AC-12"
    )


def test_a_catalog_gives_its_models_categories_and_aliases() -> None:
    catalog = SignatureCatalog.from_metadata(
        [{"chop_model": "Nimbus AC-12", "chop_category": "air conditioner", "chop_aliases": "Cool Box"}]
    )
    reader = QueryReader.from_catalog(catalog, read_categories=True)
    assert reader.read("the air conditioner Cool Box hums") == QueryReading(
        model="Nimbus AC-12", category="air conditioner", mention="Cool Box"
    )
    assert QueryReader.from_catalog(SignatureCatalog({"Nimbus AC-12": 3})).read("Cool Box") == QueryReading()


@pytest.mark.parametrize(
    "answer", ['"Galaxy Note 10+."', "`Galaxy Note 10+`", "- Galaxy Note 10+", "  - Galaxy Note 10+. "]
)
def test_an_answer_is_kept_without_its_quotes_dot_and_list_dash(answer: str) -> None:
    reading = QueryReader(MODELS, llm=ScriptedLLM([answer])).read("the big pen phone")
    assert reading == QueryReading(model="Galaxy Note 10+", mention="Galaxy Note 10+")


def test_an_llm_reading_keeps_the_category_read_offline() -> None:
    reader = QueryReader(MODELS, ["air conditioner"], read_categories=True, llm=ScriptedLLM(["Nimbus AC-12"]))
    assert reader.read("which air conditioner is the quiet one?") == QueryReading(
        model="Nimbus AC-12", category="air conditioner", mention="Nimbus AC-12"
    )


@pytest.mark.parametrize("answer", ["NONE", "none", "None."])
def test_none_is_no_model_and_logs_nothing(answer: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="chop_integrations"):
        assert QueryReader(MODELS, llm=ScriptedLLM([answer])).read("the pen phone") == QueryReading()
    assert [r for r in caplog.records if "query reader" in r.getMessage()] == []


def test_an_unknown_answer_is_logged_cut_to_80_characters(caplog: pytest.LogCaptureFixture) -> None:
    answer = "Galaxy Fold " + "x" * 100
    with caplog.at_level(logging.INFO, logger="chop_integrations"):
        assert QueryReader(MODELS, llm=ScriptedLLM([answer])).read("the pen phone") == QueryReading()
    (message,) = [r.getMessage() for r in caplog.records if "query reader" in r.getMessage()]
    assert message == f"query reader: the LLM answered {answer[:80]!r}, not one known model; no model read"


def test_a_failed_call_is_logged_with_its_error(caplog: pytest.LogCaptureFixture) -> None:
    reader = QueryReader(MODELS, llm=ScriptedLLM([ValueError("boom")], default=ValueError("boom")))
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert reader.read("the pen phone") == QueryReading()
    messages = [r.getMessage() for r in caplog.records if "query reader" in r.getMessage()]
    assert messages and all(m.startswith("query reader: the LLM call failed (") for m in messages)
    assert messages[-1].endswith("; no model read") and "boom" in messages[-1]


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (
            "X500",
            "models must be an iterable of strings (or a mapping of value -> count), got str 'X500': wrap one "
            "value in a list",
        ),
        (3, "models must be an iterable of strings (or a mapping of value -> count), got int"),
        (["a", 3], "models must hold strings only, got 3 (int)"),
    ],
)
def test_models_that_are_not_strings_are_refused(models: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        QueryReader(models)  # type: ignore[arg-type]
    assert str(caught.value) == message
    with pytest.raises(ConfigurationError) as caught:
        QueryReader([], models)  # type: ignore[arg-type]
    assert str(caught.value) == message.replace("models", "categories", 1)


@pytest.mark.parametrize("aliases", [["a"], {"a": 1}, {1: "a"}, "a"])
def test_aliases_that_are_not_a_mapping_of_strings_are_refused(aliases: object) -> None:
    with pytest.raises(ConfigurationError) as caught:
        QueryReader(MODELS, aliases=aliases)  # type: ignore[arg-type]
    assert str(caught.value) == "aliases must be a mapping of alias -> model, both strings"


def test_a_question_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        QueryReader(MODELS).read(b"S10")  # type: ignore[arg-type]
    assert str(caught.value) == "a question must be a string, got bytes"


def test_without_an_llm_nothing_is_asked_or_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="chop_integrations"):
        assert QueryReader(MODELS).read("the big pen phone") == QueryReading()
    assert [r for r in caplog.records if "query reader" in r.getMessage()] == []


def test_a_catalog_without_aliases_is_read_too() -> None:
    catalog = SimpleNamespace(models={"Nimbus AC-12": 2}, categories={"air conditioner": 2})  # a catalog of one's own
    reader = QueryReader.from_catalog(catalog, read_categories=True)  # type: ignore[arg-type]
    assert reader.read("the air conditioner Nimbus AC-12") == QueryReading(
        model="Nimbus AC-12", category="air conditioner", mention="Nimbus AC-12"
    )
