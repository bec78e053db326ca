"""What the LangChain wrapper reads off a chat model: its identity (cache keys), its retries, an answer's text."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import SecretStr

_SECRET_WORDS = ("key", "token", "secret", "password", "credential")


def client_retries(model: Any) -> int:
    """How many times the model's client retries by itself (its ``max_retries``; 0 when it has none).

    ``ChatOpenAI(max_retries=None)`` (its default) leaves the number to the OpenAI SDK client
    (2), so the SDK client's own setting is read then.
    """
    value = getattr(model, "max_retries", None)
    if value is None:
        value = getattr(getattr(model, "root_client", None), "max_retries", None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


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
