"""CHOP's window decision mode: one prompt judges a run of consecutive chunks.

For each passage of the window the model answers ``true`` (it continues the
passage before it) or its CNM signature (a new topic or document). One call
replaces a continuity call per pair and most CNM calls, which makes this the
cheapest mode (``decisions="window"``, the default). The passages are shown
one per line, whole when short, else as head and tail; the passage before the
window (if any) is shown as ``[0]`` for context.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from .._deciders import DocContext
from .._errors import AnswerParseError
from .._llm.parsing import extract_json, parse_bool, parse_model
from .._text.tokens import TokenCounter
from .._types import CNM
from .answers import CNMAnswer
from .excerpts import PromptBudget, compact, head, hint_line, tail

__all__ = ["WINDOW_PROMPT", "WindowAnswer", "WindowResult", "parse_window", "window_excerpt", "window_prompt"]

WINDOW_PROMPT = (
    "Passages [1]..[{last}] follow each other{where}. For each passage answer true if it continues the topic "
    "of the passage before it, else (a new topic or document) its signature "
    '{{"category": broad product family, "nouns": [1-2 key nouns for its target or action], '
    '"model": specific model or series name}}, null where unknown.{first}\n'
    '{hints}JSON only: {{"passages": [one answer per passage]}}\n'
    "{context}{passages}"
)

#: One ``(continues, cnm)`` per chunk of a window.
WindowResult = list[tuple[bool, "CNM | None"]]


class WindowAnswer(BaseModel):
    """Structured answer of a window: per passage ``true`` (continues) or its signature (a new topic)."""

    passages: list[bool | CNMAnswer] = Field(
        description="One item per passage, in order: true if it continues the passage before it, else its signature."
    )


def window_excerpt(text: str, budget: PromptBudget, count: TokenCounter) -> str:
    """A passage as a window shows it: whole when short, else its head and its tail, on one line."""
    whole = compact(text).replace("\n", " / ")
    if count(whole) <= budget.cnm_tokens + budget.tail_tokens:
        return whole
    start = head(text, budget.cnm_tokens, count).replace("\n", " / ")
    end = tail(text, budget.tail_tokens, count).replace("\n", " / ")
    return f"{start} {end}"


def window_prompt(excerpts: list[str], context: str | None, doc: DocContext) -> str:
    """The window prompt: ``excerpts`` numbered from 1, after the previous passage's tail as [0] (if any)."""
    hints = hint_line(doc)
    return WINDOW_PROMPT.format(
        last=len(excerpts),
        where=" in one document" if hints else "",
        first="" if context is not None else " [1] opens the document: give its signature.",
        hints=hints,
        context="" if context is None else f"[0] {context}\n",
        passages="\n".join(f"[{n}] {text}" for n, text in enumerate(excerpts, 1)),
    )


def parse_window(answer: str, size: int) -> WindowResult:
    """``size`` items of ``(continues, cnm)``; ``false`` gives ``(False, None)`` (the CNM is asked for later).

    Raises:
        AnswerParseError: When the answer holds no list of passages, or not ``size`` of them.
    """
    value = extract_json(answer)
    if isinstance(value, list):
        value = {"passages": value}
    try:
        parsed = parse_model(answer if not isinstance(value, dict) else json.dumps(value), WindowAnswer)
    except AnswerParseError:
        items = value.get("passages") if isinstance(value, dict) else None
        if not isinstance(items, list):
            raise
        parsed = WindowAnswer(passages=[_lenient_item(item) for item in items])
    if len(parsed.passages) != size:
        raise AnswerParseError(f"expected {size} answers in passages (one per passage), got {len(parsed.passages)}")
    return [
        (True, None) if item is True else (False, None if item is False else item.to_cnm()) for item in parsed.passages
    ]


def _lenient_item(item: Any) -> bool | CNMAnswer:
    """One window item: a boolean, a TRUE/FALSE word, or a CNM object; anything else counts as false."""
    if isinstance(item, bool):
        return item
    try:
        if isinstance(item, dict):
            return parse_model(json.dumps(item), CNMAnswer)
        return parse_bool(str(item))
    except AnswerParseError:
        return False
