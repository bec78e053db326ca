"""Deterministic fakes for the LumberChunker tests: an offline stand-in and a topic-shift "LLM"."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from chop_integrations._deciders import Window

_NUMBERED = re.compile(r"^#(\d+) (.*)$", re.MULTILINE)
_PAPER_ID = re.compile(r"^ID (\d+): (.*)$", re.MULTILINE)
_RANGE = re.compile(r"\(#(\d+) to #(\d+)\)")


class HeadingShift:
    """Offline stand-in: a new chunk at every heading unit (deterministic, no model)."""

    def choose(self, window: Window) -> list[int]:
        """Indexes of the window's heading units after the first."""
        return [i for i, unit in enumerate(window.units) if i and unit.heading]


def _looks_like_heading(line: str) -> bool:
    first = line.split("\n", 1)[0].strip()
    return 0 < len(first) <= 40 and not first.endswith((".", ":", ",", ";"))


class SectionLLM:
    """A deterministic "LLM" answering both LumberChunker prompts like a sensible model would.

    It starts a new section at a heading-like paragraph once the current section
    holds at least ``min_tokens`` tokens (paragraph tokens counted with ``count``),
    and at any paragraph once it holds ``max_tokens``.
    """

    model_id = "fake-sections"

    def __init__(self, count: Callable[[str], int], *, min_tokens: int = 200, max_tokens: int = 450) -> None:
        self.count = count
        self.min_tokens = min_tokens
        self.max_tokens = max_tokens
        self.calls = 0

    def _pick(self, items: list[tuple[int, str]], lo: int, first_only: bool, carried: int) -> list[int]:
        picks, size = [], carried
        for number, text in items:
            tokens = self.count(text)
            if number >= lo and (
                (size >= self.min_tokens and _looks_like_heading(text)) or size + tokens > self.max_tokens
            ):
                picks.append(number)
                size = 0
                if first_only:
                    break
            size += tokens
        return picks

    def complete(self, prompt: str) -> str:
        """Answer one prompt."""
        self.calls += 1
        numbered = [(int(n), t) for n, t in _NUMBERED.findall(prompt)]
        if numbered:
            lo = int(_RANGE.search(prompt).group(1))  # type: ignore[union-attr]
            carried = self.min_tokens if "Context (" in prompt else 0
            return json.dumps({"starts": self._pick(numbered, lo, False, carried)})
        ids = [(int(n), t) for n, t in _PAPER_ID.findall(prompt)]
        picks = self._pick(ids, ids[0][0] + 1, True, 0) if len(ids) > 1 else []
        return f"Answer: ID {picks[0] if picks else ids[-1][0]}"

    async def acomplete(self, prompt: str) -> str:
        """Async :meth:`complete`."""
        return self.complete(prompt)
