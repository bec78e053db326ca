"""The adapters' lazy forms give what their batch methods give."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from llama_index.core.schema import Document, NodeRelationship

from chop_integrations.langchain import LumberChunkerTextSplitter
from chop_integrations.llama_index import LumberChunkerNodeParser

from .test_lumber_stream import _long_document

TEXT = _long_document(40) + "Café ünïcode 電池 end."


def _blocks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("strip", [False, True])
def test_langchain_split_text_stream_equals_create_documents(strip: bool) -> None:
    splitter = LumberChunkerTextSplitter(max_tokens=120, add_start_index=True, strip_whitespace=strip)
    meta = {"source": "manual.md", "nested": {"a": [1]}}
    streamed = list(splitter.split_text_stream(_blocks(TEXT, 333), metadata=meta))
    batch = splitter.create_documents([TEXT], [meta])
    assert [(d.page_content, d.metadata) for d in streamed] == [(d.page_content, d.metadata) for d in batch]
    assert len(streamed) > 10
    streamed[0].metadata["nested"]["a"].append(2)
    assert meta["nested"]["a"] == [1]  # each document has its own copy


def test_langchain_lazy_split_documents_is_lazy_and_equal() -> None:
    splitter = LumberChunkerTextSplitter(max_tokens=120)
    seen: list[int] = []

    def documents() -> Any:
        for i in range(3):
            seen.append(i)
            yield LCDocument(page_content=TEXT[i * 500 :], metadata={"i": i})

    lazy = splitter.lazy_split_documents(documents())
    first = next(lazy)
    assert seen == [0] and first.metadata["i"] == 0
    rest = [first, *lazy]
    batch = splitter.split_documents(list(documents()))
    assert [(d.page_content, d.metadata) for d in rest] == [(d.page_content, d.metadata) for d in batch]


def test_llama_index_get_nodes_from_stream_equals_get_nodes_from_documents() -> None:
    parser = LumberChunkerNodeParser(max_tokens=120)
    meta = {"file_name": "manual.md", "title": "Manual"}
    streamed = list(parser.get_nodes_from_stream(_blocks(TEXT, 777), metadata=meta, doc_id="doc-1"))
    batch = parser.get_nodes_from_documents([Document(text=TEXT, metadata=meta, id_="doc-1")])
    assert len(streamed) == len(batch) > 10

    def view(node: Any) -> tuple[Any, ...]:
        return (
            node.text,
            node.start_char_idx,
            node.end_char_idx,
            node.metadata,
            node.excluded_embed_metadata_keys,
            node.excluded_llm_metadata_keys,
            node.ref_doc_id,
        )

    assert [view(n) for n in streamed] == [view(n) for n in batch]
    for before, after in itertools.pairwise(streamed):
        assert before.relationships[NodeRelationship.NEXT].node_id == after.node_id
        assert after.relationships[NodeRelationship.PREVIOUS].node_id == before.node_id
    assert parser.last_usage.chunks == len(streamed)
