"""chonkie's SlumberChunker on :class:`~chop_integrations.testing.SimulatedLLM`'s latency and answers."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from chop_integrations.testing import SimulatedLLM

__all__ = ["simulated_genie"]

#: How SlumberChunker (text mode) lists its passages: ``ID n: text``, one a line.
_PASSAGE_IDS = re.compile(r"^ID (\d+):(.*)$", re.MULTILINE)


def simulated_genie(latency_ms: float, *, seed: int = 0, token_counter: Callable[[str], int] | None = None) -> Any:
    """A chonkie ``BaseGenie`` that waits ``latency_ms`` per call and answers like :class:`SimulatedLLM`.

    chonkie's SlumberChunker (text mode) lists passages as ``ID n: text`` and
    expects the number of the first passage of a new topic, or ``N + 1`` to
    keep them all together. The genie counts its calls and, with a
    ``token_counter``, the prompt tokens it was sent (``.calls``, ``.prompt_tokens``).

    Raises:
        ImportError: When chonkie is not installed (the 'bench' extra).
    """
    from chonkie.genie import BaseGenie

    simulated = SimulatedLLM(latency_ms, seed=seed)

    class SimulatedGenie(BaseGenie):  # type: ignore[misc]
        """Sleeps, then names a heading-like passage (or keeps the group together)."""

        def __init__(self) -> None:
            self.calls = 0
            self.prompt_tokens = 0

        def generate(self, prompt: str) -> str:
            self.calls += 1
            if token_counter is not None:
                self.prompt_tokens += token_counter(prompt)
            time.sleep(simulated.latency_s)
            ids = [(int(m.group(1)), m.group(2)) for m in _PASSAGE_IDS.finditer(prompt)]
            if len(ids) < 2:
                return str(ids[-1][0] + 1 if ids else 1)
            rng = simulated.rng("genie", prompt)
            for number, text in ids[1:]:
                if simulated.starts_topic(text, rng):
                    return str(number)
            return str(ids[-1][0] + 1)

    return SimulatedGenie()
