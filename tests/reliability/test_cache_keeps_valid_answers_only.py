"""Only answers that passed validation are cached: an outage must not poison later runs.

A model that answered ``""`` (or garbage) during an outage used to leave those answers in the
cache, so every later run with the healthy model was served them: ``calls=0`` and one fallback per
decision, forever. Now only an answer the engine could use is kept; an invalid one found in an
older cache is asked again and replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._llm.cache import InMemoryCache
from chop_integrations._llm.runner import LLMRunner, cache_key
from chop_integrations._llm.sqlite_cache import SQLiteCache
from chop_integrations._llm.usage import UsageReport
from chop_integrations.testing import ScriptedLLM, valid_answer

Engine = Callable[..., CHOPChunker | LumberChunker]
ENGINES: dict[str, Engine] = {
    "chop-separate": lambda llm, cache: CHOPChunker(llm, max_tokens=40, decisions="separate", cache=cache),
    "chop-pair": lambda llm, cache: CHOPChunker(llm, max_tokens=40, decisions="pair", cache=cache),
    "chop-window": lambda llm, cache: CHOPChunker(llm, max_tokens=40, decisions="window", cache=cache),
    "lumber-default": lambda llm, cache: LumberChunker(llm, max_tokens=40, cache=cache),
    "lumber-paper": lambda llm, cache: LumberChunker(llm, max_tokens=40, mode="paper", cache=cache),
}


class RecordingCache(InMemoryCache):
    """An in-memory cache that remembers which keys were written."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[str] = []

    def set(self, key: str, value: str) -> None:
        self.written.append(key)
        super().set(key, value)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_the_same_model_recovers_after_the_outage(name: str, tmp_path: Path, document: str) -> None:
    """One model id across the outage and the recovery: the later run calls the model again."""
    state = {"down": True}

    def answer(prompt: str) -> str:
        return "" if state["down"] else valid_answer(prompt)

    model = ScriptedLLM(default=answer, model_id="flaky")
    cache = SQLiteCache(tmp_path / "answers.sqlite")
    during = ENGINES[name](model, cache)
    during.chunk(document)
    assert during.last_usage.fallbacks >= 1
    state["down"] = False
    recovered = ENGINES[name](model, cache)
    recovered.chunk(document)
    usage = recovered.last_usage
    assert usage.fallbacks == 0 and usage.invalid_answers == 0 and usage.calls >= 1
    again = ENGINES[name](model, cache)
    again.chunk(document)
    assert again.last_usage.calls == 0 and again.last_usage.cache_hits >= 1  # the good answers are kept


def test_nothing_is_written_for_invalid_answers(document: str) -> None:
    cache = RecordingCache()
    CHOPChunker(ScriptedLLM(default=lambda p: "", model_id="down"), max_tokens=40, cache=cache).chunk(document)
    assert cache.written == []


def test_an_invalid_answer_left_in_an_older_cache_is_asked_again_and_replaced(document: str) -> None:
    cache = RecordingCache()
    model = ScriptedLLM(default=valid_answer, model_id="healthy")
    CHOPChunker(model, max_tokens=40, decisions="separate", cache=cache).chunk(document)
    keys = list(cache.written)
    assert keys
    for key in keys:
        cache.set(key, "")  # as an older version left them after an outage
    again = CHOPChunker(model, max_tokens=40, decisions="separate", cache=cache)
    again.chunk(document)
    usage = again.last_usage
    assert usage.fallbacks == 0 and usage.invalid_answers == 0 and usage.calls == len(keys)
    assert all(cache.get(key) for key in keys)


def test_a_plain_runner_call_without_a_parser_is_still_cached() -> None:
    cache = InMemoryCache()
    model = ScriptedLLM(default=lambda p: "TRUE", model_id="fixed")
    runner = LLMRunner(model, usage=UsageReport(), token_counter=len, cache=cache)
    assert runner.ask("Does B continue A?") == "TRUE"
    assert cache.get(cache_key("fixed", "Does B continue A?", None)) == "TRUE"
