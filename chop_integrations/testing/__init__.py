"""Test doubles for pipelines built on this package: fake LLMs that need no network.

* :class:`ScriptedLLM` answers from a script and records every prompt (unit tests);
* :class:`SimulatedLLM` answers every prompt of the package validly and deterministically, after a
  fixed latency (notebooks, cost and speed benchmarks);
* :class:`FaultyLLM` fails on a seeded share of calls in every way a real provider does (timeouts,
  rate limits, 5xx, hangs, nonsense answers), so you can check that *your* pipeline finishes;
* :func:`share_tiktoken_cache` lets libraries that load tiktoken themselves find its file offline.

A pipeline that must survive a failing model::

    from chop_integrations import LumberChunker
    from chop_integrations import RetryPolicy
    from chop_integrations.testing import FaultyLLM

    llm = FaultyLLM(rate=0.3, seed=7)  # 30% of calls fail, in every way it knows
    chunker = LumberChunker(llm, timeout=1.0, retry=RetryPolicy(sleep=lambda s: None))
    chunks = chunker.chunk(text)
    assert "".join(c.text for c in chunks) == text
    print(llm.counts, chunker.last_usage.fallbacks)
"""

from .._text.tokens import share_tiktoken_cache
from ._faulty import (
    ANSWER_FAULTS,
    ERROR_FAULTS,
    FAULTS,
    FaultyLLM,
    InjectedConnectionError,
    InjectedHTTPError,
    InjectedRateLimitError,
    InjectedServerError,
    InjectedTimeoutError,
    Injection,
    valid_answer,
)
from ._scripted import ScriptedLLM
from ._simulated import SimulatedLLM

__all__ = [
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
