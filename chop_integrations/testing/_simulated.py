"""A simulated LLM with a fixed latency and deterministic, valid answers, for cost and speed benchmarks.

:class:`SimulatedLLM` implements the :class:`~chop_integrations.LLM`
protocol: each call waits ``latency_ms`` (``asyncio.sleep`` on the async path,
``time.sleep`` on the sync path) and answers from a hash of the prompt and the
seed, so a rerun gives the same answers and a persistent cache can serve
them. It recognises the package's prompts:

* LumberChunker's default prompt (``{"starts": [...]}``), where heading-like
  paragraphs are likelier topic starts, and the paper prompt (``Answer: ID n``);
* CHOP's continuity prompt (``TRUE``/``FALSE``), CNM prompt (a JSON signature
  built from the document hints and the passage) and combined prompt.

An unknown prompt gets an empty answer (counted in :attr:`SimulatedLLM.unknown`),
which the engines treat as invalid, so a prompt change shows up as fallbacks in
the benchmark instead of passing silently.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import threading
import time
from pathlib import PurePath
from typing import Any

from .._chop.prompts import CNM_PROMPT, CONTINUITY_PROMPT
from .._errors import ConfigurationError
from .._lumber.prompts import DEFAULT_INSTRUCTION, PAPER_SYSTEM_PROMPT

_DEFAULT_MARK = DEFAULT_INSTRUCTION.split("{")[0][:60]
_PAPER_MARK = PAPER_SYSTEM_PROMPT[:60]
_CNM_MARK = CNM_PROMPT.split("{")[0][:30]
_CONTINUITY_MARK = CONTINUITY_PROMPT.split("\n")[0]
_PAIR_MARK = "Same topic flow"
_WINDOW_MARK = "Passages [1]..["
_WINDOW_ITEM = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_RANGE = re.compile(r"\(#(\d+) to #(\d+)\)")
_NUMBERED = re.compile(r"^#(\d+) (.*)$", re.MULTILINE)
_PAPER_IDS = re.compile(r"^ID (\d+):(.*)$", re.MULTILINE)
_FILE_HINT = re.compile(r'file "([^"]+)"')
_MODEL_HINT = re.compile(r'model "([^"]+)"')
_CATEGORY_HINT = re.compile(r'category "([^"]+)"')
_PASSAGE = re.compile(r"^(?:Passage|B starts): (.*)$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
_STOP = frozenset(
    "this that with from your when will have into then than they them there their these those which while "
    "about after before other more most some such only also each make sure using used tap select".split()
)


def _heading_like(text: str) -> bool:
    """A short line without a final full stop: how manuals set their section titles."""
    text = text.strip()
    return 0 < len(text) <= 60 and not text.endswith((".", ":", ",", ";")) and len(text.split()) <= 8


class SimulatedLLM:
    """An LLM stand-in with a fixed latency and deterministic answers valid for the package's prompts.

    Args:
        latency_ms: Milliseconds every call takes.
        seed: Changes the answers (and the ``model_id``, so caches never mix seeds).
        shift_rate: Chance that a paragraph which does not look like a heading starts a topic.
        heading_shift_rate: Chance that a heading-like paragraph starts a topic.
        continue_rate: Chance that a CHOP pair is answered TRUE (continues).

    Attributes:
        calls: Calls answered so far.
        unknown: Calls whose prompt was not recognised (answered with an empty string).
        in_flight: Calls running right now.
        max_in_flight: The most calls that ran at once (shows that concurrency happened).
        model_id: ``simulated:seed=<seed>:...``; latency is not part of it, it does not change answers.

    Raises:
        ConfigurationError: When ``latency_ms`` is negative or a rate is outside [0, 1].
    """

    def __init__(
        self,
        latency_ms: float = 200.0,
        *,
        seed: int = 0,
        shift_rate: float = 0.01,
        heading_shift_rate: float = 0.3,
        continue_rate: float = 0.6,
    ) -> None:
        if latency_ms < 0:
            raise ConfigurationError(f"latency_ms must be >= 0, got {latency_ms}")
        for name, rate in (
            ("shift_rate", shift_rate),
            ("heading_shift_rate", heading_shift_rate),
            ("continue_rate", continue_rate),
        ):
            if not 0 <= rate <= 1:
                raise ConfigurationError(f"{name} must be in [0, 1], got {rate}")
        self.latency_s = latency_ms / 1000.0
        self.seed = seed
        self.shift_rate = shift_rate
        self.heading_shift_rate = heading_shift_rate
        self.continue_rate = continue_rate
        self.model_id = f"simulated:seed={seed}:shift={shift_rate:g}/{heading_shift_rate:g}:continue={continue_rate:g}"
        self.calls = 0
        self.unknown = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    # -- the LLM protocol ------------------------------------------------------------------

    def complete(self, prompt: str) -> str:
        """Wait ``latency_ms`` (blocking) and answer."""
        self._enter()
        try:
            time.sleep(self.latency_s)
            return self.answer(prompt)
        finally:
            self._leave()

    async def acomplete(self, prompt: str) -> str:
        """Wait ``latency_ms`` (without blocking the loop) and answer."""
        self._enter()
        try:
            await asyncio.sleep(self.latency_s)
            return self.answer(prompt)
        finally:
            self._leave()

    def _enter(self) -> None:
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    # -- answers ---------------------------------------------------------------------------

    def rng(self, *parts: str) -> random.Random:
        """A random source fixed by the seed and ``parts``, so a rerun draws the same answers."""
        joined = "\x00".join((str(self.seed), *parts))
        digest = hashlib.sha256(joined.encode("utf-8", "surrogatepass")).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def starts_topic(self, passage: str, rng: random.Random) -> bool:
        """Whether ``passage`` starts a topic, drawn from ``rng`` at the heading-like or the plain rate."""
        return rng.random() < (self.heading_shift_rate if _heading_like(passage) else self.shift_rate)

    def answer(self, prompt: str) -> str:
        """The deterministic answer to ``prompt`` (no waiting, not counted)."""
        if prompt.startswith(_DEFAULT_MARK):
            return self._starts(prompt)
        if prompt.startswith(_PAPER_MARK):
            return self._paper(prompt)
        if prompt.startswith(_CONTINUITY_MARK) and _PAIR_MARK in prompt:
            return self._pair(prompt)
        if prompt.startswith(_CONTINUITY_MARK):
            return "TRUE" if self._continues(prompt) else "FALSE"
        if prompt.startswith(_CNM_MARK):
            return json.dumps(self._cnm(prompt))
        if prompt.startswith(_WINDOW_MARK):
            return self._window(prompt)
        with self._lock:
            self.unknown += 1
        return ""

    def _starts(self, prompt: str) -> str:
        found = _RANGE.search(prompt)
        if found is None:
            return '{"starts": []}'
        lo, hi = int(found.group(1)), int(found.group(2))
        starts = []
        for match in _NUMBERED.finditer(prompt):
            number, text = int(match.group(1)), match.group(2)
            if not lo <= number <= hi:
                continue
            if self.starts_topic(text, self.rng("start", text)):
                starts.append(number)
        return json.dumps({"starts": starts})

    def _paper(self, prompt: str) -> str:
        ids = [(int(m.group(1)), m.group(2)) for m in _PAPER_IDS.finditer(prompt)]
        if len(ids) < 2:
            return f"Answer: ID {ids[0][0] if ids else 0}"
        candidates = [number for number, text in ids[1:] if _heading_like(text)] or [n for n, _ in ids[1:]]
        return f"Answer: ID {self.rng('paper', prompt).choice(candidates)}"

    def _continues(self, prompt: str) -> bool:
        return self.rng("continues", prompt).random() < self.continue_rate

    def _pair(self, prompt: str) -> str:
        if self._continues(prompt):
            return '{"continues": true}'
        return json.dumps({"continues": False, "cnm": self._cnm(prompt)})

    def _window(self, prompt: str) -> str:
        """CHOP's window prompt: per passage ``true`` (continues) or its signature."""
        opens = "[1] opens the document" in prompt
        answers: list[Any] = []
        for match in _WINDOW_ITEM.finditer(prompt):
            number, text = int(match.group(1)), match.group(2)
            if number == 0:
                continue
            if (number == 1 and opens) or not self._continues(text):
                answers.append(self._cnm(prompt, passage=text))
            else:
                answers.append(True)
        return json.dumps({"passages": answers})

    def _cnm(self, prompt: str, passage: str | None = None) -> dict[str, Any]:
        file_hint = _FILE_HINT.search(prompt)
        stem = PurePath(file_hint.group(1)).stem if file_hint else ""
        model_hint = _MODEL_HINT.search(prompt)
        category_hint = _CATEGORY_HINT.search(prompt)
        model = model_hint.group(1) if model_hint else (stem.replace("_", " ") or None)
        if category_hint:
            category = category_hint.group(1)
        elif "Tab" in stem:
            category = "tablet"
        elif "Fit" in stem:
            category = "fitness band"
        else:
            category = "smartphone" if stem else None
        if passage is None:
            found = _PASSAGE.search(prompt)
            passage = found.group(1) if found else ""
        words = [w.lower() for w in _WORD.findall(passage) if w.lower() not in _STOP]
        unique = list(dict.fromkeys(words))
        rng = self.rng("nouns", passage)
        nouns = sorted(rng.sample(unique, min(len(unique), 1 + rng.randrange(2))), key=unique.index)
        return {"category": category, "nouns": nouns, "model": model}
