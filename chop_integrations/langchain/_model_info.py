"""What the LangChain wrapper reads off a chat model: its identity (cache keys), its retries, an answer's text."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from .._llm.identity import clean_params


def client_retries(model: Any) -> int:
    """How many times the model's client retries by itself (its ``max_retries``; 0 when it has none).

    ``ChatOpenAI(max_retries=None)`` (its default) leaves the number to the OpenAI SDK client
    (2), so the SDK client's own setting is read then.
    """
    value = getattr(model, "max_retries", None)
    if value is None:
        value = getattr(getattr(model, "root_client", None), "max_retries", None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


#: Settings that change answers but that some providers leave out of ``_identifying_params``
#: (``ChatOpenAI`` omits ``max_tokens``, the endpoint, the headers and the API it calls).
_ANSWER_SETTINGS = (
    "max_tokens",
    "max_completion_tokens",
    "openai_api_base",
    "base_url",
    "temperature",
    "top_p",
    "seed",
    "n",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "reasoning_effort",
    "reasoning",
    "verbosity",
    "service_tier",
    "truncation",
    "include",
    "output_version",
    "use_responses_api",
    "model_kwargs",
    "extra_body",
    "default_headers",
    "default_query",
    "disabled_params",
)


#: Fields a chat model class adds that never change an answer (client plumbing); never in the id.
_PLUMBING = frozenset(
    {
        "request_timeout",
        "timeout",
        "max_retries",
        "streaming",
        "stream_usage",
        "stream_chunk_timeout",
        "http_socket_options",
        "include_response_headers",
        "tiktoken_model_name",
        "openai_organization",
    }
)
_PLAIN = (str, int, float, bool, list, tuple, dict)


def langchain_model_id(model: BaseChatModel) -> str:
    """A stable identity of a chat model: class, provider type, model name and every setting that changes answers.

    Every plain field the model's class adds to ``BaseChatModel`` is read too, but client plumbing.
    It is part of every answer-cache key, so two models (or one model at two temperatures, two
    ``max_tokens``, two endpoints or two header sets) never share cached answers. Credentials never
    enter it: an endpoint's ``user:password@`` is dropped, headers appear only as a digest
    (:func:`~chop_integrations._llm.identity.clean_params`).
    """
    try:
        params = dict(model._identifying_params)
    except Exception:  # a half-configured model: identity from the class alone
        params = {}
    for name in _ANSWER_SETTINGS:
        value = getattr(model, name, None)
        if value not in (None, {}, []) and name not in params:
            params[name] = value
    for name in type(model).model_fields.keys() - BaseChatModel.model_fields.keys() - _PLUMBING - params.keys():
        value = getattr(model, name, None)  # a class of one's own rarely lists its fields in _identifying_params
        if isinstance(value, _PLAIN) and value not in ({}, [], ()):
            params[name] = value
    try:
        kind = model._llm_type
    except Exception:
        kind = "chat"
    clean = clean_params(params)
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
