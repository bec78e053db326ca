"""A stand-in terminal for progress tests: a stderr that says it is a terminal, and the bar frames drawn on it."""

from __future__ import annotations

import io
import re
import sys

import pytest


class Terminal(io.StringIO):
    """A text stream that answers ``isatty()`` with True, so a bar draws on it as on a terminal."""

    def isatty(self) -> bool:
        return True


def bar_frames(drawn: str, label: str) -> list[str]:
    """The bar's frames in ``drawn`` (tqdm redraws with a carriage return) whose text starts with ``label``."""
    return [frame for frame in re.split(r"[\r\n]", drawn) if frame.startswith(label)]


def on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """A stand-in terminal as stderr (set in the test itself: pytest's capture sets stderr again after fixtures)."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream
