"""Pytest fixtures for HTTP-level tests against the local OpenAI-compatible server.

Import them into a test folder's ``conftest.py``::

    from tests.support.fixtures import openai_base_url, openai_server, vcr_config  # noqa: F401

``openai_server`` starts :class:`~tests.support.openai_server.OpenAITestServer` on its
fixed loopback port only when recording (``--record-mode`` other than ``none``); a
replay (pytest-recording's default mode ``none``, usually with ``--block-network``)
needs no server, the cassettes answer. When another test process already runs the
server on that port, it is reused: its answers depend only on the request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .openai_server import HOST, PORT, OpenAITestServer, server_running

#: Request headers that must never reach a cassette.
FILTERED_HEADERS = [
    "authorization",
    "api-key",
    "x-api-key",
    "openai-organization",
    "openai-project",
    "cookie",
]

#: Response headers dropped from cassettes (provider ids and cookies, noise in diffs).
_DROPPED_RESPONSE_HEADERS = frozenset({"set-cookie", "openai-organization", "x-request-id", "cf-ray", "date"})


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers", {})
    for name in list(headers):
        if name.lower() in _DROPPED_RESPONSE_HEADERS:
            del headers[name]
    return response


def vcr_settings() -> dict[str, Any]:
    """The VCR settings shared by our HTTP-level tests.

    Requests match on the body too, so concurrent calls replay the right answers
    whatever order they are sent in.
    """
    return {
        "filter_headers": [(name, None) for name in FILTERED_HEADERS],
        "filter_query_parameters": ["api_key", "key"],
        "before_record_response": _scrub_response,
        "match_on": ["method", "scheme", "host", "port", "path", "query", "body"],
        "decode_compressed_response": True,
    }


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    """pytest-recording's configuration hook (see :func:`vcr_settings`)."""
    return vcr_settings()


def recording(config: pytest.Config) -> bool:
    """True when pytest-recording may write cassettes in this run."""
    try:
        mode = config.getoption("--record-mode")
    except ValueError:  # pytest-recording not installed
        return False
    return mode not in (None, "none")


@pytest.fixture(scope="session")
def openai_server(request: pytest.FixtureRequest) -> Iterator[OpenAITestServer]:
    """The local OpenAI-compatible server, running while recording; a URL holder in replay."""
    server = OpenAITestServer(host=HOST, port=PORT)
    if not recording(request.config) or server_running(HOST, PORT):
        yield server
        return
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def openai_base_url(openai_server: OpenAITestServer) -> str:
    """``base_url`` for an OpenAI client pointed at the local server (``http://127.0.0.1:18765/v1``)."""
    return openai_server.base_url
