"""LangChain's ``show_progress`` switches: a bar of decisions on a terminal, moving within one document."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.testing import SimulatedLLM
from tests.support.terminal import bar_frames, on_a_terminal

TEXT = "\n\n".join(
    f"{i}. Cleaning part {i}\n\nThe Nimbus K{i % 3}0 filter is rinsed under warm water and dried for an hour."
    for i in range(30)
)


def test_the_transformer_draws_decisions_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_a_terminal(monkeypatch)
    chop = CHOPDocumentTransformer(SimulatedLLM(latency_ms=0), chunk=True, decisions="pair", max_concurrency=2)
    chop.transform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})])
    assert "decision" not in terminal.getvalue()  # off by default
    chop.transform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})], show_progress=True)
    usage = chop.last_usage
    frames = bar_frames(terminal.getvalue(), "CHOP")
    assert len(frames) >= 2 and "decision" in frames[-1]
    assert f"tokens {usage.prompt_tokens}+{usage.completion_tokens}" in frames[-1]


async def test_the_async_transformer_draws_too(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_a_terminal(monkeypatch)
    chop = CHOPDocumentTransformer(SimulatedLLM(latency_ms=0), chunk=True, show_progress=True)
    await chop.atransform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})])
    assert f"calls {chop.last_usage.calls} " in bar_frames(terminal.getvalue(), "CHOP")[-1]


def test_the_transformer_draws_nothing_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    chop = CHOPDocumentTransformer(SimulatedLLM(latency_ms=0), chunk=True, show_progress=True)
    chop.transform_documents([Document(page_content=TEXT, metadata={"source": "manual.txt"})])
    assert "decision" not in capsys.readouterr().err  # (a warning may be logged there: no bar)


def test_the_splitter_draws_decisions_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_a_terminal(monkeypatch)
    splitter = LumberChunkerTextSplitter(SimulatedLLM(latency_ms=0), max_tokens=40, show_progress=True)
    splitter.split_documents([Document(page_content=TEXT)])
    frames = bar_frames(terminal.getvalue(), "LumberChunker")
    assert frames and f"calls {splitter.last_usage.calls} " in frames[-1]
    terminal.truncate(0)
    terminal.seek(0)
    LumberChunkerTextSplitter(SimulatedLLM(latency_ms=0), max_tokens=40).split_text(TEXT)
    assert "decision" not in terminal.getvalue()
