"""Turns any LlamaIndex LLM into the engines' :class:`~chop_integrations.LLM` protocol.

The wrapper is thin: ``complete`` goes to the LLM's ``chat`` (chat models) or
``complete``; ``complete_json`` goes to ``structured_predict`` where the model
supports function calling and falls back to a text answer parsed as JSON
otherwise. Because every call goes through the LLM's own public methods, its
callback manager and LlamaIndex instrumentation (spans and events) see every
call exactly as they would in a query engine.

Retries: LlamaIndex's ``OpenAI`` retries twice over (a tenacity loop of
``max_retries`` attempts around an OpenAI client that itself retries
``max_retries`` times: 12 requests per call at the default 3). So the wrapper
calls a copy of an LLM that has a ``max_retries`` field with ``max_retries=0``
and owns the retries itself: ``retry_attempts = 1 + max_retries`` attempts per
call (4 at the default), with backoff and ``Retry-After`` (the engines'
:class:`~chop_integrations.RetryPolicy`; pass ``retry=`` to the engine to
choose otherwise). Non-transient errors are never retried, and a structured call
that fails on the wire is never asked again as text.

Timeouts: a ``CustomLLM`` whose async methods are LlamaIndex's defaults blocks the
event loop in its sync method; the wrapper runs such calls (and every call under
an engine's sync entry point) in daemon threads, so the engines' ``timeout``
bounds them.

Usage: an instrumentation event handler on LlamaIndex's root dispatcher reads the
``usage`` in the ``raw`` response of every LLM end event (OpenAI sends one), structured
calls included, and passes it to the runner's call in progress (a context variable, so
concurrent calls never mix); where none is sent the runner estimates, schema included.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, TypeVar

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.llms.llm import LLM as LlamaLLM
from llama_index.core.prompts import BasePromptTemplate, PromptTemplate
from pydantic import BaseModel

from .._errors import ConfigurationError
from .._llm.aio import IN_RUN_SYNC, acall_in_daemon_thread
from .._llm.identity import callable_is_stable, clean_params
from .._llm.protocol import CALL_USAGE, register_adapter, report_usage
from .._llm.replies import NO_OBJECT, malformed_replies, no_object

logger = logging.getLogger("chop_integrations")

SchemaT = TypeVar("SchemaT", bound=BaseModel)

#: Fields of a LlamaIndex LLM that cannot change an answer (client plumbing, callbacks) or are credentials.
#: Every other field of the LLM's class is part of ``model_id`` (credentials dropped, headers as a digest:
#: :func:`~chop_integrations._llm.identity.clean_params`): a class of one's own is covered as LlamaIndex's are.
PLUMBING_FIELDS = frozenset(
    {
        "callback_manager",
        "rate_limiter",
        "max_retries",
        "timeout",
        "request_timeout",
        "reuse_client",
        "num_workers",
        "api_key",
        "tokenizer",
        "model",
        "model_name",
    }
)


def _prompt() -> PromptTemplate:
    """A fresh pass-through template for each call.

    LlamaIndex's text-completion program sets an output parser on the template it
    is given; a shared template would carry its JSON-schema instructions into every
    later call, function-calling models included.
    """
    return PromptTemplate("{text}")


def llama_model_id(llm: Any) -> str:
    """A stable identity of a LlamaIndex LLM: class, model name and every setting that can change an answer.

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
    params = {name: _setting(value) for name, value in _settings(llm).items()}
    clean = clean_params(params)
    suffix = json.dumps(clean, sort_keys=True) if clean else ""  # clean_params leaves plain JSON data only
    return f"llama_index:{kind}:{name}{suffix}"


def _settings(llm: Any) -> dict[str, Any]:
    """The fields of ``llm``'s class that can change an answer, with their values (unset ones left out)."""
    found = {}
    for name in getattr(type(llm), "model_fields", {}):
        value = getattr(llm, name, None)
        if (
            name not in PLUMBING_FIELDS
            and value is not None
            and not (isinstance(value, (dict, list, str)) and not value)
        ):
            found[name] = value
    return found


def _is_function(value: Any) -> bool:
    """True for a setting that is a function (a pydantic model may be callable, yet it is data)."""
    return callable(value) and not isinstance(value, BaseModel)


