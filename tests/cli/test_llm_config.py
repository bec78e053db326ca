"""build_llm and OpenAICompatibleLLM, tested at the HTTP level with httpx's MockTransport (no socket)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.aio import run_sync
from chop_integrations._llm.config import PLACEHOLDER_API_KEY, BoundedLLM, OpenAICompatibleLLM, build_llm
from chop_integrations._llm.protocol import as_llm


def _reply(text: str | None) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    choices = [] if text is None else [{"index": 0, "message": message, "finish_reason": "stop"}]
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": choices}


class Recorder:
    def __init__(self, text: str | None = "ok", status: int = 200) -> None:
        self.text, self.status = text, status
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.status != 200:
            return httpx.Response(self.status, json={"error": {"message": "busy", "type": "rate_limit"}})
        return httpx.Response(200, json=_reply(self.text))


def _llm(recorder: Recorder, **kwargs: Any) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        model="tiny",
        base_url="http://localhost:9999/v1",
        api_key="secret",
        http_client=httpx.Client(transport=httpx.MockTransport(recorder)),
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(recorder)),
        **kwargs,
    )


def test_complete_sends_one_user_message_with_model_and_temperature() -> None:
    recorder = Recorder("ID 3")
    llm = _llm(recorder, temperature=0.2)
    assert llm.complete("Which paragraph?") == "ID 3"
    (request,) = recorder.requests
    assert request.url.path == "/v1/chat/completions"
    body = json.loads(request.content)
    assert body["model"] == "tiny"
    assert body["temperature"] == 0.2
    assert body["messages"] == [{"role": "user", "content": "Which paragraph?"}]
    assert request.headers["authorization"] == "Bearer secret"


async def test_acomplete_returns_text() -> None:
    recorder = Recorder("TRUE")
    assert await _llm(recorder).acomplete("Same topic?") == "TRUE"
    assert len(recorder.requests) == 1


def test_a_sync_entry_point_uses_the_sync_client() -> None:
    sync, asynchronous = Recorder("TRUE"), Recorder("FALSE")
    llm = OpenAICompatibleLLM(
        model="tiny",
        base_url="http://localhost:9999/v1",
        api_key="secret",
        http_client=httpx.Client(transport=httpx.MockTransport(sync)),
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(asynchronous)),
    )
    assert [run_sync(llm.acomplete("Same topic?")) for _ in range(2)] == ["TRUE", "TRUE"]
    assert (len(sync.requests), len(asynchronous.requests)) == (2, 0)


def test_empty_choices_give_empty_text() -> None:
    assert _llm(Recorder(None)).complete("x") == ""


def test_client_does_not_retry_itself() -> None:
    """The runner retries and counts; the openai client must fail at once (max_retries=0)."""
    recorder = Recorder(status=429)
    with pytest.raises(Exception) as info:
        _llm(recorder).complete("x")
    assert getattr(info.value, "status_code", None) == 429
    assert len(recorder.requests) == 1


def test_model_id_names_endpoint_model_and_temperature() -> None:
    llm = _llm(Recorder(), temperature=0.0)
    assert llm.model_id == "openai-compatible:localhost:9999/v1:tiny:temperature=0"
    assert _llm(Recorder(), temperature=0.7).model_id != llm.model_id
    assert as_llm(llm) is llm  # already implements the protocol


def test_no_options_mean_no_llm() -> None:
    assert build_llm(environ={}) is None


def test_base_url_without_model_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="--llm-model"):
        build_llm(base_url="http://localhost:8000/v1", environ={})


def test_key_env_without_model_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="--llm-model"):
        build_llm(api_key_env="MY_KEY", environ={"MY_KEY": "k"})


def test_openai_endpoint_needs_the_key_variable() -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY is not set"):
        build_llm(model="gpt-4o-mini", environ={})


def test_named_key_variable_must_be_set() -> None:
    with pytest.raises(ConfigurationError, match="MY_KEY is not set"):
        build_llm(base_url="http://localhost:8000/v1", model="m", api_key_env="MY_KEY", environ={})


def test_key_is_read_from_the_named_variable() -> None:
    llm = build_llm(base_url="http://localhost:8000/v1", model="m", api_key_env="MY_KEY", environ={"MY_KEY": "k1"})
    assert llm is not None
    assert llm._client.api_key == "k1"
    assert llm._client.max_retries == 0


def test_local_endpoint_without_key_gets_a_placeholder() -> None:
    llm = build_llm(base_url="http://localhost:8000/v1", model="m", environ={})
    assert llm is not None
    assert llm._client.api_key == PLACEHOLDER_API_KEY


class _Slow:
    model_id = "slow"

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0

    def complete(self, prompt: str) -> str:
        return prompt.upper()

    async def acomplete(self, prompt: str) -> str:
        self.running += 1
        self.peak = max(self.peak, self.running)
        await asyncio.sleep(0.001)
        self.running -= 1
        return prompt.upper()


async def test_bounded_llm_caps_calls_in_flight_and_keeps_the_identity() -> None:
    inner = _Slow()
    bounded = BoundedLLM(inner, limit=3)
    answers = await asyncio.gather(*(bounded.acomplete(f"p{i}") for i in range(20)))
    assert answers == [f"P{i}" for i in range(20)]
    assert inner.peak == 3
    assert bounded.model_id == "slow"
    assert bounded.complete("x") == "X"
