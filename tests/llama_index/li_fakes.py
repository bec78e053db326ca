"""A scripted LlamaIndex CustomLLM for the adapter tests (MockLLM only echoes)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback

from tests.support.openai_server import text_answer


class ScriptedCustomLLM(CustomLLM):
    """A LlamaIndex CustomLLM that answers with ``responder(prompt)`` and records every prompt.

    MockLLM only echoes; this one answers our prompts the way the local test
    server does (``text_answer``), or with any function a test passes.
    """

    responder: Callable[[str], str] = Field(default=text_answer, exclude=True)
    model_name: str = Field(default="scripted-custom")
    temperature: float = Field(default=0.0)
    _prompts: list[str] = PrivateAttr(default_factory=list)
    delay: float = Field(default=0.0, description="Seconds each async answer waits (to observe concurrency).")
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _async_calls: int = PrivateAttr(default=0)
    _in_flight: int = PrivateAttr(default=0)
    _max_in_flight: int = PrivateAttr(default=0)

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    @property
    def async_calls(self) -> int:
        return self._async_calls

    @property
    def max_in_flight(self) -> int:
        return self._max_in_flight

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name=self.model_name, is_chat_model=False, is_function_calling_model=False)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        with self._lock:
            self._prompts.append(prompt)
        return CompletionResponse(text=self.responder(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt, formatted=formatted, **kwargs)

    @llm_completion_callback()
    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        with self._lock:
            self._prompts.append(prompt)
            self._async_calls += 1
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            await asyncio.sleep(self.delay)
            return CompletionResponse(text=self.responder(prompt))
        finally:
            with self._lock:
                self._in_flight -= 1
