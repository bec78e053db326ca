"""Usage accounting: what a run cost in calls, tokens and time."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class UsageReport:
    """Counters for one run (or a dry-run estimate) of an engine.

    Attributes:
        calls: LLM calls actually sent (cache hits excluded, retries included).
        cache_hits: Answers served from the cache instead of a call.
        prompt_tokens: Tokens sent in prompts (counted with the engine's token counter).
        completion_tokens: Tokens received in answers.
        document_tokens: Tokens of the documents processed.
        retries: Calls repeated after a transient error or an invalid answer.
        fallbacks: Decisions taken by the offline decider because the LLM failed.
        invalid_answers: Answers that could not be parsed or validated.
        documents: Documents processed.
        chunks: Chunks produced.
        wall_s: Wall-clock seconds of the run.
        estimated: True for a dry-run estimate, where nothing was called.
        prefix_choice: What CHOP put in the embedding prefix and why (``"adaptive: model, nouns
            (category dropped: ...)"``); empty for LumberChunker. A text, not a counter: the last wins.
    """

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    document_tokens: int = 0
    retries: int = 0
    fallbacks: int = 0
    invalid_answers: int = 0
    documents: int = 0
    chunks: int = 0
    wall_s: float = 0.0
    estimated: bool = False
    prefix_choice: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def amplification(self) -> float:
        """Prompt tokens sent (or served from cache) per document token; 0.0 with no documents."""
        return self.prompt_tokens / self.document_tokens if self.document_tokens else 0.0

    def add(self, **counts: float | str) -> None:
        """Add to counters by name, safely from several threads."""
        with self._lock:
            for name, value in counts.items():
                if isinstance(value, str):
                    if value:
                        setattr(self, name, value)  # a description, not a counter: the last one wins
                    continue
                setattr(self, name, getattr(self, name) + value)

    def merge(self, other: UsageReport) -> None:
        """Add every counter of ``other`` into this report."""
        self.add(**{k: v for k, v in other.to_dict().items() if k not in {"amplification", "estimated"}})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view including the derived ``amplification``."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}
        data["amplification"] = round(self.amplification, 4)
        return data

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def summary(self) -> str:
        """One human-readable line, as the CLI prints it."""
        return (
            f"calls={self.calls} cache_hits={self.cache_hits} prompt_tokens={self.prompt_tokens} "
            f"completion_tokens={self.completion_tokens} document_tokens={self.document_tokens} "
            f"amplification={self.amplification:.3f} retries={self.retries} fallbacks={self.fallbacks} "
            f"invalid_answers={self.invalid_answers} documents={self.documents} chunks={self.chunks} "
            f"wall_s={self.wall_s:.2f}" + (" (estimate)" if self.estimated else "")
        )
