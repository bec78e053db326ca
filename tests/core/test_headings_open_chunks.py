"""A heading opens the chunk that holds its body, and no cut falls inside a word: every engine, batch and stream."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations.testing import ScriptedLLM, SimulatedLLM
from tests.stream.documents import pieces_of
from tests.support.cut_documents import check_cuts, sectioned

_NUMBERED = re.compile(r"^#(\d+) ", re.M)
_PAPER_IDS = re.compile(r"ID (\d+):")
SIZES = [None, 100]  # the default size and a small one
SEED = (
    "1. Problemstellung\n\nEin Absatz über das Problem, das Verfahren und seine Grenzen.\n\n"
    "2. Methodik: Das CHOP-Framework\n\nCHOP ist ein Framework, das die Genauigkeit verbessert.\n\n"
)


def every_unit(prompt: str) -> str:
    """LumberChunker's default prompt answered with every numbered unit: bodies after their headings too."""
    return json.dumps({"starts": [int(n) for n in _NUMBERED.findall(prompt)]})


def second_id(prompt: str) -> str:
    """The paper prompt answered with the second ID it shows (often the body right after a title)."""
    ids = _PAPER_IDS.findall(prompt)
    return f"Answer: ID {ids[1] if len(ids) > 1 else ids[0]}"


def _options(size: int | None) -> dict[str, Any]:
    return {} if size is None else {"max_tokens": size}


def engines(size: int | None) -> dict[str, Any]:
    """Every way a cut is chosen: offline topic shifts, an LLM's answers (both modes), CHOP on top of both."""
    options = _options(size)
    return {
        "lumber": LumberChunker(**options),
        "lumber-llm": LumberChunker(ScriptedLLM(default=every_unit), **options),
        "lumber-paper": LumberChunker(ScriptedLLM(default=second_id), mode="paper", **options),
        "chop": CHOPChunker(**options),
        "chop-llm": CHOPChunker(
            SimulatedLLM(latency_ms=0, shift_rate=0.5, heading_shift_rate=0.5), llm_boundaries=True, **options
        ),
    }


@settings(max_examples=12)
@given(sectioned(), st.sampled_from(SIZES))
def test_batch_chunks_open_with_their_headings(text: str, size: int | None) -> None:
    for name, engine in engines(size).items():
        chunks = engine.chunk(text)
        check_cuts(text, chunks)
        assert all(c.token_count <= (size or 550) for c in chunks), name


@settings(max_examples=12)
@given(st.data(), sectioned(), st.sampled_from(SIZES))
def test_streamed_chunks_open_with_their_headings_and_equal_the_batch_run(
    data: st.DataObject, text: str, size: int | None
) -> None:
    pieces = data.draw(pieces_of(text))
    for engine in (
        LumberChunker(**_options(size)),
        LumberChunker(ScriptedLLM(default=every_unit), **_options(size)),
        CHOPChunker(**_options(size)),
    ):
        streamed = list(engine.chunk_stream(iter(pieces)))
        check_cuts(text, streamed)
        assert [(c.start, c.end) for c in streamed] == [(c.start, c.end) for c in engine.chunk(text)]


@pytest.mark.parametrize("size", SIZES)
def test_numbered_headings_of_the_german_seed_open_their_chunks(size: int | None) -> None:
    for name, engine in engines(size).items():
        chunks = engine.chunk(SEED)
        assert not any(c.text.rstrip().endswith(("Problemstellung", "CHOP-Framework")) for c in chunks), name
