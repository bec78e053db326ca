"""Shared pieces of the incremental re-ingest tests: synthetic manuals, an edit, a counting model."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from chop_integrations._llm.cache import InMemoryCache
from chop_integrations.testing import SimulatedLLM

_WORDS = (
    "battery screen camera lens charger cable settings display brightness sound volume network wifi bluetooth "
    "account password backup restore storage memory card folder gallery photo video contact message call "
    "keyboard language update security lock fingerprint face notification panel widget wallpaper theme"
).split()
#: The paragraph the tests insert: long enough to push any window filled by position past its size.
INSERTED = (
    "NOTE Before you change this setting, back up your data, charge the battery to at least half, keep the "
    "device away from water and dust, and restart it afterwards so that the change takes effect everywhere.\n\n"
)


def manual(seed: int, sections: int = 80) -> str:
    """A synthetic manual: titled sections of one to three paragraphs of 20-60 words, deterministic per seed."""
    rng = random.Random(seed)
    parts = []
    for number in range(sections):
        title = f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS)} {number}"
        paragraphs = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 60))).capitalize() + "."
            for _ in range(rng.randint(1, 3))
        ]
        parts.append(title + "\n" + "\n\n".join(paragraphs))
    return "\n\n".join(parts) + "\n"


def insert_paragraph(text: str) -> str:
    """``text`` with :data:`INSERTED` as a new paragraph at the middle paragraph boundary."""
    breaks = [i for i in range(len(text)) if text.startswith("\n\n", i)]
    at = breaks[len(breaks) // 2] + 2
    return text[:at] + INSERTED + text[at:]


def reasked(make: Callable[[Any, Any], Any], text: str, edited: str) -> tuple[int, int]:
    """``(calls of a full ingest of text, calls to ingest edited after it with the same cache)``."""
    llm = SimulatedLLM(0)
    engine = make(llm, InMemoryCache())
    engine.chunk_many([text], metadatas=[{"source": "manual.txt"}])
    full = llm.calls
    engine.chunk_many([edited], metadatas=[{"source": "manual.txt"}])
    return full, llm.calls - full
