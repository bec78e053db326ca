"""Seeing the HTTP requests a model's client sends, its own retries included.

A client that retries by itself (``ChatOpenAI`` with ``max_retries > 0``) may send several HTTP
requests for one call of ours. Where the model holds ``httpx`` clients (the OpenAI and Anthropic
SDKs and the LangChain and LlamaIndex models built on them), :func:`watch_requests` adds a request
event hook to each: it counts the request into the :class:`~chop_integrations._llm.protocol.CallUsage`
of the call in progress, and does nothing outside our calls, so the client works as before for
everyone else. Where no such client can be found, nothing is counted here and the runner counts
one request per attempt (and says so when the client retries by itself).
"""

from __future__ import annotations

from typing import Any

from .protocol import report_request

#: Attributes that hold a model, an SDK client or an ``httpx`` client, searched a few levels deep:
#: ``LangChainLLM.model.root_client._client`` (``ChatOpenAI``), ``LlamaIndexLLM.llm._client``...
_HOLDERS = (
    "model",
    "llm",
    "root_client",
    "root_async_client",
    "client",
    "async_client",
    "_client",
    "_async_client",
    "_aclient",
    "http_client",
    "http_async_client",
)
_DEPTH = 4


def _count(request: object) -> None:
    report_request()


async def _acount(request: object) -> None:
    report_request()


def _httpx_kind(value: object) -> str | None:
    """``"sync"`` or ``"async"`` for an ``httpx`` client (or a subclass, as the SDKs use), else None."""
    for cls in type(value).__mro__:
        if cls.__module__.startswith("httpx"):
            if cls.__name__ == "AsyncClient":
                return "async"
            if cls.__name__ == "Client":
                return "sync"
    return None


def _clients(obj: object, depth: int, found: dict[int, Any]) -> None:
    for name in _HOLDERS:
        try:
            value = getattr(obj, name, None)
        except Exception:  # a property of a third-party object may raise: nothing to watch there
            continue
        if value is None or isinstance(value, (str, bytes, int, float, bool)) or id(value) in found:
            continue
        if _httpx_kind(value) is not None:
            found[id(value)] = value
        elif depth > 1:
            _clients(value, depth - 1, found)


def watch_requests(llm: object) -> bool:
    """Count every HTTP request of ``llm``'s ``httpx`` clients into the call in progress.

    Idempotent: a client already watched is left as it is.

    Returns:
        True when at least one client is watched.
    """
    found: dict[int, Any] = {}
    _clients(llm, _DEPTH, found)
    for client in found.values():
        hook = _acount if _httpx_kind(client) == "async" else _count
        hooks = client.event_hooks["request"]  # the client's own list: appended to in place
        if hook not in hooks:
            hooks.append(hook)
    return bool(found)
