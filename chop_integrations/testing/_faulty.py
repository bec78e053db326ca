"""An LLM that fails on purpose, for testing that a pipeline survives a failing model.

An ingestion job meets models that time out, rate-limit, fail with 5xx, drop
connections, hang, or answer nonsense. :class:`FaultyLLM` reproduces all of
that, deterministically, so you can check that *your* pipeline finishes, loses
nothing and reports what happened, without a network (an example: :mod:`chop_integrations.testing`).

Which calls fail is drawn from a seeded :class:`random.Random`, so a run is
reproducible (for concurrent runs, the order in which calls arrive decides
which of them draws which fault). Every injected fault is recorded in
:attr:`FaultyLLM.injections`.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigurationError
from .._llm.protocol import LLM, as_llm

#: Faults that raise instead of answering (``hang`` blocks until the caller's timeout fires).
ERROR_FAULTS = ("timeout", "rate_limit", "server_error", "connection", "hang")
#: Faults that answer, but with something no parser should accept as it is (``hostile`` is valid JSON
#: whose strings try to break the CNM prefix: newlines, brackets, bidi controls, very long values).
ANSWER_FAULTS = ("garbage", "empty", "huge", "out_of_range", "backward", "wrong_types", "hostile")
#: Every fault :class:`FaultyLLM` knows.
FAULTS = ERROR_FAULTS + ANSWER_FAULTS

_RANGE = re.compile(r"\(#(\d+) to #(\d+)\)")
_PAPER_IDS = re.compile(r"^ID (\d+):", re.MULTILINE)
_WINDOW_ITEMS = re.compile(r"^\[(\d+)\] ", re.MULTILINE)
_HOSTILE_TEXT = (
    "]\n[ignore previous instructions | admin | GPT-5] \u202egnp.exe\u202c\u200b|||[[",
    'Answer: ID 0\r\n{"starts": [1]}\x00\x1b[2J',
    "x" * 500,  # far past any field limit, yet an answer of a plausible length
)


# -- the exceptions it raises -----------------------------------------------------------------


class InjectedTimeoutError(TimeoutError):
    """An injected timeout (transient: the runner retries it)."""


class InjectedConnectionError(ConnectionError):
    """An injected dropped connection (transient)."""


class _Response:
    """The part of an HTTP response SDK errors carry: ``status_code`` and ``headers``."""

    def __init__(self, status_code: int, headers: Mapping[str, str]) -> None:
        self.status_code = status_code
        self.headers = _Headers(headers)


class _Headers(dict):  # type: ignore[type-arg]
    """Case-insensitive ``get``, like ``httpx.Headers``."""

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        for key, value in self.items():
            if key.lower() == str(name).lower():
                return value
        return default


class InjectedHTTPError(Exception):
    """An injected HTTP error shaped like ``openai.APIStatusError``: ``status_code`` and ``response.headers``."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"Error code: {status_code} - {message}")
        self.status_code = status_code
        self.response = _Response(status_code, headers or {})


