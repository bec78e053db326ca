"""CHOP prompts: compact excerpts within budget, document hints, tolerant parsing."""

from __future__ import annotations

import pytest

from chop_integrations._chop.answers import parse_cnm, parse_continuity, parse_pair
from chop_integrations._chop.excerpts import PromptBudget, head, tail
from chop_integrations._chop.prompts import cnm_prompt, compact, continuity_prompt, pair_prompt
from chop_integrations._chop.window import parse_window, window_excerpt, window_prompt
from chop_integrations._deciders import DocContext
from chop_integrations._errors import AnswerParseError
from chop_integrations._text.tokens import default_counter
from chop_integrations._types import CNM, Chunk

COUNT = default_counter()
LONG = " ".join(f"word{i}" for i in range(600))
DOC = DocContext(doc_id="d", text=LONG, metadata={"title": "X100 Manual", "source": "X100.txt", "model": "X100"})


def chunk(text: str, start: int = 0) -> Chunk:
    return Chunk(text=text, start=start, end=start + len(text), token_count=COUNT(text))


def test_head_and_tail_respect_the_token_budget():
    for n in (1, 8, 32, 80):
        assert COUNT(head(LONG, n, COUNT).removesuffix("...")) <= n
        assert COUNT(tail(LONG, n, COUNT).removeprefix("...")) <= n
    assert head("short text", 50, COUNT) == "short text"
    assert tail(LONG, 16, COUNT).endswith("word599")
    chinese = "这是一个很长的中文句子。" * 50
    assert 0 < COUNT(head(chinese, 20, COUNT).removesuffix("...")) <= 20


def test_compact_squeezes_table_rules_and_blank_lines():
    assert compact("Start\n| | | | | |\n\n\n  next   line ") == "Start\n|\nnext line"


def test_prompts_show_only_the_edges_and_stay_small():
    a, b = chunk(LONG), chunk(LONG, len(LONG))
    budget = PromptBudget()
    prompt = continuity_prompt(a, b, DOC, budget=budget, count=COUNT)
    assert "word599" in prompt and "word0 " in prompt and "word300" not in prompt
    assert 'title "X100 Manual", file "X100.txt", model "X100"' in prompt
    assert COUNT(prompt) <= budget.tail_tokens + budget.head_tokens + 80
    pair = pair_prompt(a, b, DOC, budget=budget, count=COUNT)
    assert COUNT(pair) <= budget.tail_tokens + budget.cnm_tokens + 120
    extract = cnm_prompt(b, DOC, CNM(category="phone", model="X100"), budget=budget, count=COUNT)
    assert "Earlier in this document: category phone, model X100" in extract
    assert COUNT(extract) <= budget.cnm_tokens + 100


def test_window_prompt_numbers_passages_on_one_line_each():
    budget = PromptBudget()
    excerpts = [window_excerpt(t, budget, COUNT) for t in ("# Battery\nCharge it.", LONG)]
    assert excerpts[0] == "# Battery / Charge it."
    assert COUNT(excerpts[1]) <= budget.cnm_tokens + budget.tail_tokens + 4
    opening = window_prompt(excerpts, None, DOC)
    assert "[1] opens the document" in opening and "[0]" not in opening
    inner = window_prompt(excerpts, "...end of before", DOC)
    assert "[0] ...end of before\n[1] # Battery / Charge it.\n[2] word0" in inner


def test_parsers_accept_json_fences_and_bare_words():
    assert parse_continuity("TRUE") is True
    assert parse_continuity('```json\n{"continues": false}\n```') is False
    with pytest.raises(AnswerParseError):
        parse_continuity("perhaps")
    assert parse_cnm('Sure: {"category": "phone", "nouns": "battery", "model": null}') == CNM(
        category="phone", nouns=["battery"]
    )
    assert parse_pair('{"continues": true, "cnm": {"category": "x"}}') == (True, None)
    assert parse_pair('{"continues": false, "cnm": {"model": "A1"}}') == (False, CNM(model="A1"))
    assert parse_pair("FALSE") == (False, None)
    assert parse_window('{"passages": [true, false, {"model": "A1"}]}', 3) == [
        (True, None),
        (False, None),
        (False, CNM(model="A1")),
    ]
    assert parse_window('[true, "FALSE", 7]', 3) == [(True, None), (False, None), (False, None)]
    with pytest.raises(AnswerParseError, match="expected 2 answers"):
        parse_window('{"passages": [true]}', 2)
    with pytest.raises(AnswerParseError):
        parse_window("no idea", 1)


def test_doc_context_hints_come_from_its_metadata_only() -> None:
    """Regression: hints were a second field, filled by some callers only, and read "hints, else metadata"."""
    import dataclasses

    from chop_integrations._chop.excerpts import hint_line

    doc = DocContext(doc_id="d", text="t", metadata={"source": "/data/X100.txt", "model": "X100", "title": ""})
    assert doc.hints == {"source": "X100.txt", "model": "X100"}  # the file name only; empty values left out
    assert 'file "X100.txt"' in hint_line(doc) and 'model "X100"' in hint_line(doc)  # was "" before: no hints
    moved = dataclasses.replace(doc, metadata={"category": "camera"})
    assert moved.hints == {"category": "camera"}  # derived again, never stale
    with pytest.raises(TypeError):
        DocContext(doc_id="d", text="t", hints={"model": "X"})  # type: ignore[call-arg]
