"""Other people's documents: no text lost or changed, and streaming cuts as batch does (slow: ~100 real files)."""

from __future__ import annotations

import pytest

from chop_bench.eval.general import HELDOUT_SOURCES, SOURCES, build_general_set
from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._types import Chunk

pytestmark = pytest.mark.slow


def _documents() -> list[tuple[str, str]]:
    return [*build_general_set(SOURCES).corpus.docs, *build_general_set(HELDOUT_SOURCES).corpus.docs]


def _assert_tiles(name: str, text: str, chunks: list[Chunk]) -> None:
    """Every chunk is ``text[start:end]``, in order, without overlap; only whitespace falls between or after."""
    position = 0
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text, (name, chunk.start)
        assert chunk.start >= position and not text[position : chunk.start].strip(), (name, position, chunk.start)
        position = chunk.end
    assert not text[position:].strip(), (name, "tail lost")


@pytest.mark.parametrize("engine", [LumberChunker, CHOPChunker])
def test_installed_documents_are_chunked_losslessly_batch_and_stream(engine: type) -> None:
    documents = _documents()
    assert len(documents) >= 80
    batch = engine().chunk_many([t for _, t in documents], metadatas=[{"source": n} for n, _ in documents])
    for (name, text), chunks in zip(documents, batch, strict=True):
        _assert_tiles(name, text, chunks)
        pieces = [text[i : i + 4096] for i in range(0, len(text), 4096)]
        streamed = list(engine().chunk_stream(pieces, metadata={"source": name}))
        _assert_tiles(name, text, streamed)
        alone = engine().chunk(text, metadata={"source": name})
        assert [(c.start, c.end) for c in streamed] == [(c.start, c.end) for c in alone], name
