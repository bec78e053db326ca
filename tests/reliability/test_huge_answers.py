"""An answer longer than any request could need is rejected before it is counted or parsed.

When a provider reports no usage, the runner estimates completion tokens with the token counter;
an 8 MB reply used to be counted (about a second per MB, on the event loop) and then parsed, so a
run's time grew with the size of what the model sent, whatever the ``timeout``. Now such an answer
is an invalid answer: neither the token counter nor a parser ever sees more than the runner's limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._llm.policy import Decision, adecide
from chop_integrations._llm.protocol import CallableLLM
from chop_integrations._llm.runner import LLMRunner, answer_limit
from chop_integrations._llm.usage import UsageReport
from chop_integrations.testing import ScriptedLLM

HUGE = 8 * 1024 * 1024


class RecordingCounter:
    """A token counter (4 characters a token) that records the longest text it was given."""

    def __init__(self) -> None:
        self.longest = 0

    def __call__(self, text: str) -> int:
        self.longest = max(self.longest, len(text))
        return len(text) // 4


def huge_answer(prompt: str) -> str:
    return "TRUE " + "x" * HUGE


@pytest.mark.parametrize(
    "engine",
    [
        lambda llm, counter: CHOPChunker(llm, max_tokens=40, decisions="separate", token_counter=counter),
        lambda llm, counter: CHOPChunker(llm, max_tokens=40, decisions="window", token_counter=counter),
        lambda llm, counter: LumberChunker(llm, max_tokens=40, token_counter=counter),
        lambda llm, counter: LumberChunker(llm, max_tokens=40, mode="paper", token_counter=counter),
    ],
    ids=["chop-separate", "chop-window", "lumber-default", "lumber-paper"],
)
def test_a_huge_answer_is_never_token_counted_in_full(
    engine: Callable[..., CHOPChunker | LumberChunker], document: str
) -> None:
    counter = RecordingCounter()
    chunker = engine(ScriptedLLM(default=huge_answer, model_id="huge"), counter)
    chunks = chunker.chunk(document)
    assert "".join(c.text for c in chunks) == document
    usage = chunker.last_usage
    assert counter.longest < HUGE // 8
    assert usage.invalid_answers == usage.calls and usage.fallbacks >= 1
    assert usage.completion_tokens >= usage.calls * HUGE // 4  # still estimated at its full size


def test_the_parser_sees_no_huge_answer_and_the_retry_asks_for_a_short_one() -> None:
    seen: list[int] = []

    def parse(answer: str) -> bool:
        seen.append(len(answer))
        return True

    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "x" * HUGE if len(prompts) == 1 else "TRUE"

    llm = ScriptedLLM(default=answer)
    usage = UsageReport()
    runner = LLMRunner(llm, usage=usage, token_counter=RecordingCounter())
    decision = Decision(prompt="p", parse=parse, fallback=lambda: False, task="continuity", document="d", position=0)
    assert asyncio.run(adecide(decision, runner, "fallback")) is True
    assert seen == [4]  # only the corrective retry's answer reached the parser
    assert "characters" in prompts[1] and len(prompts[1]) < 2_000
    assert (usage.calls, usage.invalid_answers, usage.fallbacks) == (2, 1, 0)


def test_the_limit_leaves_room_for_any_real_answer() -> None:
    assert answer_limit("short prompt") >= 16_000
    assert answer_limit("p" * 100_000) >= 100_000  # an answer may quote its prompt back


def test_a_sync_callable_answering_huge_costs_an_invalid_answer() -> None:
    usage = UsageReport()
    counter = RecordingCounter()
    runner = LLMRunner(CallableLLM(huge_answer, model_id="huge"), usage=usage, token_counter=counter)
    decision = Decision(
        prompt="p", parse=lambda a: True, fallback=lambda: False, task="continuity", document="d", position=0
    )
    assert asyncio.run(adecide(decision, runner, "fallback")) is False
    assert counter.longest < HUGE // 8 and usage.invalid_answers == 2
