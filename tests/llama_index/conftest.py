"""Fixtures for the LlamaIndex adapter tests: a scripted CustomLLM and the recording fixtures."""

from __future__ import annotations

import pytest
from li_fakes import ScriptedCustomLLM

from tests.support.fixtures import openai_base_url, openai_server, vcr_config  # noqa: F401


@pytest.fixture
def scripted_llm() -> ScriptedCustomLLM:
    return ScriptedCustomLLM()
