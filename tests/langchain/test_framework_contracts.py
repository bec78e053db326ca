"""Framework contracts: one type per metadata key in both frameworks, flat values, keep_separator."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_community.vectorstores.utils import filter_complex_metadata
from langchain_core.documents import Document
from llama_index.core.schema import TextNode

from chop_integrations._chop.base_chunks import METADATA_KEYS
from chop_integrations._errors import ConfigurationError
from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
from chop_integrations.llama_index import CHOPExtractor

PARTS = [
    "KX-200 camera manual. Insert the battery into the KX-200 until it clicks.",
    "Charging the KX-200 takes two hours; the lamp turns green.",
    "Untitled notes without a model or category.",
    "More untitled notes.",
]
SOURCES = ["kx200.txt", "kx200.txt", "notes.txt", "notes.txt"]


def _langchain() -> list[dict[str, Any]]:
    docs = [Document(text, metadata={"source": s}) for text, s in zip(PARTS, SOURCES, strict=True)]
    return [d.metadata for d in CHOPDocumentTransformer().transform_documents(docs)]


def _llama_index() -> list[dict[str, Any]]:
    nodes = [TextNode(text=text, metadata={"source": s}) for text, s in zip(PARTS, SOURCES, strict=True)]
    return CHOPExtractor().extract(nodes)


FLAT = (str, bool, int, float)


def test_every_chop_key_has_one_flat_type_in_both_frameworks() -> None:
    langchain, llama_index = _langchain(), _llama_index()
    for key in METADATA_KEYS:
        types = {type(meta[key]) for meta in [*langchain, *llama_index]}
        assert len(types) == 1, f"{key}: {types}"
        assert types <= set(FLAT), f"{key}: {types}"
    assert all(isinstance(meta["chop_nouns"], str) for meta in [*langchain, *llama_index])
    firsts = [langchain[0], langchain[2], llama_index[0], llama_index[2]]
    assert [meta["chop_continues"] for meta in firsts] == [False] * 4  # a first chunk continues nothing


def test_filter_complex_metadata_keeps_every_chop_key() -> None:
    docs = [Document(PARTS[0], metadata={"source": SOURCES[0]}), Document(PARTS[2], metadata={"source": SOURCES[2]})]
    out = CHOPDocumentTransformer().transform_documents(docs)
    filtered = filter_complex_metadata(list(out))
    for before, after in zip(out, filtered, strict=True):
        assert {k: after.metadata[k] for k in METADATA_KEYS} == {k: before.metadata[k] for k in METADATA_KEYS}


@pytest.mark.parametrize("value", [False, "start", "both"])
def test_keep_separator_that_cannot_be_honoured_is_rejected(value: Any) -> None:
    with pytest.raises(ConfigurationError, match="keep_separator"):
        LumberChunkerTextSplitter(max_tokens=24, keep_separator=value)


@pytest.mark.parametrize("value", [True, "end"])
def test_keep_separator_true_or_end_is_what_the_splitter_does(value: Any) -> None:
    text = "First paragraph here.\n\nSecond paragraph there.\n\nThird one."
    pieces = LumberChunkerTextSplitter(max_tokens=6, keep_separator=value).split_text(text)
    assert "".join(pieces) == text and len(pieces) > 1
    assert all(piece.endswith("\n\n") for piece in pieces[:-1])  # each separator ends the chunk before it
