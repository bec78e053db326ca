"""Model identities: every setting that can change an answer, and never a credential.

A model's ``model_id`` is part of every answer-cache key and appears in log lines and error
messages. So it must name everything that can change an answer (two models that may answer
differently never share a cached answer) and nothing secret. The rules go by exact names,
never by a word inside a name (``max_tokens`` is a setting, not a token):

* credentials (:data:`CREDENTIAL_NAMES`, and any ``SecretStr``) are left out: they choose who
  pays, not what is answered;
* endpoints (:data:`URL_NAMES`) keep scheme, host, port and path; a ``user:password@`` is
  dropped and query values other than :data:`PLAIN_QUERY_NAMES` become digests;
* headers and free-form extras (:data:`DIGEST_NAMES`), and any other name that looks secret,
  become a salted SHA-256 digest: in the key, never readable;
* every other setting stays as it is.

A plain callable has no settings to read: only a module-level function has a stable identity
(:func:`callable_is_stable`); a ``functools.partial``, a lambda, a nested function or a callable
object does not, and is not cached unless named (``CallableLLM(fn, model_id=...)``).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import SecretBytes, SecretStr

logger = logging.getLogger("chop_integrations")

#: Parameters that hold credentials: never part of an identity.
CREDENTIAL_NAMES = frozenset(
    {
        "api_key",
        "openai_api_key",
        "anthropic_api_key",
        "google_api_key",
        "groq_api_key",
        "mistral_api_key",
        "cohere_api_key",
        "azure_ad_token",
        "azure_ad_token_provider",
        "access_token",
        "auth_token",
        "token",
        "password",
        "secret",
        "secret_key",
        "aws_access_key_id",
        "aws_secret_access_key",
        "aws_session_token",
        "credentials",
        "http_client",
        "http_async_client",
    }
)
#: Parameters that name an endpoint: kept without user, password or secret query values.
URL_NAMES = frozenset({"base_url", "openai_api_base", "api_base", "azure_endpoint", "endpoint", "openai_proxy"})
#: Parameters kept only as a digest: they may hold keys (headers) yet change what is answered.
DIGEST_NAMES = frozenset({"default_headers", "default_query", "extra_headers", "headers", "extra_body"})
#: Query parameters of an endpoint kept in clear (everything else in a query becomes a digest).
PLAIN_QUERY_NAMES = frozenset({"api-version", "api_version", "deployment", "model"})
#: Names that contain a secret-looking word but are answer settings: kept as they are.
PLAIN_NAMES = frozenset(
    {
        "max_tokens",
        "max_completion_tokens",
        "max_new_tokens",
        "max_output_tokens",
        "num_predict",
        "top_logprobs",
        "logprobs",
        "stop_sequences",
    }
)
_SECRET_WORDS = ("key", "token", "secret", "password", "credential", "auth", "cookie")
_SALT = b"chop-integrations model identity\x00"


def digest(value: Any) -> str:
    """``sha256:<16 hex>`` of ``value`` (as sorted JSON), salted: two values never share it, none can be read."""
    data = json.dumps(jsonable(value), sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(_SALT + data).hexdigest()[:16]


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data; an object becomes ``<ClassName>`` (never a repr with an address)."""
    if isinstance(value, (SecretStr, SecretBytes)):
        return "<secret>"
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return f"<{type(value).__name__}>"


def redact_url(url: str) -> str:
    """``url`` without ``user:password@``, its query values (but :data:`PLAIN_QUERY_NAMES`) as digests."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # not a URL: keep it only as a digest
        return digest(url)
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    query = [
        (name, value if name.lower() in PLAIN_QUERY_NAMES else digest(value))
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe=":"), ""))


def clean_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of a model as they may enter an identity (see the module docstring for the rules)."""
    clean: dict[str, Any] = {}
    for name, value in params.items():
        lower = str(name).lower()
        if value is None or isinstance(value, (SecretStr, SecretBytes)) or lower in CREDENTIAL_NAMES:
            continue
        if lower in URL_NAMES and isinstance(value, str):
            clean[str(name)] = redact_url(value)
        elif lower in DIGEST_NAMES or (lower not in PLAIN_NAMES and any(w in lower for w in _SECRET_WORDS)):
            clean[str(name)] = digest(value)
        elif isinstance(value, Mapping):
            clean[str(name)] = clean_params(value)
        else:
            clean[str(name)] = jsonable(value)
    return clean


def callable_is_stable(fn: Any) -> bool:
    """True when ``fn``'s qualified name tells it apart from every other callable: a module-level function.

    A ``functools.partial``, a lambda, a function defined inside another, a bound method or a callable
    object shares its name with others that may answer differently (other arguments, other captured
    variables, another instance), so its name cannot key a cache.
    """
    if isinstance(fn, functools.partial) or not (inspect.isfunction(fn) or inspect.isbuiltin(fn)):
        return False
    if inspect.isbuiltin(fn) and not inspect.ismodule(getattr(fn, "__self__", None)):
        return False  # a method of some object, not a module function
    qualname = getattr(fn, "__qualname__", "")
    return "<lambda>" not in qualname and "<locals>" not in qualname


def usable_cache(llm: Any, cache: Any) -> Any:
    """``cache``, or None for a model whose identity cannot key it (logged once per model).

    A model is cacheable unless it says ``stable_identity = False`` (a :class:`CallableLLM` around a
    ``functools.partial``, a lambda, a nested function or a callable object, given no ``model_id``).
    """
    if cache is None or getattr(llm, "stable_identity", True):
        return cache
    if not getattr(llm, "warned_unstable", False):
        logger.warning(
            "the LLM %s has no stable identity (a functools.partial, lambda, nested function or callable object "
            "shares its name with others that may answer differently), so its answers are not cached; to cache "
            "them, name the model and its settings: CallableLLM(fn, model_id='my-model:temperature=0')",
            llm.model_id,
        )
        llm.warned_unstable = True
    return None
