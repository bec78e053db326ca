"""Fixtures for the CHOP tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chop_fakes import StubContinuity, StubExtractor


@pytest.fixture
def offline() -> dict[str, object]:
    """Keyword arguments that plug the stand-in offline deciders into a CHOPChunker."""
    return {"offline_continuity": StubContinuity(), "offline_extractor": StubExtractor()}


@pytest.fixture
def count() -> Callable[[str], int]:
    """A cheap token counter: whitespace-separated words."""
    return lambda text: len(text.split())
