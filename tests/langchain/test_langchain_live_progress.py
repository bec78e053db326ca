"""LangChain's ``show_progress`` switches: a bar of decisions on a terminal, moving within one document."""

from __future__ import annotations

import io
import re
import sys

import pytest
from langchain_core.documents import Document

from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.testing import SimulatedLLM

TEXT = "\n\n".join(
    f"{i}. Cleaning part {i}\n\nThe Nimbus K{i % 3}0 filter is rinsed under warm water and dried for an hour."
    for i in range(30)
)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _frames(drawn: str, label: str) -> list[str]:
    return [frame for frame in re.split(r"[\r\n]", drawn) if frame.startswith(label)]


def _on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    """A stand-in terminal as stderr (set in the test itself: pytest's capture sets stderr again after fixtures)."""
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def test_the_transformer_draws_decisions_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _on_a_terminal(monkeypatch)
    chop = CHOPDocumentTransformer(SimulatedLLM(latency_ms=0), chunk=True, decisions="pair", max_concurrency=2)
    chop.transform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})])
    assert "decision" not in terminal.getvalue()  # off by default
    chop.transform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})], show_progress=True)
    usage = chop.last_usage
    frames = _frames(terminal.getvalue(), "CHOP")
    assert len(frames) >= 2 and "decision" in frames[-1]
    assert f"tokens {usage.prompt_tokens}+{usage.completion_tokens}" in frames[-1]


async def test_the_async_transformer_draws_too(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _on_a_terminal(monkeypatch)
    chop = CHOPDocumentTransformer(SimulatedLLM(latency_ms=0), chunk=True, show_progress=True)
    await chop.atransform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})])
    assert f"calls {chop.last_usage.calls} " in _frames(terminal.getvalue(), "CHOP")[-1]


def test_the_transformer_draws_nothing_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    chop = CHOPDocumentTransformer(SimulatedLLM(latency_ms=0), chunk=True, show_progress=True)
    chop.transform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})])
    assert "decision" not in capsys.readouterr().err  # (a warning may be logged there: no bar)


def test_the_splitter_draws_decisions_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _on_a_terminal(monkeypatch)
    splitter = LumberChunkerTextSplitter(SimulatedLLM(latency_ms=0), max_tokens=40, show_progress=True)
    splitter.split_documents([Document(page_content=TEXT)])
    frames = _frames(terminal.getvalue(), "LumberChunker")
    assert frames and f"calls {splitter.last_usage.calls} " in frames[-1]
    terminal.truncate(0)
    terminal.seek(0)
    LumberChunkerTextSplitter(SimulatedLLM(latency_ms=0), max_tokens=40).split_text(TEXT)
    assert "decision" not in terminal.getvalue()
