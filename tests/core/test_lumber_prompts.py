"""LumberChunker prompts: the paper's prompt and procedure pinned, our default prompt and its validation."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from chop_integrations._deciders import DocContext
from chop_integrations._errors import AnswerParseError, LLMAnswerError, LLMCallError
from chop_integrations._llm.aio import run_sync
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations._llm.runner import LLMRunner
from chop_integrations._llm.usage import UsageReport
from chop_integrations._lumber import prompts as lp
from chop_integrations._lumber.chunker import LumberChunker
from chop_integrations._lumber.prompts import LLMTopicShift, LumberWindow, TopicShifts
from chop_integrations._types import Unit
from chop_integrations.testing import ScriptedLLM

from .fakes import HeadingShift


def words(text: str) -> int:
    return len(text.split())


PARAGRAPHS = [
    "Apples grow on trees in the orchard.",
    "Pears ripen late in the autumn season.",
    "Trains leave the station every hour.",
    "Buses stop at the corner near the bank.",
    "The sea is calm and blue today.",
    "Waves break softly on the sandy beach.",
]
TEXT = "\n\n".join(PARAGRAPHS) + "\n"

# The original code's prompt, character for character (joaodsmarques/LumberChunker,
# Code/LumberChunker-Segmentation.py): system_prompt + "\nDocument:\n" + "\n".join("ID <n>: <paragraph>").
ORIGINAL_SYSTEM_PROMPT = (
    "You will receive as input an english document with paragraphs identified by 'ID XXXX: <text>'.\n\n"
    "Task: Find the first paragraph (not the first one) where the content clearly changes compared to the "
    "previous paragraphs.\n\n"
    "Output: Return the ID of the paragraph with the content shift as in the exemplified format: "
    "'Answer: ID XXXX'.\n\n"
    "Additional Considerations: Avoid very long groups of paragraphs. Aim for a good balance between "
    "identifying content shifts and keeping groups manageable."
)


def paper_doc(ids: range) -> str:
    return ORIGINAL_SYSTEM_PROMPT + "\nDocument:\n" + "\n".join(f"ID {i}: {PARAGRAPHS[i]}" for i in ids)


def texts(chunks: list) -> list[str]:
    return [c.text.strip() for c in chunks]


def test_paper_prompt_and_procedure_restart_at_answer() -> None:
    llm = ScriptedLLM(["Answer: ID 2", "Sure. Answer: ID 4", "Answer: ID 5"])
    # theta=30 words: each "ID n: <7 words>" line counts 9, so groups hold 3 paragraphs (27 < 30 <= 36).
    lc = LumberChunker(llm, mode="paper", theta=30, max_tokens=100, token_counter=words, fallback=HeadingShift())
    chunks = lc.chunk(TEXT)
    assert llm.prompts == [paper_doc(range(0, 3)), paper_doc(range(2, 5)), paper_doc(range(4, 6))]
    assert texts(chunks) == [
        "\n\n".join(PARAGRAPHS[0:2]),
        "\n\n".join(PARAGRAPHS[2:4]),
        PARAGRAPHS[4],
        PARAGRAPHS[5],
    ]
    assert lc.last_usage.calls == 3  # the last group holds one paragraph: nothing to ask


def test_paper_procedure_restart_at_answer_plus_one() -> None:
    llm = ScriptedLLM(["Answer: ID 2", "Answer: ID 4"])
    lc = LumberChunker(
        llm,
        mode="paper",
        theta=30,
        max_tokens=100,
        token_counter=words,
        paper_restart="answer+1",
        fallback=HeadingShift(),
    )
    chunks = lc.chunk(TEXT)
    # As in the original code, the next group starts one paragraph after the answer.
    assert llm.prompts == [paper_doc(range(0, 3)), paper_doc(range(3, 6))]
    assert texts(chunks) == ["\n\n".join(PARAGRAPHS[i : i + 2]) for i in (0, 2, 4)]


def test_paper_invalid_answers_get_one_corrective_retry() -> None:
    llm = ScriptedLLM(["Answer: ID 0", "Answer: ID 1", "Answer: ID 9", "no idea", "Answer: ID 5"])
    lc = LumberChunker(llm, mode="paper", theta=30, max_tokens=100, token_counter=words, fallback=HeadingShift())
    chunks = lc.chunk(TEXT)
    assert "ID 0 is not allowed" in llm.prompts[1]
    assert llm.prompts[1].startswith(paper_doc(range(0, 3)))
    # The group starting at ID 1: "ID 9" and "no idea" fail, the offline stand-in finds no heading, so
    # the chunk ends with the group (IDs 1-3) and the next group starts at ID 4.
    assert llm.prompts[2] == paper_doc(range(1, 4))
    assert llm.prompts[4] == paper_doc(range(4, 6))
    assert (lc.last_usage.calls, lc.last_usage.fallbacks, lc.last_usage.invalid_answers) == (5, 1, 3)
    assert texts(chunks) == [PARAGRAPHS[0], "\n\n".join(PARAGRAPHS[1:4]), PARAGRAPHS[4], PARAGRAPHS[5]]


def _window(n_units: int, *, seen: int = 0, first_index: int = 0, doc_id: str = "doc") -> LumberWindow:
    paragraphs = [f"Paragraph {i} talks about topic {i}." for i in range(first_index + n_units)]
    text = "\n\n".join(paragraphs)
    units, offset = [], 0
    for i, p in enumerate(paragraphs):
        body = p + ("\n\n" if i < len(paragraphs) - 1 else "")
        units.append(Unit(offset, offset + len(body), body, words(body)))
        offset += len(body)
    doc = DocContext(doc_id, text)
    return LumberWindow(units=units[first_index:], first_index=first_index, doc=doc, seen=seen)


def _decider(answers: list, *, on_llm_error: str = "fallback", mode: str = "default", llm=None) -> LLMTopicShift:
    llm = llm or ScriptedLLM(answers)
    runner = LLMRunner(llm, usage=UsageReport(), token_counter=words, retry=RetryPolicy(max_attempts=1))
    return LLMTopicShift(runner, mode=mode, on_llm_error=on_llm_error, fallback=HeadingShift(), max_tokens=300)


def test_default_prompt_is_compact_and_window_relative() -> None:
    window = _window(4, first_index=2, seen=2)
    prompt = lp.default_prompt(window, max_tokens=300, context_tokens=4, count=words)
    assert prompt == (
        "Split the text into topical sections. Paragraphs are numbered #N. List the paragraphs (#1 to #2) "
        "where a new topic starts; sections should stay under about 300 tokens.\n"
        'Reply with JSON only: {"starts": [numbers]}, or {"starts": []} if no new topic starts here.\n'
        "Context (the text just before, not numbered):\n...talks about topic 3.\n"
        "Text:\n#1 Paragraph 4 talks about topic 4.\n#2 Paragraph 5 talks about topic 5."
    )


def test_default_answers_map_to_window_indexes() -> None:
    with_context = _window(5, seen=2)
    assert lp.parse_default('{"starts": [3, 1, 3]}', with_context) == [2, 4]
    assert lp.parse_default("[2]", with_context) == [3]
    assert lp.parse_default('{"starts": []}', with_context) == []
    fresh = _window(4)
    assert lp.parse_default('{"starts": [1, 3]}', fresh) == [2]  # "#1" opens the window: a harmless no-op
    for bad in ('{"starts": [0]}', '{"starts": [5]}', '{"starts": [-2]}', "nonsense", '{"starts": "x"}'):
        with pytest.raises(AnswerParseError):
            lp.parse_default(bad, fresh)


def test_paper_answers_are_document_ids_validated() -> None:
    window = _window(3, first_index=10, seen=0)
    assert lp.parse_paper("Answer: ID 11", window) == [1]
    assert lp.parse_paper("answer: id 12", window) == [2]
    for bad in ("Answer: ID 10", "Answer: ID 13", "Answer: ID 2", "no id"):
        with pytest.raises(AnswerParseError):
            lp.parse_paper(bad, window)


def test_llm_decider_retries_once_then_falls_back_counted() -> None:
    decider = _decider(["garbage", '{"starts": [42]}'])
    assert run_sync(decider.achoose(_window(3))) == []  # HeadingShift finds no heading in these units
    usage = decider.runner.usage
    assert (usage.calls, usage.retries, usage.invalid_answers, usage.fallbacks) == (2, 1, 2, 1)


def test_llm_decider_raise_names_document_and_position() -> None:
    window = _window(4, first_index=1, seen=1, doc_id="manual.txt")
    with pytest.raises(LLMAnswerError) as info:
        run_sync(_decider(["garbage", "still garbage"], on_llm_error="raise").achoose(window))
    assert info.value.document == "manual.txt"
    assert info.value.position == window.units[1].start
    assert info.value.task == "topic_shift"


def test_llm_decider_call_errors_raise_typed_error() -> None:
    with pytest.raises(LLMCallError) as info:
        run_sync(_decider([RuntimeError("boom")], on_llm_error="raise").achoose(_window(3, doc_id="d7")))
    assert info.value.document == "d7"


def test_no_call_when_no_answer_could_be_valid() -> None:
    llm = ScriptedLLM([])
    assert run_sync(_decider([], llm=llm).achoose(_window(1))) == []
    assert run_sync(_decider([], llm=llm, mode="paper").achoose(_window(2, seen=1))) == []
    assert llm.prompts == []


class StructuredFake:
    """A model with structured output: answers through complete_json."""

    model_id = "structured-fake"

    def __init__(self) -> None:
        self.schemas: list[type[BaseModel]] = []

    def complete(self, prompt: str) -> str:
        raise AssertionError("the structured path must be used")

    async def acomplete(self, prompt: str) -> str:
        raise AssertionError("the structured path must be used")

    def complete_json(self, prompt: str, schema: type[BaseModel]) -> BaseModel:
        self.schemas.append(schema)
        return schema.model_validate({"starts": [2]})

    async def acomplete_json(self, prompt: str, schema: type[BaseModel]) -> BaseModel:
        return self.complete_json(prompt, schema)


async def test_default_mode_uses_structured_output_when_supported() -> None:
    llm = StructuredFake()
    decider = _decider([], llm=llm)
    assert await decider.achoose(_window(3)) == [1]
    assert await decider.achoose(_window(3)) == [1]
    assert llm.schemas == [TopicShifts, TopicShifts]
    assert json.loads(TopicShifts(starts=[1]).model_dump_json()) == {"starts": [1]}
