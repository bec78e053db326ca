"""The answer-cache key holds every setting that can change an answer, and no credential.

Two models that may answer differently never share a cached answer: LangChain's ``max_tokens``,
``use_responses_api``, ``default_headers`` and endpoint; LlamaIndex's ``api_base``, ``strict`` and
``default_headers``. A plain callable without a stable identity (a ``functools.partial``, a lambda, a
nested function, a callable object) is not cached at all, with one warning, unless it is named
(``CallableLLM(fn, model_id=...)``).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import pytest

from chop_integrations import CallableLLM, LumberChunker
from chop_integrations._llm.cache import InMemoryCache
from chop_integrations.testing import SimulatedLLM

DOC = "\n\n".join(f"# Part {i}\nThe unit step {i} moves the valve {i * 3} times, then stops." for i in range(14))


def _ask(llm: SimulatedLLM, prompt: str) -> str:
    return llm.complete(prompt)


def _view(llm: Any, cache: Any = None) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in LumberChunker(llm, max_tokens=40, cache=cache).chunk(DOC)]


SMALL, BIG = SimulatedLLM(latency_ms=0, seed=1), SimulatedLLM(latency_ms=0, seed=7)


def test_the_two_models_of_these_tests_answer_differently() -> None:
    assert _view(SMALL) != _view(BIG)  # else the tests below could not fail


@pytest.mark.parametrize("kind", ["partial", "lambda", "nested function"])
def test_callables_without_a_stable_identity_never_share_answers(kind: str, caplog: pytest.LogCaptureFixture) -> None:
    def make(model: SimulatedLLM) -> Any:
        if kind == "partial":
            return functools.partial(_ask, model)
        if kind == "lambda":
            return lambda prompt: model.complete(prompt)

        def nested(prompt: str) -> str:
            return model.complete(prompt)

        return nested

    cache = InMemoryCache()
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        _view(make(SMALL), cache)
        assert _view(make(BIG), cache) == _view(BIG)
    assert len(cache) == 0
    warnings = [r for r in caplog.records if "stable identity" in r.getMessage()]
    assert len(warnings) == 2 and "model_id" in warnings[0].getMessage()  # one per model, naming the way out


def test_one_warning_per_callable_however_many_runs(caplog: pytest.LogCaptureFixture) -> None:
    engine = LumberChunker(functools.partial(_ask, SMALL), max_tokens=40, cache=InMemoryCache())
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        engine.chunk(DOC)
        engine.chunk(DOC)
    assert len([r for r in caplog.records if "stable identity" in r.getMessage()]) == 1


def test_a_named_callable_is_cached() -> None:
    cache = InMemoryCache()
    named = CallableLLM(functools.partial(_ask, SMALL), model_id="small")
    _view(named, cache)
    assert len(cache) > 0
    engine = LumberChunker(CallableLLM(functools.partial(_ask, BIG), model_id="big"), max_tokens=40, cache=cache)
    assert [(c.start, c.end) for c in engine.chunk(DOC)] == _view(BIG)


def test_a_module_function_keeps_its_cache() -> None:
    cache = InMemoryCache()
    _view(_module_level, cache)
    assert len(cache) > 0


def _module_level(prompt: str) -> str:
    return SMALL.complete(prompt)


# -- framework models ----------------------------------------------------------------------------------


def _langchain_id(**settings: Any) -> str:
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI

    from chop_integrations.langchain._model_info import langchain_model_id

    return langchain_model_id(ChatOpenAI(model="gpt-4o-mini", api_key="sk-x", **settings))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"max_tokens": 4}, {}),
        ({"max_tokens": 4}, {"max_tokens": 400}),
        ({"temperature": 0.0}, {"temperature": 0.7}),
        ({"top_p": 0.1}, {"top_p": 0.9}),
        ({"seed": 1}, {"seed": 2}),
        ({"stop": ["\n"]}, {"stop": ["END"]}),
        ({"n": 1}, {"n": 2}),
        ({"presence_penalty": 0.0}, {"presence_penalty": 1.0}),
        ({"frequency_penalty": 0.0}, {"frequency_penalty": 1.0}),
        ({"logit_bias": {"50256": -100}}, {}),
        ({"logprobs": True}, {"logprobs": False}),
        ({"top_logprobs": 1}, {"top_logprobs": 5}),
        ({"reasoning_effort": "low"}, {"reasoning_effort": "high"}),
        ({"model_kwargs": {"response_format": {"type": "json_object"}}}, {}),
        ({"extra_body": {"guided_choice": ["a"]}}, {"extra_body": {"guided_choice": ["b"]}}),
        ({"use_responses_api": True}, {}),
        ({"default_headers": {"X-Route": "small"}}, {"default_headers": {"X-Route": "big"}}),
        ({"base_url": "http://127.0.0.1:9/v1"}, {"base_url": "http://127.0.0.1:10/v1"}),
        ({"base_url": "http://h/v1?deployment=a"}, {"base_url": "http://h/v1?deployment=b"}),
    ],
)
def test_langchain_settings_that_change_answers_are_in_the_id(one: dict[str, Any], other: dict[str, Any]) -> None:
    assert _langchain_id(**one) != _langchain_id(**other)


def test_langchain_header_values_are_in_the_id_only_as_a_digest() -> None:
    assert "hidden-value" not in _langchain_id(default_headers={"X-Route": "hidden-value"})


def _llama_id(**settings: Any) -> str:
    pytest.importorskip("llama_index.llms.openai")
    from llama_index.llms.openai import OpenAI

    from chop_integrations.llama_index._llm import llama_model_id

    return llama_model_id(OpenAI(model="gpt-4o-mini", api_key="sk-x", **settings))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"max_tokens": 4}, {"max_tokens": 400}),
        ({"max_tokens": 4}, {}),
        ({"temperature": 0.0}, {"temperature": 0.7}),
        ({"logprobs": True}, {"logprobs": False}),
        ({"top_logprobs": 1}, {"top_logprobs": 5}),
        ({"additional_kwargs": {"seed": 1}}, {"additional_kwargs": {"seed": 2}}),
        ({"reasoning_effort": "low"}, {"reasoning_effort": "high"}),
        ({"system_prompt": "Be brief."}, {}),
        ({"api_version": "2024-06-01"}, {"api_version": "2024-10-21"}),
        ({"api_base": "http://127.0.0.1:9/v1"}, {"api_base": "http://127.0.0.1:10/v1"}),
        ({"strict": True}, {"strict": False}),
        ({"default_headers": {"X-Route": "small"}}, {"default_headers": {"X-Route": "big"}}),
    ],
)
def test_llama_index_settings_that_change_answers_are_in_the_id(one: dict[str, Any], other: dict[str, Any]) -> None:
    assert _llama_id(**one) != _llama_id(**other)
