"""Fixtures for the LangChain adapter tests: the local OpenAI-compatible server and VCR settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixtures import openai_base_url, openai_server, vcr_config  # noqa: F401

CASSETTES = Path(__file__).resolve().parents[1] / "cassettes" / "langchain"


@pytest.fixture(scope="module")
def vcr_cassette_dir(request: pytest.FixtureRequest) -> str:
    """Cassettes live in ``tests/cassettes/langchain/<test module>/``."""
    return str(CASSETTES / request.module.__name__.rsplit(".", 1)[-1])
