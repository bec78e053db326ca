"""Fakes for the CHOP tests: a splitter, stand-in offline deciders and scripted LLMs."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable

from chop_integrations._deciders import DocContext
from chop_integrations._types import CNM, Chunk


def paragraphs(text: str) -> list[str]:
    """A splitter that drops the blank lines between paragraphs (CHOP must put them back)."""
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


class StubContinuity:
    """Offline stand-in: a chunk that opens with '#' starts a new topic."""

    def __init__(self) -> None:
        self.calls = 0

    def decide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        self.calls += 1
        return not current.text.lstrip().startswith("#")


class StubExtractor:
    """Offline stand-in: category 'offline', the chunk's first word as noun, the doc's model hint."""

    def __init__(self) -> None:
        self.calls = 0
        self.previous: list[CNM | None] = []

    def extract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        self.calls += 1
        self.previous.append(previous)
        words = re.findall(r"\w+", chunk.text)
        return CNM(category="offline", nouns=words[:1], model=doc.hints.get("model"))


def is_cnm_prompt(prompt: str) -> bool:
    return prompt.startswith("Signature of the passage")


def is_pair_prompt(prompt: str) -> bool:
    return '{"continues": true}' in prompt


def is_window_prompt(prompt: str) -> bool:
    return prompt.startswith("Passages [1]..")


def b_head(prompt: str) -> str:
    match = re.search(r"^B starts: (.*)$", prompt, re.M)
    return match.group(1) if match else ""


def passage(prompt: str) -> str:
    match = re.search(r"^Passage: (.*)$", prompt, re.M)
    return match.group(1) if match else ""


def window_items(prompt: str) -> list[tuple[int, str]]:
    """The numbered passages of a window prompt, [0] (the context) included."""
    return [(int(n), text) for n, text in re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)]


def signature(text: str, category: str = "llm", model: str = "M-1") -> dict[str, object]:
    return {"category": category, "nouns": re.findall(r"\w+", text)[:1], "model": model}


def rule_answer(prompt: str, new: Callable[[str], bool] = lambda text: text.startswith("#")) -> str:
    """A deterministic 'LLM' for every prompt kind: a passage for which ``new`` holds starts a new topic.

    The CNM it gives names the passage's first word (category "llm", model "M-1").
    """
    if is_cnm_prompt(prompt):
        return json.dumps(signature(passage(prompt)))
    if is_window_prompt(prompt):
        items = window_items(prompt)
        opens = not items or items[0][0] != 0
        answers: list[object] = []
        for number, text in items:
            if number == 0:
                continue
            answers.append(signature(text) if (number == 1 and opens) or new(text) else True)
        return json.dumps({"passages": answers})
    text = b_head(prompt)
    if is_pair_prompt(prompt):
        if not new(text):
            return '{"continues": true}'
        return json.dumps({"continues": False, "cnm": signature(text)})
    return "FALSE" if new(text) else "TRUE"


def never_new(prompt: str) -> str:
    """Every passage continues (documents' first chunks still get a CNM)."""
    return rule_answer(prompt, new=lambda text: False)


class AsyncCountingLLM:
    """An async LLM that counts calls in flight (each call yields to the loop a few times)."""

    model_id = "counting"

    def __init__(self, answer: Callable[[str], str] = rule_answer) -> None:
        self.answer = answer
        self.in_flight = 0
        self.max_in_flight = 0
        self.prompts: list[str] = []

    def complete(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answer(prompt)

    async def acomplete(self, prompt: str) -> str:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            for _ in range(5):
                await asyncio.sleep(0)
            self.prompts.append(prompt)
            return self.answer(prompt)
        finally:
            self.in_flight -= 1


DOC = (
    "# Battery\nCharge the battery before first use.\n\n"
    "Use only the supplied charger.\n\n"
    "# Camera\nOpen the camera app.\n\n"
    "Tap the shutter to take a picture.\n\n"
    "Photos are saved in the gallery.\n"
)
