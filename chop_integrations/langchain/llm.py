"""Turns any LangChain chat model into the engines' :class:`~chop_integrations.llm.LLM` protocol.

The wrapper is thin. ``complete`` is the model's ``invoke``; ``complete_json`` is
``with_structured_output(schema)`` where the model supports it (tool calling or
a JSON schema response format), and a text answer parsed as JSON where it does
not; ``batch``/``abatch`` are the model's own, with ``max_concurrency``.

Every call carries a :class:`~langchain_core.runnables.RunnableConfig`: the
caller's callbacks, tags and metadata, plus a run name that says which decision
the call serves (``chop.topic_shift``, ``chop.continuity``, ``chop.cnm``; read
from :data:`chop_integrations.policy.CURRENT_TASK`), so LangSmith or any
callback handler shows our calls by name.

The engines' sync entry points run their async code on a short-lived event
loop (:func:`chop_integrations.llm.run_sync`). Clients such as ``ChatOpenAI``
share one async HTTP client whose connections belong to the first loop that
used them, so on such a loop the wrapper calls the model's sync methods in
worker threads instead (same concurrency bound, no dead connections).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, SecretStr

from ..errors import ConfigurationError, LLMAnswerError
from ..llm import IN_RUN_SYNC
from ..parsing import parse_model
from ..policy import CURRENT_TASK

logger = logging.getLogger("chop_integrations")

SchemaT = TypeVar("SchemaT", bound=BaseModel)

_SECRET_WORDS = ("key", "token", "secret", "password", "credential")

#: What a structured call raises when the model answered without a valid object (parser errors,
#: pydantic validation errors and missing tool calls); transport errors are not among them and
#: reach the runner, which retries them.
_NO_OBJECT = (ValueError, KeyError, IndexError, TypeError, LLMAnswerError)


class _Probe(BaseModel):
    """A tiny schema used to ask a model whether it supports structured output."""

    ok: bool


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return f"<{type(value).__name__}>"  # never a repr with a memory address: ids must be stable


_ANSWER_SETTINGS = ("max_tokens", "openai_api_base", "base_url", "top_p", "seed", "reasoning_effort")


def langchain_model_id(model: BaseChatModel) -> str:
    """A stable identity of a chat model: class, provider type, model name and decoding settings.

    It is part of every answer-cache key, so two models (or one model at two
    temperatures) never share cached answers. Secrets never enter it.
    """
    try:
        params = dict(model._identifying_params)
    except Exception:  # a half-configured model: identity from the class alone
        params = {}
    # Settings that change answers but that some providers leave out of _identifying_params
    # (ChatOpenAI omits max_tokens and the endpoint): two endpoints never share cached answers.
    for name in _ANSWER_SETTINGS:
        value = getattr(model, name, None)
        if value is not None and name not in params:
            params[name] = value
    try:
        kind = model._llm_type
    except Exception:
        kind = "chat"
    clean = {
        k: _jsonable(v)
        for k, v in params.items()
        if not isinstance(v, SecretStr) and not any(word in k.lower() for word in _SECRET_WORDS)
    }
    suffix = json.dumps(clean, sort_keys=True) if clean else ""
    return f"langchain:{type(model).__name__}:{kind}{suffix}"


def message_text(message: Any) -> str:
    """The text of a chat model's answer (a string, or the text blocks of a content list)."""
    if isinstance(message, BaseMessage):
        content: Any = message.content
    else:
        content = message
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in ("text", None):
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else str(content)


def parse_json_answer(text: str, schema: type[SchemaT]) -> SchemaT:
    """Parse a text answer into ``schema`` with the core's tolerant parser.

    Raises:
        LLMAnswerError: When the answer holds no JSON that validates against ``schema``.
    """
    result = parse_model(text, schema)
    if isinstance(result, str):
        raise LLMAnswerError(result)
    return result


