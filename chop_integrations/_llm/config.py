"""Building an LLM from command-line options: any OpenAI-compatible endpoint.

The command line never picks a provider on its own: without ``--llm-model`` the
engines use the offline decider. With it, :func:`build_llm` returns an
:class:`OpenAICompatibleLLM` that talks to the endpoint through the ``openai``
package (imported only then), so the same options reach OpenAI, Azure-style
gateways, vLLM, llama.cpp's server, Ollama or LM Studio.

The client is created with ``max_retries=0``: retries, backoff and timeouts are
the job of :class:`~chop_integrations._llm.runner.LLMRunner`, which counts them in
the usage report; two layers of retries would multiply the waits and hide them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigurationError
from .aio import IN_RUN_SYNC, acall_in_daemon_thread
from .identity import digest, redact_url

logger = logging.getLogger("chop_integrations")

#: The environment variable read for the API key when none is named.
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
#: The key sent to endpoints that need none (local servers), because the client insists on one.
PLACEHOLDER_API_KEY = "not-needed"


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as err:  # pragma: no cover - openai is installed in every test environment
        raise ConfigurationError(
            "an LLM endpoint needs the 'openai' package: pip install 'chop-integrations[openai]'"
        ) from err
    return openai


class OpenAICompatibleLLM:
    """The :class:`~chop_integrations.LLM` protocol over an OpenAI-compatible chat endpoint.

    Each prompt is sent as one user message to ``/chat/completions``; the
    answer is the first choice's text (an empty string when the server sends
    none, which the engines treat as an invalid answer and correct once).

    Args:
        model: The model name the endpoint expects.
        base_url: The endpoint (``http://localhost:8000/v1``); ``None`` for OpenAI itself.
        api_key: The key to send.
        temperature: Sampling temperature; 0 keeps answers reproducible.
        timeout: Seconds the HTTP client waits for one answer (the runner has its own limit too).
        http_client: An ``httpx.Client`` to use (tests pass one with a mock transport).
        async_http_client: An ``httpx.AsyncClient`` to use on the async path.

    Attributes:
        model_id: ``openai-compatible:<host>:<model>:temperature=<t>``; part of every cache
            key, so answers of different models, servers or temperatures are never shared.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        timeout: float | None = 120.0,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        if not model:
            raise ConfigurationError("model must be a non-empty model name, e.g. model='gpt-4o-mini'")
        openai = _import_openai()
        self.model = model
        self.base_url = base_url
        self.temperature = temperature
        self.model_id = f"openai-compatible:{_endpoint_name(base_url)}:{model}:temperature={temperature:g}"
        common: dict[str, Any] = {"base_url": base_url, "api_key": api_key, "max_retries": 0, "timeout": timeout}
        self._client = openai.OpenAI(**common, http_client=http_client)
        self._aclient = openai.AsyncOpenAI(**common, http_client=async_http_client)

    def _request(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
        }

    @staticmethod
    def _text(response: Any) -> str:
        choices = getattr(response, "choices", None) or []
        if not choices:
            return ""
        return str(getattr(choices[0].message, "content", None) or "")

    def complete(self, prompt: str) -> str:
        """Send ``prompt`` and return the answer's text."""
        return self._text(self._client.chat.completions.create(**self._request(prompt)))

    async def acomplete(self, prompt: str) -> str:
        """Send ``prompt`` asynchronously and return the answer's text.

        Inside a sync entry point's short-lived loop (``IN_RUN_SYNC``) the sync client answers from a
        daemon thread: the async client's pooled connections would outlive the loop they belong to.
        """
        if IN_RUN_SYNC.get():
            return await acall_in_daemon_thread(self.complete, prompt)
        return self._text(await self._aclient.chat.completions.create(**self._request(prompt)))

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(model_id={self.model_id!r})"


def _endpoint_name(base_url: str | None) -> str:
    """The endpoint's host and path for the model identity: no scheme, no credentials (see :func:`redact_url`)."""
    if not base_url:
        return "api.openai.com"
    redacted = urlsplit(redact_url(base_url))
    name = redacted.netloc + redacted.path.rstrip("/")
    if redacted.query:
        name += f"?{redacted.query}"
    return name or digest(base_url)


def build_llm(
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    temperature: float = 0.0,
    timeout: float | None = 120.0,
    environ: dict[str, str] | None = None,
) -> OpenAICompatibleLLM | None:
    """Build the LLM the command-line options describe, or ``None`` for the offline decider.

    Args:
        base_url: ``--llm-base-url``; ``None`` means OpenAI's own endpoint.
        model: ``--llm-model``; without it (and without a base URL) no LLM is used.
        api_key_env: ``--llm-api-key-env``: the environment variable that holds the key
            (the key itself never goes on the command line, where ``ps`` would show it).
            Defaults to ``OPENAI_API_KEY``.
        temperature: Sampling temperature.
        timeout: Seconds the HTTP client waits for one answer.
        environ: The environment to read (defaults to ``os.environ``; tests pass a dict).

    Returns:
        An :class:`OpenAICompatibleLLM`, or ``None`` when no LLM option was given.

    Raises:
        ConfigurationError: When a base URL comes without a model, or OpenAI's endpoint
            (or a named key variable) is used and the key variable is not set.
    """
    env = os.environ if environ is None else environ
    if model is None and base_url is None:
        if api_key_env is not None:
            raise ConfigurationError("--llm-api-key-env needs --llm-model (and usually --llm-base-url)")
        return None
    if not model:
        raise ConfigurationError("--llm-base-url needs --llm-model NAME: the model the endpoint should run")
    key_var = api_key_env or DEFAULT_API_KEY_ENV
    api_key = env.get(key_var) or None
    if api_key is None:
        if api_key_env is not None or base_url is None:
            raise ConfigurationError(
                f"the API key variable {key_var} is not set: export {key_var}=... "
                "(or name another variable with --llm-api-key-env)"
            )
        logger.info("no %s set; sending a placeholder key to %s", key_var, redact_url(base_url))
        api_key = PLACEHOLDER_API_KEY
    return OpenAICompatibleLLM(
        model=model, base_url=base_url, api_key=api_key, temperature=temperature, timeout=timeout
    )


class BoundedLLM:
    """Wraps an LLM so that at most ``limit`` calls run at once, whoever makes them.

    The engines bound their own concurrency per call of ``chunk_many``; the
    command line runs several documents at once on top, so the bound on the
    model itself keeps the total at ``--concurrency``. The model identity is
    unchanged, so cache keys are too.

    Args:
        llm: The model to wrap (an object with ``complete``, ``acomplete`` and ``model_id``).
        limit: Calls in flight at most.
    """

    def __init__(self, llm: Any, *, limit: int) -> None:
        self.llm = llm
        self.model_id: str = llm.model_id
        self.limit = limit
        self._threads = threading.BoundedSemaphore(limit)
        self._loops: dict[int, asyncio.Semaphore] = {}

    def complete(self, prompt: str) -> str:
        """Answer ``prompt`` once a slot is free."""
        with self._threads:
            return str(self.llm.complete(prompt))

    async def acomplete(self, prompt: str) -> str:
        """Answer ``prompt`` asynchronously once a slot of the running loop is free."""
        loop = id(asyncio.get_running_loop())
        semaphore = self._loops.setdefault(loop, asyncio.Semaphore(self.limit))
        async with semaphore:
            return str(await self.llm.acomplete(prompt))
