"""The reader's optional LLM path: asked only when the offline reading finds nothing; kept only when known."""

from __future__ import annotations

import logging

import pytest

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