def _setting(value: Any) -> Any:
    """A field's value as it enters the id: a function by its qualified name, a prompt by its template."""
    if isinstance(value, BasePromptTemplate):
        return value.get_template()
    if _is_function(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"
    return value


def stable_settings(llm: Any) -> bool:
    """False when a function among ``llm``'s settings has no stable name (a lambda, a partial): no caching."""
    return all(callable_is_stable(value) for value in _settings(llm).values() if _is_function(value))


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
        retry_attempts: Attempts per call the engines make (``1 + max_retries`` of an LLM with
            that field, whose own retries are switched off), or None for the engines' default.

    Raises:
        ConfigurationError: When ``llm`` is not a LlamaIndex LLM.
    """

    def __init__(self, llm: Any, *, structured: bool | None = None) -> None:
        if not isinstance(llm, LlamaLLM):
            raise ConfigurationError(
                f"LlamaIndexLLM wraps a llama_index.core.llms.LLM, got {type(llm).__name__}; "
                "pass plain callables to chop_integrations.CallableLLM instead"
            )
        _install_usage_handler()
        self.model_id = llama_model_id(llm)
        self.stable_identity = stable_settings(llm)
        self.llm, self.retry_attempts = _without_client_retries(llm)
        self._sync_in_async = _async_is_sync(llm)
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
        """Answer one prompt with the LLM's ``chat`` (chat models) or ``complete``.

        Raises:
            LLMResponseError: When the provider's reply was no chat completion (no choices, an HTML body).
        """
        with malformed_replies(self.model_id):
            if self._chat:
                response: Any = self.llm.chat([ChatMessage(role=MessageRole.USER, content=prompt)])
                return response.message.content or ""
            return str(self.llm.complete(prompt).text or "")

    async def acomplete(self, prompt: str) -> str:
        """Answer one prompt with the LLM's ``achat`` (chat models) or ``acomplete``.

        Raises:
            LLMResponseError: When the provider's reply was no chat completion.
        """
        if self._sync_in_async or IN_RUN_SYNC.get():
            return await acall_in_daemon_thread(self.complete, prompt)
        with malformed_replies(self.model_id):
            if self._chat:
                response: Any = await self.llm.achat([ChatMessage(role=MessageRole.USER, content=prompt)])
                return response.message.content or ""
            return str((await self.llm.acomplete(prompt)).text or "")

    def complete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Answer with an instance of ``schema`` through ``structured_predict``.

        Only an answer without a valid object raises :class:`LLMAnswerError` (the engines'
        corrective retry follows); transport errors (a 429, a timeout) pass through to the
        engines' runner unchanged, never re-asked as text.

        Raises:
            LLMAnswerError: When the model answered without a valid ``schema`` object.
        """
        try:
            return self.llm.structured_predict(schema, _prompt(), text=prompt)
        except NO_OBJECT as exc:  # the model did not call the tool or sent invalid arguments
            raise no_object(exc, schema, self.model_id) from exc

    async def acomplete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:  # type: ignore[no-redef]
        """Async :meth:`complete_json` via ``astructured_predict``.

        Raises:
            LLMAnswerError: When the model answered without a valid ``schema`` object.
        """
        if self._sync_in_async or IN_RUN_SYNC.get():
            return await acall_in_daemon_thread(self.complete_json, prompt, schema)
        try:
            return await self.llm.astructured_predict(schema, _prompt(), text=prompt)
        except NO_OBJECT as exc:
            raise no_object(exc, schema, self.model_id) from exc


class _UsageEvents(BaseEventHandler):
    """Passes the token counts of every LLM end event to the runner's call in progress, if any."""

    @classmethod
    def class_name(cls) -> str:
        """Name of the handler in LlamaIndex's instrumentation."""
        return "ChopUsageEvents"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        """Report ``event.response.raw.usage`` of chat and completion end events."""
        if CALL_USAGE.get() is not None and type(event).__name__ in ("LLMChatEndEvent", "LLMCompletionEndEvent"):
            _report(getattr(event, "response", None))


_HANDLER_LOCK = threading.Lock()
_HANDLER: list[_UsageEvents] = []


def _install_usage_handler() -> None:
    """Add :class:`_UsageEvents` to the root dispatcher, once per process."""
    with _HANDLER_LOCK:
        if not _HANDLER:
            _HANDLER.append(_UsageEvents())
            get_dispatcher().add_event_handler(_HANDLER[0])


def _report(response: Any) -> None:
    """Pass the token counts in a response's ``raw`` (an OpenAI completion or a dict) to the runner."""
    raw = getattr(response, "raw", None)
    usage = raw.get("usage") if isinstance(raw, dict) else getattr(raw, "usage", None)
    if usage is None:
        return
    if isinstance(usage, dict):
        report_usage(usage.get("prompt_tokens"), usage.get("completion_tokens"))
    else:
        report_usage(getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None))


def _without_client_retries(llm: Any) -> tuple[Any, int | None]:
    """A copy of ``llm`` with ``max_retries=0`` and the attempts the engines should make instead.

    Only for LLMs with an int ``max_retries`` field above 0; others are returned as they are.
    """
    fields = getattr(type(llm), "model_fields", {})
    retries = getattr(llm, "max_retries", None)
    if "max_retries" not in fields or not isinstance(retries, int) or isinstance(retries, bool) or retries <= 0:
        return llm, None
    copy = llm.model_copy(update={"max_retries": 0})
    for private in ("_client", "_aclient"):  # clients built with the old max_retries must not be reused
        if private in (getattr(copy, "__pydantic_private__", None) or {}):
            setattr(copy, private, None)
    return copy, 1 + retries


def _async_is_sync(llm: Any) -> bool:
    """True when the LLM's async methods are ``CustomLLM``'s defaults, which call the sync ones on the loop."""
    try:
        from llama_index.core.llms.custom import CustomLLM
    except ImportError:  # pragma: no cover - always present with llama-index-core
        return False
    if not isinstance(llm, CustomLLM):
        return False
    chat = bool(getattr(llm.metadata, "is_chat_model", False))
    name = "achat" if chat else "acomplete"
    owner = next((cls for cls in type(llm).__mro__ if name in cls.__dict__), None)
    return owner is CustomLLM  # LlamaIndex's instrumentation wraps methods, so compare owners, not functions


register_adapter("llama_index", LlamaIndexLLM)
