"""LlamaIndex's ``show_progress`` with an LLM: a bar of decisions that moves within one document, on a terminal.

The extractor draws by default, as LlamaIndex's own extractors do, and honours ``show_progress=`` given at
call time (``extractor(nodes, show_progress=False)``, what ``BaseExtractor.__call__`` forwards).
"""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core import Document
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from chop_integrations import Progress
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from chop_integrations.testing import SimulatedLLM
from tests.support.terminal import bar_frames, on_a_terminal

TEXT = "\n\n".join(
    f"{i}. Cleaning part {i}\n\nThe Nimbus K{i % 3}0 filter is rinsed under warm water and dried for an hour."
    for i in range(30)
)


def _nodes(count: int = 24) -> list[TextNode]:
    source = RelatedNodeInfo(node_id="manual")
    paragraphs = TEXT.split("\n\n")[:count]
    return [TextNode(text=t, relationships={NodeRelationship.SOURCE: source}) for t in paragraphs]


def test_the_extractor_shows_decisions_by_default_and_ends_at_its_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_a_terminal(monkeypatch)
    extractor = CHOPExtractor(llm=SimulatedLLM(latency_ms=0), decisions="pair", max_concurrency=2)
    assert extractor.show_progress is True  # LlamaIndex's extractors' default
    extractor(_nodes())
    usage = extractor.last_usage
    frames = bar_frames(terminal.getvalue(), "CHOP signatures")
    assert frames and "decision" in frames[-1], repr(terminal.getvalue()[-500:])
    assert f"tokens {usage.prompt_tokens}+{usage.completion_tokens}" in frames[-1]
    assert f"{usage.calls}/{usage.calls} " in frames[-1]  # one decision per call here: all of them, one document


def test_the_extractor_honours_show_progress_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_a_terminal(monkeypatch)
    extractor = CHOPExtractor(llm=SimulatedLLM(latency_ms=0))
    extractor(_nodes(), show_progress=False)
    assert "decision" not in terminal.getvalue()
    quiet = CHOPExtractor(llm=SimulatedLLM(latency_ms=0), show_progress=False)
    quiet(_nodes(), show_progress=True)
    assert bar_frames(terminal.getvalue(), "CHOP signatures")


def test_the_extractor_draws_nothing_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    CHOPExtractor(llm=SimulatedLLM(latency_ms=0))(_nodes())
    assert "decision" not in capsys.readouterr().err  # (a warning may be logged there: no bar)


def test_the_node_parser_bar_counts_decisions_with_an_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_a_terminal(monkeypatch)
    parser = LumberChunkerNodeParser(llm=SimulatedLLM(latency_ms=0), max_tokens=40, max_concurrency=2)
    parser.get_nodes_from_documents([Document(text=TEXT)], show_progress=True)
    frames = bar_frames(terminal.getvalue(), "Chunking documents")
    assert frames and "decision" in frames[-1] and f"calls {parser.last_usage.calls} " in frames[-1]
    terminal.truncate(0)
    terminal.seek(0)
    parser.get_nodes_from_documents([Document(text=TEXT)])
    assert "decision" not in terminal.getvalue()


def test_the_callback_and_limits_are_component_fields() -> None:
    seen: list[Progress] = []
    extractor = CHOPExtractor(llm=SimulatedLLM(latency_ms=0), on_progress=seen.append, show_progress=False)
    extractor(_nodes())
    assert seen and seen[-1].calls == extractor.last_usage.calls
    limited = CHOPExtractor(max_calls=5)
    assert limited.max_calls == 5 and limited.config.max_calls == 5
    data: dict[str, Any] = limited.to_dict()
    assert "max_calls" not in data and data == CHOPExtractor().to_dict()  # a limit never changes the cache key
