"""``chop_integrations.testing``: every fake in one public place, its names pinned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chop_integrations
from chop_integrations import testing


def test_testing_names_are_pinned_and_resolve() -> None:
    assert sorted(testing.__all__) == sorted(
        [
            "ANSWER_FAULTS",
            "ERROR_FAULTS",
            "FAULTS",
            "FaultyLLM",
            "InjectedConnectionError",
            "InjectedHTTPError",
            "InjectedRateLimitError",
            "InjectedServerError",
            "InjectedTimeoutError",
            "Injection",
            "ScriptedLLM",
            "SimulatedLLM",
            "share_tiktoken_cache",
            "valid_answer",
        ]
    )
    assert all(getattr(testing, name) is not None for name in testing.__all__)


def test_the_facade_offers_the_same_scripted_fake() -> None:
    assert chop_integrations.ScriptedLLM is testing.ScriptedLLM


def test_every_fake_answers_the_package_prompts_offline() -> None:
    text = "Setup\nPlug the unit in and wait.\n\nCleaning\nRinse the filter every week.\n"
    for llm in (testing.ScriptedLLM(default='{"starts": []}'), testing.SimulatedLLM(0), testing.FaultyLLM(rate=0)):
        chunks = chop_integrations.LumberChunker(llm, max_tokens=40).chunk(text)
        assert "".join(c.text for c in chunks) == text
        assert llm.model_id


def test_share_tiktoken_cache_points_at_a_local_file_and_keeps_a_set_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    testing.share_tiktoken_cache()
    folder = Path(os.environ["TIKTOKEN_CACHE_DIR"])
    assert any(p.is_file() and p.stat().st_size > 1_000_000 for p in folder.iterdir())  # cl100k_base: 1.6 MB
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    testing.share_tiktoken_cache()
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path)