class LangChainLLM:
    """Makes a LangChain ``BaseChatModel`` usable by :class:`~chop_integrations.LumberChunker` and CHOP.

    Args:
        model: Any LangChain chat model (``ChatOpenAI``, ``ChatAnthropic``, ``ChatOllama``, a fake...).
        config: A ``RunnableConfig`` merged into every call: callbacks, tags, metadata.
        run_name_prefix: Run names are ``<prefix>.<task>``, e.g. ``chop.topic_shift``.
        structured: Use ``with_structured_output`` for schema-bound questions. ``None``
            (default) asks the model: models whose ``with_structured_output`` raises
            ``NotImplementedError`` answer in text, which the engines parse (with
            their corrective retry on an unparsable answer). ``False`` never uses it.
        structured_method: ``method=`` for ``with_structured_output`` (``"json_schema"``,
            ``"function_calling"``, ``"json_mode"``); ``None`` keeps the model's default.
        max_concurrency: Upper bound on concurrent calls in :meth:`batch` / :meth:`abatch`.

    Attributes:
        model: The wrapped chat model.
        model_id: ``langchain:<class>:<type>{identifying params}`` (see :func:`langchain_model_id`).
        structured: Whether ``complete_json`` uses ``with_structured_output``.

    Raises:
        ConfigurationError: When ``model`` is not a LangChain chat model, or an option is invalid.
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        config: RunnableConfig | None = None,
        run_name_prefix: str = "chop",
        structured: bool | None = None,
        structured_method: str | None = None,
        max_concurrency: int = 8,
    ) -> None:
        if not isinstance(model, BaseChatModel):
            raise ConfigurationError(
                f"LangChainLLM wraps a langchain_core BaseChatModel, got {type(model).__name__}; "
                "pass plain callables to chop_integrations.CallableLLM instead"
            )
        if max_concurrency < 1:
            raise ConfigurationError(f"max_concurrency must be >= 1, got {max_concurrency}")
        self.model = model
        self.model_id = langchain_model_id(model)
        self.config: RunnableConfig = dict(config or {})  # type: ignore[assignment]
        self.run_name_prefix = run_name_prefix
        self.structured_method = structured_method
        self.max_concurrency = max_concurrency
        self._structured_runnables: dict[type[BaseModel], Runnable[Any, Any]] = {}
        self.structured = self._supports_structured() if structured is None else structured
        if not self.structured:
            # The runner calls complete_json only where it is callable: text answers then
            # go through the engine's own parser and its corrective retry.
            self.complete_json = None  # type: ignore[assignment]
            self.acomplete_json = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LangChainLLM({self.model_id!r}, structured={self.structured})"

    # -- config and structured runnables ---------------------------------------------------------

    def _supports_structured(self) -> bool:
        try:
            self._structured(_Probe)
        except NotImplementedError:
            return False
        return True

    def _structured(self, schema: type[SchemaT]) -> Runnable[Any, Any]:
        runnable = self._structured_runnables.get(schema)
        if runnable is None:
            kwargs: dict[str, Any] = {} if self.structured_method is None else {"method": self.structured_method}
            runnable = self.model.with_structured_output(schema, **kwargs)
            self._structured_runnables[schema] = runnable
        return runnable

    def run_config(self, task: str | None = None, **extra: Any) -> RunnableConfig:
        """The config of one call: the caller's config plus our run name, tags and metadata.

        Args:
            task: The decision the call serves; defaults to the one in progress
                (:data:`~chop_integrations.policy.CURRENT_TASK`), else ``"llm"``.
            **extra: More config keys (for example ``max_concurrency``).
        """
        task = task or CURRENT_TASK.get() or "llm"
        config: dict[str, Any] = dict(self.config)
        config["run_name"] = f"{self.run_name_prefix}.{task}"
        config["tags"] = [*config.get("tags", []), self.run_name_prefix]
        config["metadata"] = {**config.get("metadata", {}), "chop_task": task}
        config.update(extra)
        return config  # type: ignore[return-value]

    # -- the LLM protocol ------------------------------------------------------------------------

    def complete(self, prompt: str) -> str:
        """Answer one prompt with the model's ``invoke``."""
        return message_text(self.model.invoke(prompt, config=self.run_config()))

    async def acomplete(self, prompt: str) -> str:
        """Answer one prompt with the model's ``ainvoke`` (its ``invoke`` in a thread under a sync entry point)."""
        if IN_RUN_SYNC.get():
            return await asyncio.to_thread(self.complete, prompt)
        return message_text(await self.model.ainvoke(prompt, config=self.run_config()))

    def complete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Answer with an instance of ``schema``: ``with_structured_output``, else text parsed as JSON.

        Raises:
            LLMAnswerError: When neither the structured call nor the text answer gives a valid object.
        """
        try:
            result = self._structured(schema).invoke(prompt, config=self.run_config())
            return _validated(result, schema)
        except NotImplementedError:
            self._disable_structured()
        except _NO_OBJECT as exc:  # the model answered, but not with a valid object
            logger.info("structured output failed (%s: %s); parsing a text answer instead", type(exc).__name__, exc)
        return parse_json_answer(self.complete(prompt), schema)

    async def acomplete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Async :meth:`complete_json` via ``ainvoke``.

        Raises:
            LLMAnswerError: When neither the structured call nor the text answer gives a valid object.
        """
        if IN_RUN_SYNC.get():
            return await asyncio.to_thread(self.complete_json, prompt, schema)
        try:
            result = await self._structured(schema).ainvoke(prompt, config=self.run_config())
            return _validated(result, schema)
        except NotImplementedError:
            self._disable_structured()
        except _NO_OBJECT as exc:
            logger.info("structured output failed (%s: %s); parsing a text answer instead", type(exc).__name__, exc)
        return parse_json_answer(await self.acomplete(prompt), schema)

    def _disable_structured(self) -> None:
        logger.info("%s does not support with_structured_output; parsing text answers", type(self.model).__name__)
        self.structured = False

    # -- batches ---------------------------------------------------------------------------------

    def batch(self, prompts: Sequence[str], *, task: str | None = None) -> list[str]:
        """Answer many prompts with the model's ``batch``, at most ``max_concurrency`` at once, in order."""
        if not prompts:
            return []
        config = self.run_config(task, max_concurrency=self.max_concurrency)
        return [message_text(m) for m in self.model.batch(list(prompts), config=config)]

    async def abatch(self, prompts: Sequence[str], *, task: str | None = None) -> list[str]:
        """Answer many prompts with the model's ``abatch``, at most ``max_concurrency`` at once, in order."""
        if not prompts:
            return []
        config = self.run_config(task, max_concurrency=self.max_concurrency)
        return [message_text(m) for m in await self.model.abatch(list(prompts), config=config)]


def _validated(result: Any, schema: type[SchemaT]) -> SchemaT:
    if isinstance(result, schema):
        return result
    if result is None:
        raise LLMAnswerError(f"the model returned no {schema.__name__} object")
    return schema.model_validate(result)


def wrap_llm(llm: Any, config: RunnableConfig | None) -> Any:
    """Wrap a LangChain chat model with :class:`LangChainLLM` (with ``config``); pass anything else through.

    Raises:
        ConfigurationError: When ``config`` is given but ``llm`` is not a chat model.
    """
    if isinstance(llm, BaseChatModel):
        return LangChainLLM(llm, config=config)
    if config is not None:
        raise ConfigurationError("llm_config applies to LangChain chat models only; pass llm=<a BaseChatModel>")
    return llm
