"""The LLM protocol the engines see, plus the adapter for plain callables.

The engines never talk to a provider: they see an object with ``complete`` and
``acomplete`` (prompt in, text out) and, optionally, ``complete_json`` /
``acomplete_json`` (prompt and pydantic schema in, validated object out). The
LangChain and LlamaIndex wrappers live in their own sub-packages.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from .._errors import ConfigurationError, LLMResponseError
from .aio import acall_in_daemon_thread, run_sync
from .identity import callable_is_stable

SchemaT = TypeVar("SchemaT", bound=BaseModel)


@runtime_checkable
class LLM(Protocol):
    """What the engines need from a language model: text in, text out.

    Attributes:
        model_id: A stable identity of the model and its decoding settings; it
            is part of every cache key, so two models never share answers.
    """

    model_id: str

    def complete(self, prompt: str) -> str:
        """Answer one prompt synchronously."""
        ...

    async def acomplete(self, prompt: str) -> str:
        """Answer one prompt asynchronously."""
        ...


@runtime_checkable
class StructuredLLM(LLM, Protocol):
    """An LLM that can also return an object validated against a pydantic schema."""

    def complete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:
        """Answer one prompt with an instance of ``schema``."""
        ...

    async def acomplete_json(self, prompt: str, schema: type[SchemaT]) -> SchemaT:
        """Answer one prompt asynchronously with an instance of ``schema``."""
        ...


def supports_structured(llm: LLM) -> bool:
    """True when ``llm`` offers ``complete_json`` and ``acomplete_json``."""
    return callable(getattr(llm, "complete_json", None)) and callable(getattr(llm, "acomplete_json", None))


class CallableLLM:
    """Turns a plain ``Callable[[str], str]`` (or an async one) into an :class:`LLM`.

    A sync function is run in a daemon worker thread on the async path (so a
    call abandoned after a timeout never blocks the event loop's shutdown); an async
    function is run on a private event loop on the sync path.

    Args:
        fn: The function that answers a prompt.
        model_id: Identity for cache keys: name the model and every setting that changes its
            answers. Defaults to the function's qualified name, which keys a cache only for a
            module-level function: a ``functools.partial``, a lambda, a nested function or a
            callable object without ``model_id`` is not cached (one warning says so).

    Attributes:
        stable_identity: False when ``model_id`` was not given and the function's name does not
            tell it apart from others (:func:`~chop_integrations._llm.identity.callable_is_stable`).
    """

    def __init__(
        self,
        fn: Callable[[str], str] | Callable[[str], Awaitable[str]],
        *,
        model_id: str | None = None,
    ) -> None:
        if not callable(fn):
            raise ConfigurationError(f"llm must be callable or implement the LLM protocol, got {type(fn).__name__}")
        self._fn = fn
        call = getattr(type(fn), "__call__", None)  # noqa: B004 - async __call__ of a callable object
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
        name = getattr(fn, "__qualname__", type(fn).__qualname__)
        self.model_id = model_id or f"callable:{getattr(fn, '__module__', type(fn).__module__)}.{name}"
        self.stable_identity = bool(model_id) or callable_is_stable(fn)
        self.warned_unstable = False

    def complete(self, prompt: str) -> str:
        """Call the function and return its answer as a string."""
        if self._is_async:
            return str(run_sync(self._fn(prompt)))  # type: ignore[arg-type]
        return str(self._fn(prompt))

    async def acomplete(self, prompt: str) -> str:
        """Await the function (or run a sync one in a thread) and return its answer."""
        if self._is_async:
            return str(await self._fn(prompt))  # type: ignore[misc]
        return str(await acall_in_daemon_thread(self._fn, prompt))  # a hung call must not block shutdown


def as_llm(obj: Any) -> LLM | None:
    """Coerce what a user passed as ``llm=`` into the :class:`LLM` protocol.

    Accepts ``None`` (the offline decider is used), an object that already has
    ``complete``/``acomplete``, a LangChain chat model or LlamaIndex LLM (wrapped
    by the matching adapter, imported only then), or a plain callable.

    Raises:
        ConfigurationError: When ``obj`` is none of these.
    """
    if obj is None:
        return None
    protocol = ("complete", "acomplete")
    if all(callable(getattr(obj, name, None)) for name in protocol) and hasattr(obj, "model_id"):
        return obj  # type: ignore[no-any-return]
    framework = _framework(obj)
    if framework is not None:
        if framework not in _ADAPTERS:
            importlib.import_module(ADAPTER_MODULES[framework])  # the adapter registers itself
        return _ADAPTERS[framework](obj)
    if callable(obj):
        return CallableLLM(obj)
    raise ConfigurationError(
        f"llm must be None, a callable (prompt -> text), an object with complete/acomplete/model_id, "
        f"a LangChain chat model or a LlamaIndex LLM; got {type(obj).__name__}"
    )


#: The wrappers of framework objects, by framework (``"langchain"``, ``"llama_index"``): each adapter module calls
#: :func:`register_adapter` when imported, so the core never imports an adapter.
_ADAPTERS: dict[str, Callable[[Any], LLM]] = {}
#: Where the adapter of each framework lives; :func:`as_llm` imports it the first time it meets such an object.
ADAPTER_MODULES = {"langchain": "chop_integrations.langchain._llm", "llama_index": "chop_integrations.llama_index._llm"}


def register_adapter(framework: str, wrap: Callable[[Any], LLM]) -> None:
    """Make :func:`as_llm` wrap the framework's model objects with ``wrap`` (called by the adapter modules)."""
    _ADAPTERS[framework] = wrap


def _framework(obj: Any) -> str | None:
    """``"langchain"`` for a LangChain chat model, ``"llama_index"`` for a LlamaIndex LLM, by module and base names."""
    module = type(obj).__module__ or ""
    if module.startswith(("langchain", "langchain_core")) or _has_base(obj, "BaseChatModel"):
        return "langchain"
    if module.startswith("llama_index") or _has_base(obj, "BaseLLM"):
        return "llama_index"
    return None


def _has_base(obj: Any, name: str) -> bool:
    return any(cls.__name__ == name for cls in type(obj).__mro__)


_T = TypeVar("_T")


@dataclass
class CallUsage:
    """Token counts a provider reported for one call (filled in by the framework wrappers).

    Attributes:
        prompt_tokens: Prompt tokens the provider billed, or None when it said nothing.
        completion_tokens: Completion tokens the provider billed, or None.
        requests: HTTP requests the client was seen sending for the call (its own retries included);
            0 when none could be observed (see :mod:`chop_integrations._llm.observe`).
    """

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    requests: int = 0

    @property
    def reported(self) -> bool:
        """True when the provider reported the prompt tokens of the call."""
        return self.prompt_tokens is not None

    @property
    def sent(self) -> int:
        """Requests the call cost: the client's own retries where it was seen sending them, else one."""
        return max(1, self.requests)


#: The :class:`CallUsage` of the call in progress: the runner sets a fresh one per attempt, the
#: wrappers add what the provider reported. Context variables follow the call into worker threads
#: and tasks, so concurrent calls never mix their counts.
CALL_USAGE: ContextVar[CallUsage | None] = ContextVar("chop_call_usage", default=None)


def report_usage(prompt_tokens: Any, completion_tokens: Any) -> None:
    """Add provider-reported token counts to the call in progress (ignored outside one, or when not ints)."""
    holder = CALL_USAGE.get()
    if holder is None or not isinstance(prompt_tokens, int) or isinstance(prompt_tokens, bool):
        return
    holder.prompt_tokens = (holder.prompt_tokens or 0) + prompt_tokens
    if isinstance(completion_tokens, int) and not isinstance(completion_tokens, bool):
        holder.completion_tokens = (holder.completion_tokens or 0) + completion_tokens


def report_request() -> None:
    """Count one HTTP request of the call in progress (ignored outside one)."""
    holder = CALL_USAGE.get()
    if holder is not None:
        holder.requests += 1


#: What a client raises when a provider's reply is not a chat completion: ``choices`` empty
#: (IndexError), an HTML page instead of JSON (``'str' object has no attribute 'choices'``, or
#: langchain-openai's "Unexpected response type" ValueError), a missing field (KeyError / TypeError).
MALFORMED_REPLY = (IndexError, AttributeError, KeyError, TypeError)
_MALFORMED_WORDS = ("<html", "'str' object", "unexpected response type", "choices", "nonetype")


def looks_malformed(exc: BaseException) -> bool:
    """True when ``exc`` says the provider's reply was no chat completion (not that the answer was bad)."""
    if isinstance(exc, (IndexError, AttributeError)):
        return True
    text = str(exc).lower()
    return any(word in text for word in _MALFORMED_WORDS)


def malformed_reply(exc: BaseException, model_id: str) -> LLMResponseError:
    """A clear :class:`LLMResponseError` for a reply that was not a usable chat completion."""
    text = str(exc)
    lowered = text.lower()
    if "<html" in lowered or "'str' object" in lowered or "unexpected response type" in lowered:
        what = "the reply body was not a JSON chat completion (an HTML page from a proxy or gateway?)"
    elif isinstance(exc, IndexError) or "choices" in lowered:
        what = "the completion had no choices"
    else:
        what = "the completion lacks a field the client needs"
    error = LLMResponseError(f"malformed reply from {model_id}: {what} ({type(exc).__name__}: {text[:200]})")
    error.__cause__ = exc
    return error
