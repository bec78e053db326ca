"""A scripted fake LLM: answers from a list, records every prompt (for unit tests of a pipeline)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable


class ScriptedLLM:
    """A fake LLM for tests: answers from a script, records every prompt.

    Args:
        answers: Answers returned in order. An item may be a string, an
            exception instance (raised instead of answering), or a callable
            ``(prompt) -> str`` (called with the prompt).
        default: Answer (same kinds as above) once the script is used up; with
            ``None`` an exhausted script raises :class:`IndexError`.
        model_id: Identity for cache keys.

    Attributes:
        prompts: Every prompt received, in order.
    """

    def __init__(
        self,
        answers: Iterable[str | BaseException | Callable[[str], str]] = (),
        *,
        default: str | BaseException | Callable[[str], str] | None = None,
        model_id: str = "scripted",
    ) -> None:
        self._answers = list(answers)
        self._default = default
        self._lock = threading.Lock()
        self.prompts: list[str] = []
        self.model_id = model_id

    def _next(self, prompt: str) -> str:
        with self._lock:
            self.prompts.append(prompt)
            item = self._answers.pop(0) if self._answers else self._default
        if item is None:
            raise IndexError(f"ScriptedLLM ran out of answers after {len(self.prompts) - 1} prompts")
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            return str(item(prompt))
        return item

    def complete(self, prompt: str) -> str:
        """Return the next scripted answer."""
        return self._next(prompt)

    async def acomplete(self, prompt: str) -> str:
        """Return the next scripted answer (yields to the loop first)."""
        await asyncio.sleep(0)
        return self._next(prompt)
