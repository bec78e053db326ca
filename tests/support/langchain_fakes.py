"""LangChain chat-model fakes for unit tests.

The stock fakes (``GenericFakeChatModel``, ``FakeListChatModel``) raise
``NotImplementedError`` from ``with_structured_output``; :class:`StructuredFakeChatModel`
supports it, and :class:`PromptFakeChatModel` answers every prompt the way the local
OpenAI-compatible test server does (so engines get plausible answers in any order).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, Field

from .openai_server import object_for, text_answer


class PromptFakeChatModel(BaseChatModel):
    """Answers from a function of the prompt (by default the test server's answers); records prompts.

    Supports ``with_structured_output``: the structured answer is built from the
    schema and the prompt, as the server does for ``response_format=json_schema``.
    """

    answer: Callable[[str], str] = Field(default=text_answer, exclude=True)
    structured: bool = True
    prompts: list[str] = Field(default_factory=list, exclude=True)

    @property
    def _llm_type(self) -> str:
        return "prompt-fake"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"structured": self.structured}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(prompt)
        schema = kwargs.get("fake_json_schema", {}) or {}
        text = self.answer(prompt)
        if schema.get("schema"):
            text = json.dumps(object_for(schema["schema"], prompt))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable[Any, Any]:
        """Bind ``schema``: the model answers with JSON for it, parsed into an instance."""
        if not self.structured:
            raise NotImplementedError("this fake answers in text only")
        json_schema = schema.model_json_schema()
        bound = self.bind(fake_json_schema={"schema": json_schema})
        return bound | RunnableLambda(lambda message: schema.model_validate_json(message.content))


class StructuredFakeChatModel(PromptFakeChatModel):
    """Answers with a script (in order) and supports ``with_structured_output`` by parsing the scripted text."""

    script: list[str] = Field(default_factory=list)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.prompts.append("\n".join(str(m.content) for m in messages))
        text = self.script.pop(0) if self.script else ""
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


class Verdict(BaseModel):
    """A small schema for tests."""

    continues: bool
