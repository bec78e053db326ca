"""Hostile documents: prompt injection, control, bidi and zero-width characters, lone surrogates, odd sizes.

Whatever the text holds, every entry point must finish, keep every character
(chunks concatenate to the input, offsets exact) and keep CNM prefixes safe.
"""

from __future__ import annotations

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations.cache import SQLiteCache
from chop_integrations.llm import ScriptedLLM
from chop_integrations.runner import cache_key, scrub_prompt

LONE_SURROGATES = "Intro \ud800 text.\n\nSecond \udfff para, a pair \ud83d\ude00 and a tail \ud83d"


def _answer(prompt: str) -> str:
    return '{"starts": []}' if prompt.startswith("Split the text") else "TRUE"


def test_lone_surrogates_reach_no_llm_client_and_lose_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Regression: cache_key() raised UnicodeEncodeError on a prompt with a lone surrogate, killing the run."""
    llm = ScriptedLLM(default=_answer)
    cache = SQLiteCache(tmp_path / "c.sqlite")
    for engine in (LumberChunker(llm, max_tokens=8, cache=cache), CHOPChunker(llm, max_tokens=8, cache=cache)):
        chunks = engine.chunk(LONE_SURROGATES)
        assert "".join(c.text for c in chunks) == LONE_SURROGATES
        assert all(LONE_SURROGATES[c.start : c.end] == c.text for c in chunks)
    assert llm.prompts, "the LLM was asked"
    for prompt in llm.prompts:
        prompt.encode("utf-8")  # every prompt is sendable
    assert "\ufffd" in "".join(llm.prompts)


def test_scrub_prompt_keeps_valid_text_and_distinct_keys() -> None:
    assert scrub_prompt("plain é 中 😀") == "plain é 中 😀"
    assert scrub_prompt("a\ud800b") == "a\ufffdb"
    assert scrub_prompt("\ud83d\ude00") == "😀"
    assert cache_key("m", "a\ud800", None) != cache_key("m", "a\udfff", None)


@pytest.mark.parametrize("value", ["x\ud800y", "\udfff"])
def test_an_answer_with_lone_surrogates_costs_no_run(tmp_path, value: str) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(default=lambda p: _answer(p) + value)
    text = "One.\n\nTwo.\n\nThree."
    chunks = LumberChunker(llm, max_tokens=3, cache=SQLiteCache(tmp_path / "c.sqlite")).chunk(text)
    assert "".join(c.text for c in chunks) == text
