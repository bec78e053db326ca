"""A valid value other than the default for every field of both engine configs, for the parity tests.

The surfaces' parity test (tests/test_surface_parity.py: LangChain, LlamaIndex, the CLI, Ray), the LlamaIndex
cache key's (tests/llama_index/test_li_config.py) and the LLM options' (tests/test_llm_options.py) walk the
configs' fields with these values, so a field added to a config fails each of them until it gets one here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chop_integrations import (
    InMemoryCache,
    LumberChunker,
    OfflineCNMExtractor,
    OfflineContinuity,
    OfflineTopicShift,
    PromptBudget,
    RetryPolicy,
)


def _word_count(text: str) -> int:
    return len(text.split())


def _ignore_progress(progress: Any) -> None:
    return None


#: A valid value other than the default for every field of both configs (the LLM options are shared).
SAMPLES: dict[str, Callable[[], Any]] = {
    "on_llm_error": lambda: "raise",
    "max_concurrency": lambda: 3,
    "cache": InMemoryCache,
    "retry": lambda: RetryPolicy(max_attempts=2),
    "timeout": lambda: 12.5,
    "mode": lambda: "paper",
    "max_tokens": lambda: 123,
    "theta": lambda: 321,
    "token_counter": lambda: _word_count,
    "max_calls": lambda: 500,
    "max_llm_tokens": lambda: 250_000,
    "on_progress": lambda: _ignore_progress,
    "paper_restart": lambda: "answer+1",
    "window_tokens": lambda: 999,
    "context_tokens": lambda: 17,
    "fallback": OfflineTopicShift,
    "target_tokens": lambda: 33,
    "min_tokens": lambda: 5,
    "embedding": lambda: 256,
    "embedding_reserve": lambda: 7,
    "chunker": LumberChunker,
    "prefix": lambda: "fixed",
    "new_document_resets": lambda: False,
    "source_key": lambda: "file",
    "decisions": lambda: "pair",
    "llm_boundaries": lambda: True,
    "budget": lambda: PromptBudget(tail_tokens=10),
    "offline_continuity": OfflineContinuity,
    "offline_extractor": OfflineCNMExtractor,
}
