"""Turns any LlamaIndex LLM into the engines' :class:`~chop_integrations.llm.LLM` protocol.

The wrapper is thin: ``complete`` goes to the LLM's ``chat`` (chat models) or
``complete``; ``complete_json`` goes to ``structured_predict`` where the model
supports function calling and falls back to a text answer parsed as JSON
otherwise. Because every call goes through the LLM's own public methods, its
callback manager and LlamaIndex instrumentation (spans and events) see every
call exactly as they would in a query engine.
"""

from __future__ import annotations

import json
import logging
from typing import Any, TypeVar

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM as LlamaLLM
from llama_index.core.prompts import PromptTemplate
from pydantic import BaseModel

from ..errors import ConfigurationError, LLMAnswerError
from ..parsing import parse_model

logger = logging.getLogger("chop_integrations")

SchemaT = TypeVar("SchemaT", bound=BaseModel)

#: Attributes of a LlamaIndex LLM that change its answers; they are part of ``model_id``.
DECODING_FIELDS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "max_new_tokens",
    "seed",
    "reasoning_effort",
    "additional_kwargs",
    "system_prompt",
)

def _prompt() -> PromptTemplate:
    """A fresh pass-through template for each call.

    LlamaIndex's text-completion program sets an output parser on the template it
    is given; a shared template would carry its JSON-schema instructions into every
    later call, function-calling models included.
    """
    return PromptTemplate("{text}")


def llama_model_id(llm: Any) -> str:
    """A stable identity of a LlamaIndex LLM: class, model name and decoding settings.

    Two LLMs with the same identity must give the same answers to the same
    prompt; the identity is part of every answer-cache key and of the
    IngestionPipeline cache key of our transformations.
    """
    try:
        name = llm.metadata.model_name
    except Exception:  # a half-configured LLM: identity from the class alone
        name = getattr(llm, "model", None) or "unknown"
    try:
        kind = llm.class_name()
    except Exception:
        kind = type(llm).__name__
    params = {}
    for field in DECODING_FIELDS:
        value = getattr(llm, field, None)
        if value not in (None, {}, ""):
            params[field] = value
    suffix = json.dumps(params, sort_keys=True, default=str) if params else ""
    return f"llama_index:{kind}:{name}{suffix}"


class LlamaIndexLLM:
    """Makes a LlamaIndex ``LLM`` usable by :class:`~chop_integrations.LumberChunker` and CHOP.

    Args:
        llm: Any ``llama_index.core.llms.LLM`` (OpenAI, Ollama, a ``CustomLLM``...).
        structured: Use ``structured_predict`` for schema-bound questions.
            ``None`` (default) decides from ``llm.metadata.is_function_calling_model``:
            function-calling models answer through a tool call; other models
            answer in text, which the engines parse (with their corrective
            retry on an unparsable answer). ``False`` hides ``complete_json``.

    Attributes:
        llm: The wrapped LlamaIndex LLM.
        model_id: ``llama_index:<class>:<model>{decoding settings}`` (see :func:`llama_model_id`).

    Raises:
        ConfigurationError: When ``llm`` is not a LlamaIndex LLM.
    """

    def __init__(self, llm: Any, *, structured: bool | None = None) -> None:
        if not isinstance(llm, LlamaLLM):
            raise ConfigurationError(
                f"LlamaIndexLLM wraps a llama_index.core.llms.LLM, got {type(llm).__name__}; "
                "pass plain callables to chop_integrations.CallableLLM instead"
            )
        self.llm = llm
        self.model_id = llama_model_id(llm)
        if structured is None:
            structured = bool(getattr(llm.metadata, "is_function_calling_model", False))
        self.structured = structured
        if not structured:
            # The runner calls complete_json only where it is callable: text answers then
            # go through the engine's own parser and its corrective retry.
            self.complete_json = None  # type: ignore[assignment]
            self.acomplete_json = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LlamaIndexLLM({self.model_id!r}, structured={self.structured})"

    @property
    def _chat(self) -> bool:
        return bool(getattr(self.llm.metadata, "is_chat_model", False))

    def complete(self, prompt: str) -> str:
        """Answer one prompt with the LLM's ``chat`` (chat models) or ``complete``."""
        if self._chat:
            response = self.llm.chat([ChatMessage(role=MessageRole.USER, content=prompt)])
            return response.message.content or ""
        return self.llm.complete(prompt).text

    async def acomplete(self, prompt: str) -> str:
        """Answer one prompt with the LLM's ``achat`` (chat models) or ``acomplete``."""
        if self._chat:
            response = await self.llm.achat([ChatMessage(role=MessageRole.USER, content=prompt)])
            return response.message.content or ""
        return (await self.llm.acomplete(prompt)).text

    def complete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Answer with an instance of ``schema``: ``structured_predict``, else text parsed as JSON.

        Raises:
            LLMAnswerError: When neither the structured call nor the text answer gives a valid object.
        """
        try:
            return self.llm.structured_predict(schema, _prompt(), text=prompt)
        except Exception as exc:  # the model did not call the tool or sent invalid arguments
            logger.info("structured_predict failed (%s: %s); parsing a text answer instead", type(exc).__name__, exc)
        return parse_json_answer(self.complete(prompt), schema)

    async def acomplete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Async :meth:`complete_json` via ``astructured_predict``.

        Raises:
            LLMAnswerError: When neither the structured call nor the text answer gives a valid object.
        """
        try:
            return await self.llm.astructured_predict(schema, _prompt(), text=prompt)
        except Exception as exc:
            logger.info("astructured_predict failed (%s: %s); parsing a text answer instead", type(exc).__name__, exc)
        return parse_json_answer(await self.acomplete(prompt), schema)


def parse_json_answer(answer: str, schema: type[SchemaT]) -> SchemaT:
    """Validate the first JSON object in a text answer against ``schema``.

    Raises:
        LLMAnswerError: When the answer holds no JSON object valid for ``schema``.
    """
    result = parse_model(answer, schema)
    if isinstance(result, str):
        raise LLMAnswerError(f"{result} (answer: {answer[:200]!r})")
    return result
