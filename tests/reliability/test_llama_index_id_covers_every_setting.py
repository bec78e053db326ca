"""A LlamaIndex LLM's id holds every setting of its class that can change an answer, not a fixed list.

An LLM class of one's own (a ``CustomLLM`` with a ``size`` field), LlamaIndex's ``pydantic_program_mode``
(how a structured answer is produced) and a ``completion_to_prompt`` of one's own (what the model reads) all
change the answer: two LLMs that differ in them must not share cached answers. Client plumbing (timeouts,
retries, callbacks) and the key do not enter the id. A prompt function without a stable name (a lambda)
leaves the model uncached, as a lambda model does.
"""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.types import PydanticProgramMode

from chop_integrations.llama_index._llm import LlamaIndexLLM


class SizedLLM(CustomLLM):
    """A local model whose answers depend on the weights it loads."""

    size: str = "small"
    tokenizer: Any = None

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="local")

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.size)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


def shouted_prompt(prompt: str) -> str:
    """A completion template of one's own."""
    return prompt.upper()


def _openai(**settings: Any) -> LlamaIndexLLM:
    pytest.importorskip("llama_index.llms.openai")
    from llama_index.llms.openai import OpenAI

    return LlamaIndexLLM(OpenAI(model="gpt-4o-mini", api_key="sk-secret-value", **settings))


def test_a_field_of_an_llm_class_of_ones_own_is_in_the_id() -> None:
    assert LlamaIndexLLM(SizedLLM(size="small")).model_id != LlamaIndexLLM(SizedLLM(size="big")).model_id


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"pydantic_program_mode": PydanticProgramMode.FUNCTION}, {"pydantic_program_mode": PydanticProgramMode.LLM}),
        ({}, {"completion_to_prompt": shouted_prompt}),
    ],
    ids=["pydantic_program_mode", "completion_to_prompt"],
)
def test_llama_index_settings_outside_the_decoding_ones_are_in_the_id(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    assert _openai(**one).model_id != _openai(**other).model_id


def test_plumbing_and_the_key_are_not_in_the_id() -> None:
    plain = _openai()
    assert plain.model_id == _openai(timeout=5.0, max_retries=9, reuse_client=False).model_id
    assert "sk-secret-value" not in plain.model_id and "shouted_prompt" not in plain.model_id
    assert plain.stable_identity


def test_a_prompt_function_without_a_stable_name_leaves_the_model_uncached() -> None:
    assert not _openai(completion_to_prompt=lambda prompt: prompt).stable_identity


def test_a_tokenizer_object_neither_enters_the_id_nor_stops_caching() -> None:
    class Tokenizer:
        def __call__(self, text: str) -> list[int]:
            return [len(text)]

    wrapped = LlamaIndexLLM(SizedLLM(tokenizer=Tokenizer()))
    assert wrapped.stable_identity and wrapped.model_id == LlamaIndexLLM(SizedLLM()).model_id
