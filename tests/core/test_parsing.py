"""Answer parsing: tolerant JSON extraction, pydantic validation, yes/no answers; never raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from chop_integrations._errors import AnswerParseError
from chop_integrations._llm.parsing import extract_json, parse_bool, parse_model


class Shifts(BaseModel):
    starts: list[int]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"starts": [3, 7]}', {"starts": [3, 7]}),
        ("  [1, 2]  ", [1, 2]),
        ('```json\n{"starts": []}\n```', {"starts": []}),
        ('Sure!\n```\n{"a": 1}\n```\nHope this helps.', {"a": 1}),
        ('The answer is {"starts": [4]} and that is final. {"other": 1}', {"starts": [4]}),
        ('Looking at [the text]... {"starts": [2]} trailing {', {"starts": [2]}),
        ("\ufeff" + '{"x": "ü中"}', {"x": "ü中"}),
        ("true", True),
        ("no json here", None),
        ("", None),
        ("   ", None),
        ("{not json}", None),
        ("null", None),
    ],
)
def test_extract_json(answer: str, expected: object) -> None:
    assert extract_json(answer) == expected


def test_extract_json_non_string_gives_none() -> None:
    assert extract_json(None) is None
    assert extract_json(b'{"a": 1}') is None


def test_extract_json_pathological_nesting_is_bounded() -> None:
    assert extract_json("[" * 100_000) is None
    assert extract_json("x" + "{" * 100_000) is None


def test_parse_model_valid_and_fenced() -> None:
    assert parse_model('{"starts": [1]}', Shifts) == Shifts(starts=[1])
    assert parse_model('Here:\n```json\n{"starts": [5, 6]}\n```', Shifts) == Shifts(starts=[5, 6])


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [("nothing", "no JSON"), ('{"starts": "many"}', "starts"), ('{"other": 1}', "starts"), ("", "no JSON")],
)
def test_parse_model_problems_are_short_descriptions(answer: str, fragment: str) -> None:
    with pytest.raises(AnswerParseError) as raised:
        parse_model(answer, Shifts)
    problem = raised.value.problem
    assert fragment in problem
    assert len(problem) < 300


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("TRUE", True),
        ("FALSE", False),
        ("true.", True),
        ("**False**", False),
        ("Yes, it continues.", True),
        ("no", False),
        ('{"continues": true}', True),
        ('{"answer": "FALSE"}', False),
        ("```json\nfalse\n```", False),
        ("[true]", True),
        ("The answer is TRUE", True),
    ],
)
def test_parse_bool(answer: str, expected: bool) -> None:
    assert parse_bool(answer) is expected


@pytest.mark.parametrize("answer", ["maybe", "", "It could be true or false", "42 apples", None])
def test_parse_bool_problems(answer: object) -> None:
    with pytest.raises(AnswerParseError):
        parse_bool(answer)


@given(st.text())
def test_parsers_return_a_value_or_raise_only_answer_parse_error(text: str) -> None:
    extract_json(text)
    for parse, kind in ((lambda t: parse_model(t, Shifts), Shifts), (parse_bool, bool)):
        try:
            assert isinstance(parse(text), kind)
        except AnswerParseError as error:
            assert error.problem and isinstance(error.problem, str)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
def test_extract_json_finds_embedded_json(value: object) -> None:

    if not isinstance(value, (dict, list)):
        return
    assert extract_json("Answer:\n" + json.dumps(value) + "\nThanks.") == value
