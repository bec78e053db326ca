"""Whole documents given to ``CHOPDocumentTransformer`` (no splitter, no ``chunk=True``) are chunked, never kept whole.

The transformer takes pre-split chunks; a document over ``max_tokens`` used to come back as one chunk (a
163,638-character manual as one, with no warning), which an embedding model truncates. Now such a document
is chunked by CHOP's own chunker, with one warning per call: no chunk over ``max_tokens``, no text lost.
"""

from __future__ import annotations

import asyncio
import logging
from itertools import groupby

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document

from chop_integrations.langchain import CHOPDocumentTransformer

WORDS = st.sampled_from(["filter", "tank", "Nimbus", "AC-12", "clean", "the", "water", "every", "week", "E3", "—"])
SENTENCE = st.lists(WORDS, min_size=1, max_size=14).map(lambda words: " ".join(words).capitalize() + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=6).map(" ".join)
HEADING = st.sampled_from(["", "## Cleaning\n\n", "Error codes\n\n", "1. Warranty\n\n"])
TEXT = st.lists(st.tuples(HEADING, PARAGRAPH).map("".join), min_size=1, max_size=12).map("\n\n".join)


def _by_document(chunks: list[Document]) -> dict[str, list[Document]]:
    return {key: list(group) for key, group in groupby(chunks, key=lambda d: d.metadata["chop_document"])}


@given(texts=st.lists(TEXT, min_size=1, max_size=3), max_tokens=st.integers(min_value=12, max_value=120))
def test_no_chunk_over_max_tokens_and_no_text_lost(texts: list[str], max_tokens: int) -> None:
    chop = CHOPDocumentTransformer(max_tokens=max_tokens, add_start_index=True)
    documents = [Document(page_content=text, metadata={"source": f"manual-{n}.txt"}) for n, text in enumerate(texts)]
    chunks = list(chop.transform_documents(documents))
    for chunk in chunks:
        assert chop.chop.settings.count(chunk.metadata["chop_text"]) <= max_tokens
    per_document = _by_document(chunks)
    assert len(per_document) == len(texts)
    for text, parts in zip(texts, per_document.values(), strict=True):
        assert "".join(d.metadata["chop_text"] for d in parts) == text
        if chop.chop.settings.count(text) > max_tokens:
            assert [d.metadata["start_index"] for d in parts] == [
                sum(len(p.metadata["chop_text"]) for p in parts[:i]) for i in range(len(parts))
            ]
        else:
            assert len(parts) == 1  # a document that fits stays one chunk, as given


def test_a_long_manual_is_chunked_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    sections = [f"Section {n}\n\n" + "Clean the filter of the Nimbus AC-12 every week. " * 40 for n in range(40)]
    manual = "Nimbus AC-12 user manual\n\n" + "\n\n".join(sections)
    chop = CHOPDocumentTransformer()
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        chunks = list(chop.transform_documents([Document(page_content=manual)]))
    assert (
        len(chunks) > 10 and max(chop.chop.settings.count(d.metadata["chop_text"]) for d in chunks) <= chop.max_tokens
    )
    assert "".join(d.metadata["chop_text"] for d in chunks) == manual
    assert len({d.metadata["chop_document"] for d in chunks}) == 1
    assert [d.metadata["chop_index"] for d in chunks] == list(range(len(chunks)))
    assert sum("over max_tokens" in r.getMessage() for r in caplog.records) == 1
    again = asyncio.run(chop.atransform_documents([Document(page_content=manual)]))
    assert [d.page_content for d in again] == [d.page_content for d in chunks]


def test_pieces_that_fit_are_kept_as_given_with_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    pieces = [Document(page_content=f"Clean the filter, step {n}.", metadata={"source": "m.txt"}) for n in range(5)]
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        chunks = CHOPDocumentTransformer().transform_documents(pieces)
    assert [d.metadata["chop_text"] for d in chunks] == [p.page_content for p in pieces]
    assert not caplog.records


def test_chunk_true_chunks_whole_documents_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    manual = "\n\n".join(f"Section {n}\n\n" + "Rinse the tank and dry it. " * 30 for n in range(10))
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        chunks = CHOPDocumentTransformer(chunk=True).transform_documents([Document(page_content=manual)])
    assert len(chunks) > 1 and not caplog.records