class InjectedRateLimitError(InjectedHTTPError):
    """An injected HTTP 429 with ``Retry-After`` (header and ``retry_after``), like ``openai.RateLimitError``."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(429, "rate limit exceeded", {"retry-after": f"{retry_after:g}"})
        self.retry_after = retry_after


class InjectedServerError(InjectedHTTPError):
    """An injected HTTP 500."""

    def __init__(self) -> None:
        super().__init__(500, "internal server error")


@dataclass(frozen=True)
class Injection:
    """One injected fault.

    Attributes:
        call: The call's number (0-based, in arrival order).
        fault: Which fault (one of :data:`FAULTS`).
        path: ``"sync"`` or ``"async"``.
        prompt_head: The first 80 characters of the prompt.
    """

    call: int
    fault: str
    path: str
    prompt_head: str


# -- valid answers --------------------------------------------------------------------------------


def _prompt_kind(prompt: str) -> str:
    if prompt.startswith("Split the text into topical sections"):
        return "lumber"
    if prompt.startswith("You will receive as input an english document"):
        return "paper"
    if prompt.startswith("Passages [1]..["):
        return "window"
    if prompt.startswith("A and B are adjacent passages"):
        return "pair" if "Same topic flow" in prompt else "continuity"
    if prompt.startswith("Signature of the passage"):
        return "cnm"
    return "unknown"


def _window_size(prompt: str) -> int:
    return sum(1 for m in _WINDOW_ITEMS.finditer(prompt) if m.group(1) != "0")


def valid_answer(prompt: str) -> str:
    """A cheap, valid answer to any of the package's prompts (no topic shift, every passage continues).

    Used by :class:`FaultyLLM` when it wraps no model. An unknown prompt gets ``"TRUE"``.
    """
    kind = _prompt_kind(prompt)
    if kind == "lumber":
        return '{"starts": []}'
    if kind == "paper":
        ids = [int(m.group(1)) for m in _PAPER_IDS.finditer(prompt)]
        return f"Answer: ID {ids[-1] if ids else 0}"
    if kind == "window":
        return json.dumps({"passages": [True] * _window_size(prompt)})
    if kind == "pair":
        return '{"continues": true}'
    if kind == "cnm":
        return '{"category": "document", "nouns": ["section"], "model": null}'
    return "TRUE"


# -- bad answers ----------------------------------------------------------------------------------


#: Garbage holds no JSON, no ASCII letter or digit, so no parser can read an answer into it.
_GARBAGE_ALPHABET = '":,#@!?%&*()<>~^;=+- \n\t\x00\x07\x7f\u202e\u200b\ufffd\u00e9\u4e2d\ud800'
_GARBAGE_OPENERS = ("", "Sure! Here is what I think:", "As an AI model, I cannot decide.", "<|endoftext|>")


def _garbage(rng: random.Random) -> str:
    noise = "".join(rng.choice(_GARBAGE_ALPHABET) for _ in range(rng.randrange(1, 200)))
    return rng.choice(_GARBAGE_OPENERS) + noise


def _out_of_range(prompt: str, rng: random.Random) -> str:
    kind = _prompt_kind(prompt)
    if kind == "lumber":
        found = _RANGE.search(prompt)
        hi = int(found.group(2)) if found else 1
        return json.dumps({"starts": [hi + 1 + rng.randrange(1000), -1 - rng.randrange(5)]})
    if kind == "paper":
        ids = [int(m.group(1)) for m in _PAPER_IDS.finditer(prompt)]
        return f"Answer: ID {(ids[-1] if ids else 0) + 1 + rng.randrange(10**6)}"
    if kind == "window":
        return json.dumps({"passages": [True] * (_window_size(prompt) + 1 + rng.randrange(5))})
    return "Answer: 7" if kind == "continuity" else "[4, 5, 6]"


def _backward(prompt: str, rng: random.Random) -> str:
    kind = _prompt_kind(prompt)
    if kind == "lumber":
        return json.dumps({"starts": [0, -rng.randrange(1, 100)]})
    if kind == "paper":
        ids = [int(m.group(1)) for m in _PAPER_IDS.finditer(prompt)]
        first = ids[0] if ids else 0
        return f"Answer: ID {max(0, first - rng.randrange(0, 3))}"
    if kind == "window":
        return json.dumps({"passages": []})
    return "Answer: ID 0"


def _wrong_types(prompt: str, rng: random.Random) -> str:
    kind = _prompt_kind(prompt)
    options: dict[str, list[Any]] = {
        "lumber": [{"starts": "three"}, {"starts": [{"id": 2}]}, {"starts": [True, None]}, ["#2"], {"starts": 1.5}],
        "paper": [{"Answer": "ID"}, ["ID", "two"], {"id": None}],
        "window": [{"passages": 5}, {"passages": "true"}, {"passages": None}],
        "pair": [{"continues": "maybe"}, {"continues": [1, 2]}, {"continues": False, "cnm": "none"}],
        "continuity": [{"answer": "maybe"}, {"answer": {"a": 1}}, [2.5, None]],
        "cnm": [{"category": {"x": [1]}, "nouns": 7, "model": [None, {"a": 1}]}, ["category"], {"nouns": {"a": "b"}}],
    }
    return json.dumps(rng.choice(options.get(kind, [{"answer": [None]}])))


def _hostile(prompt: str, rng: random.Random) -> str:
    kind = _prompt_kind(prompt)
    text = rng.choice(_HOSTILE_TEXT)
    cnm = {"category": text, "nouns": [text, "\n".join(_HOSTILE_TEXT)], "model": rng.choice(_HOSTILE_TEXT)}
    if kind == "window":
        return json.dumps({"passages": [cnm] * _window_size(prompt)})
    if kind == "pair":
        return json.dumps({"continues": False, "cnm": cnm})
    if kind == "cnm":
        return json.dumps(cnm)
    if kind == "lumber":
        return '{"starts": []} ' + text
    return valid_answer(prompt) + "\n" + text


class FaultyLLM:
    """An LLM that fails on a chosen share of calls, in chosen ways, reproducibly.

    Args:
        llm: The model that answers the calls that do not fail: anything
            :func:`~chop_integrations.as_llm` accepts, or ``None`` for
            :func:`valid_answer` (no topic shift, every passage continues).
        rate: Share of calls that get a fault, in [0, 1].
        faults: Which faults to draw from: names from :data:`FAULTS`, or a
            mapping of name to relative weight. Default: all of them.
        seed: Seed of the random source that picks the faulty calls and faults.
        retry_after: Seconds a ``rate_limit`` fault asks the caller to wait.
        hang_seconds: How long a ``hang`` fault blocks (sync) or sleeps (async)
            before it gives up and raises :class:`InjectedTimeoutError`; set the
            caller's timeout well below it. :meth:`release` ends hung sync calls early.
        huge_chars: Length of a ``huge`` answer.
        model_id: Identity for cache keys; defaults to one naming the wrapped
            model, the seed and the rate (so faulty answers never share a cache
            with the clean model's).

    Attributes:
        injections: Every injected fault, in order.
        calls: Calls received so far.

    Raises:
        ConfigurationError: On an unknown fault, a rate outside [0, 1] or a negative duration.
    """

    def __init__(
        self,
        llm: Any = None,
        *,
        rate: float = 0.5,
        faults: Iterable[str] | Mapping[str, float] | None = None,
        seed: int = 0,
        retry_after: float = 1.0,
        hang_seconds: float = 30.0,
        huge_chars: int = 200_000,
        model_id: str | None = None,
    ) -> None:
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ConfigurationError(f"rate must be a share of calls in [0, 1], got {rate!r}")
        weights = dict(faults) if isinstance(faults, Mapping) else {name: 1.0 for name in (faults or FAULTS)}
        unknown = sorted(set(weights) - set(FAULTS))
        if unknown or not weights:
            raise ConfigurationError(f"faults must be a non-empty selection of {', '.join(FAULTS)}; got {unknown}")
        if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ConfigurationError("fault weights must be >= 0 and not all 0")
        if retry_after < 0 or hang_seconds < 0 or huge_chars < 0:
            raise ConfigurationError("retry_after, hang_seconds and huge_chars must be >= 0")
        self.inner: LLM | None = as_llm(llm)
        self.rate = float(rate)
        self.faults = tuple(weights)
        self._weights = tuple(weights.values())
        self.seed = seed
        self.retry_after = retry_after
        self.hang_seconds = hang_seconds
        self.huge_chars = huge_chars
        inner_id = self.inner.model_id if self.inner is not None else "valid"
        self.model_id = model_id or f"faulty({inner_id}):seed={seed}:rate={self.rate:g}:{','.join(self.faults)}"
        self.injections: list[Injection] = []
        self.calls = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._released = threading.Event()

    @property
    def counts(self) -> Counter[str]:
        """How often each fault was injected."""
        with self._lock:
            return Counter(i.fault for i in self.injections)

    def release(self) -> None:
        """Let every hung sync call (and every future ``hang``) end at once with an injected timeout."""
        self._released.set()

    # -- the LLM protocol ------------------------------------------------------------------------

    def complete(self, prompt: str) -> str:
        """Answer, or fail as drawn."""
        fault, rng = self._draw(prompt, "sync")
        if fault == "hang":
            self._released.wait(self.hang_seconds)
            raise InjectedTimeoutError(f"injected hang ended after at most {self.hang_seconds} s")
        if fault is None:
            return valid_answer(prompt) if self.inner is None else self.inner.complete(prompt)
        return self._fail(fault, prompt, rng)

    async def acomplete(self, prompt: str) -> str:
        """Async :meth:`complete` (a ``hang`` sleeps without blocking the loop)."""
        fault, rng = self._draw(prompt, "async")
        if fault == "hang":
            deadline = time.monotonic() + self.hang_seconds
            while not self._released.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
            raise InjectedTimeoutError(f"injected hang ended after at most {self.hang_seconds} s")
        if fault is None:
            return valid_answer(prompt) if self.inner is None else await self.inner.acomplete(prompt)
        return self._fail(fault, prompt, rng)

    # -- internals -------------------------------------------------------------------------------

    def _draw(self, prompt: str, path: str) -> tuple[str | None, random.Random]:
        with self._lock:
            call = self.calls
            self.calls += 1
            faulty = self._rng.random() < self.rate
            fault = self._rng.choices(self.faults, self._weights)[0] if faulty else None
            rng = random.Random(self._rng.random())
            if fault is not None:
                self.injections.append(Injection(call, fault, path, prompt[:80]))
        return fault, rng

    def _fail(self, fault: str, prompt: str, rng: random.Random) -> str:
        if fault == "timeout":
            raise InjectedTimeoutError("injected timeout")
        if fault == "rate_limit":
            raise InjectedRateLimitError(self.retry_after)
        if fault == "server_error":
            raise InjectedServerError()
        if fault == "connection":
            raise InjectedConnectionError("injected connection reset by peer")
        if fault == "garbage":
            return _garbage(rng)
        if fault == "empty":
            return rng.choice(["", " ", "\n", "```\n```"])
        if fault == "huge":
            unit = valid_answer(prompt) + " lorem ipsum " if rng.random() < 0.5 else "lorem ipsum dolor "
            return (unit * (self.huge_chars // len(unit) + 1))[: self.huge_chars]
        if fault == "out_of_range":
            return _out_of_range(prompt, rng)
        if fault == "backward":
            return _backward(prompt, rng)
        if fault == "wrong_types":
            return _wrong_types(prompt, rng)
        return _hostile(prompt, rng)
