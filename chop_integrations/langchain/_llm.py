"""Turns any LangChain chat model into the engines' :class:`~chop_integrations.LLM` protocol.

The wrapper is thin. ``complete`` is the model's ``invoke``; ``complete_json`` is
``with_structured_output(schema)`` where the model supports it (tool calling or
a JSON schema response format), and a text answer parsed as JSON where it does
not; ``batch``/``abatch`` are the model's own, with ``max_concurrency``.

Every call carries a :class:`~langchain_core.runnables.RunnableConfig`: the
caller's callbacks, tags and metadata, plus a run name that says which decision
the call serves (``chop.topic_shift``, ``chop.continuity``, ``chop.cnm``; read
from :data:`chop_integrations._llm.policy.CURRENT_TASK`), so LangSmith or any
callback handler shows our calls by name.

The engines' sync entry points run their async code on a short-lived event
loop (:func:`chop_integrations._llm.run_sync`). Clients such as ``ChatOpenAI``
share one async HTTP client whose connections belong to the first loop that
used them, so on such a loop the wrapper calls the model's sync methods in
daemon threads instead (same concurrency bound, no dead connections). Daemon
threads, not ``asyncio.to_thread``: ``asyncio.run`` joins its executor at
shutdown, so one hung call would hold the run long after its ``timeout``. A model
with no native async (``_agenerate`` not overridden) is called the same way.

Retries: a chat model with ``max_retries > 0`` (``ChatOpenAI``, ``ChatAnthropic``...)
retries transient errors itself, so the wrapper says ``retries_itself = True`` and
the engines' runner makes one attempt per call: under a persistent 429 a decision
costs the client's own attempts (3 requests with ``ChatOpenAI``'s default
``max_retries=2``), never a product of two retry loops. Set ``max_retries=0`` on the
model to let the engines' ``RetryPolicy`` own retries instead.

Usage: every call carries a callback that reads ``AIMessage.usage_metadata``, so
the usage report holds the provider's token counts where it sends them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import LLMResult
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel

from .._errors import ConfigurationError, LLMAnswerError
from .._llm.aio import IN_RUN_SYNC, acall_in_daemon_thread
from .._llm.policy import CURRENT_TASK
from .._llm.protocol import CALL_USAGE, register_adapter, report_usage
from .._llm.replies import NO_OBJECT, malformed_replies, no_object, parse_json_answer
from ._model_info import client_retries, langchain_model_id, message_text

logger = logging.getLogger("chop_integrations")

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class _UsageCallback(BaseCallbackHandler):
    """Passes the provider's token counts (``AIMessage.usage_metadata``) of each model run to the runner."""

    run_inline = True  # in the call's own context (the runner's CallUsage), never in an executor thread

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    report_usage(usage.get("input_tokens"), usage.get("output_tokens"))


_USAGE_CALLBACK = _UsageCallback()


class _Probe(BaseModel):
    """A tiny schema used to ask a model whether it supports structured output."""

    ok: bool


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
        retries_itself: True when the model retries transient errors itself (``max_retries > 0``);
            the engines then make one attempt per call (see the module docstring).

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
        self.retries_itself = client_retries(model) > 0
        self._native_async = type(model)._agenerate is not BaseChatModel._agenerate
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
                (:data:`~chop_integrations._llm.policy.CURRENT_TASK`), else ``"llm"``.
            **extra: More config keys (for example ``max_concurrency``).
        """
        task = task or CURRENT_TASK.get() or "llm"
        config: dict[str, Any] = dict(self.config)
        config["run_name"] = f"{self.run_name_prefix}.{task}"
        config["tags"] = [*config.get("tags", []), self.run_name_prefix]
        config["metadata"] = {**config.get("metadata", {}), "chop_task": task}
        if CALL_USAGE.get() is not None:  # inside a runner call: collect the provider's token counts
            config["callbacks"] = _with_handler(config.get("callbacks"), _USAGE_CALLBACK)
        config.update(extra)
        return config  # type: ignore[return-value]

    # -- the LLM protocol ------------------------------------------------------------------------

    def complete(self, prompt: str) -> str:
        """Answer one prompt with the model's ``invoke``.

        Raises:
            LLMResponseError: When the provider's reply was no chat completion (no choices, an HTML body).
        """
        with malformed_replies(self.model_id):
            return message_text(self.model.invoke(prompt, config=self.run_config()))

    async def acomplete(self, prompt: str) -> str:
        """Answer one prompt with the model's ``ainvoke`` (its ``invoke`` in a daemon thread, see the module doc).

        Raises:
            LLMResponseError: When the provider's reply was no chat completion.
        """
        if IN_RUN_SYNC.get() or not self._native_async:
            return await acall_in_daemon_thread(self.complete, prompt)
        with malformed_replies(self.model_id):
            return message_text(await self.model.ainvoke(prompt, config=self.run_config()))

    def complete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Answer with an instance of ``schema`` through ``with_structured_output``.

        A model without structured output (``NotImplementedError``) is asked in text, parsed
        as JSON. An answer without a valid object is never re-asked here: it raises, and the
        engines' failure policy sends its corrective retry.

        Raises:
            LLMAnswerError: When the model answered without a valid ``schema`` object.
        """
        try:
            result = self._structured(schema).invoke(prompt, config=self.run_config())
        except NotImplementedError:
            self._disable_structured()
            return parse_json_answer(self.complete(prompt), schema)
        except NO_OBJECT as exc:  # the model answered, but not with a valid object
            raise no_object(exc, schema, self.model_id) from exc
        return _validated(result, schema)

    async def acomplete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Async :meth:`complete_json` via ``ainvoke``.

        Raises:
            LLMAnswerError: When the model answered without a valid ``schema`` object.
        """
        if IN_RUN_SYNC.get() or not self._native_async:
            return await acall_in_daemon_thread(self.complete_json, prompt, schema)
        try:
            result = await self._structured(schema).ainvoke(prompt, config=self.run_config())
        except NotImplementedError:
            self._disable_structured()
            return parse_json_answer(await self.acomplete(prompt), schema)
        except NO_OBJECT as exc:
            raise no_object(exc, schema, self.model_id) from exc
        return _validated(result, schema)

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


def _with_handler(callbacks: Any, handler: BaseCallbackHandler) -> Any:
    """``callbacks`` (a list, a manager or None) plus ``handler``, without changing the caller's object."""
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=False)
        return manager
    return [*(callbacks or []), handler]


def _validated(result: Any, schema: type[SchemaT]) -> SchemaT:
    """``result`` as a ``schema`` instance.

    Raises:
        LLMAnswerError: When it is None or does not validate.
    """
    if isinstance(result, schema):
        return result
    if result is None:
        raise LLMAnswerError(f"the model returned no {schema.__name__} object")
    try:
        return schema.model_validate(result)
    except ValueError as exc:
        raise LLMAnswerError(f"the answer does not match {schema.__name__}: {str(exc)[:300]}") from exc


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


register_adapter("langchain", LangChainLLM)
