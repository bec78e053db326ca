"""Any answer, of any size or shape, is an invalid answer at worst: counted, retried or fallen back.

A hostile or broken model can answer an integer of thousands of digits (Python refuses to convert
more than 4,300), JSON nested hundreds or thousands deep (recursion), or megabytes of text. None of
these may escape ``on_llm_error="fallback"``: the run returns every character, and the usage report
counts the invalid answers and the fallbacks.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._chop.answers import parse_continuity, parse_pair
from chop_integrations._errors import AnswerParseError, LLMAnswerError
from chop_integrations._llm.aio import run_sync
from chop_integrations._llm.parsing import parse_bool
from chop_integrations._llm.policy import Decision, adecide
from chop_integrations._llm.protocol import CallableLLM
from chop_integrations._llm.runner import LLMRunner
from chop_integrations._llm.usage import UsageReport

DEEP_ARRAYS = "[" * 600 + "]" * 600  # about 1.2 KB
DEEP_OBJECTS = '{"a":' * 600 + "true" + "}" * 600
DEEPER = "[" * 50_000 + "]" * 50_000  # beyond the JSON decoder's own limit
HUGE_ID = "Answer: ID " + "9" * 4301  # one digit past Python's int() limit
HOSTILE = {
    "deep_arrays": DEEP_ARRAYS,
    "deep_objects": DEEP_OBJECTS,
    "deeper": DEEPER,
    "huge_id": HUGE_ID,
    "huge_json_int": '{"starts": [' + "9" * 5000 + "]}",
    "deep_in_chatter": "Sure: " + DEEP_ARRAYS + " hope this helps",
}


def _always(answer: str) -> Callable[[str], str]:
    def model(prompt: str) -> str:
        return answer

    return model


@pytest.mark.parametrize("answer", sorted(HOSTILE), ids=str)
@pytest.mark.parametrize("decisions", ["separate", "pair", "window"])
def test_chop_returns_whatever_the_model_answers(decisions: str, answer: str, document: str) -> None:
    engine = CHOPChunker(_always(HOSTILE[answer]), max_tokens=40, decisions=decisions)
    chunks = engine.chunk(document)
    assert "".join(c.text for c in chunks) == document
    assert engine.last_usage.calls >= 1


@pytest.mark.parametrize("answer", sorted(HOSTILE), ids=str)
@pytest.mark.parametrize("mode", ["paper", "default"])
def test_lumber_returns_whatever_the_model_answers(mode: str, answer: str, document: str) -> None:
    engine = LumberChunker(_always(HOSTILE[answer]), max_tokens=40, mode=mode)
    chunks = engine.chunk(document)
    assert "".join(c.text for c in chunks) == document
    assert engine.last_usage.calls >= 1


def test_a_huge_paper_id_is_an_invalid_answer_counted_and_fallen_back(document: str) -> None:
    engine = LumberChunker(_always(HUGE_ID), max_tokens=40, mode="paper")
    engine.chunk(document)
    usage = engine.last_usage
    assert usage.invalid_answers == 2 * usage.fallbacks  # the answer and its corrective retry, each invalid
    assert usage.calls == usage.invalid_answers


@pytest.mark.parametrize("answer", [DEEP_ARRAYS, DEEPER, "[" * 600 + '"TRUE"' + "]" * 600])
def test_the_yes_no_parsers_never_recurse(answer: str) -> None:
    for parse in (parse_bool, parse_continuity, lambda a: parse_pair(a)[0]):
        try:
            parse(answer)
        except AnswerParseError:
            pass


def test_a_deeply_nested_true_is_still_read_when_it_is_the_only_value() -> None:
    assert parse_bool('{"a": {"b": {"continues": true}}}') is True
    assert parse_continuity('[[["FALSE"]]]') is False


@pytest.mark.parametrize("error", [RecursionError, ValueError, OverflowError])
def test_a_parser_that_chokes_on_an_answer_costs_an_invalid_answer_not_the_run(error: type[Exception]) -> None:
    def parse(answer: str) -> bool:
        raise error("too deep or too big")

    usage = UsageReport()
    runner = LLMRunner(CallableLLM(_always("[[[...]]]")), usage=usage, token_counter=len)
    decision = Decision(prompt="p", parse=parse, fallback=lambda: False, task="continuity", document="d", position=0)
    assert run_sync(adecide(decision, runner, "fallback")) is False
    assert (usage.calls, usage.invalid_answers, usage.fallbacks) == (2, 2, 1)
    with pytest.raises(LLMAnswerError, match="could not be read"):
        run_sync(adecide(decision, runner, "raise"))
