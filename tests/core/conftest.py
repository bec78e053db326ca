"""Fixtures the token-counting tests share."""

from __future__ import annotations

import pytest

from chop_integrations._text.tokens import TiktokenCounter


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the plain tiktoken counter encodes from here on (a line table's own encodings are not among them)."""
    calls: list[str] = []
    plain = TiktokenCounter.__call__

    def spy(self: TiktokenCounter, text: str) -> int:
        calls.append(text)
        return plain(self, text)

    monkeypatch.setattr(TiktokenCounter, "__call__", spy)
    return calls
