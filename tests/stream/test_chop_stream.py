"""CHOPChunker.chunk_stream: the batch run's signed chunks from text pieces, in bounded memory (offline)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chop_integrations import CHOPChunker, CorpusState, LumberChunker
from chop_integrations._chop.stream import HOLD_CHUNKS, OPENING_CHARS, CHOPStream
from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._offline import OfflineContinuity
from chop_integrations._text.headings import Headings, HeadingStream, heading_starts, markdown_within, outline
from chop_integrations._types import CNM, Chunk
from chop_integrations.testing import valid_answer

from .documents import documents, pieces_of

METADATAS = [
    {"source": "/data/Acme_X-200_User_Manual.txt", "category": "smartphone"},
    {"title": "Kettle K1", "model": "K1"},
    {"title": "Kettle K1", "model": "K1", "category": "kettle"},
    {"category": "manual"},
    {"source": "notes.md"},
    {},
]


def rows(chunks: list[Chunk]) -> list[tuple[Any, ...]]:
    return [
        (c.text, c.start, c.end, c.token_count, c.metadata, c.cnm, c.continues_previous, c.prefix, c.embed_text)
        for c in chunks
    ]


def corpus(seen: str | None) -> CorpusState | None:
    """A corpus seen before (its name is then printed), or none."""
    return CorpusState(model=[seen], category=["printer"]) if seen else None


def streamable(text: str, metadata: dict[str, Any], batch: list[Chunk]) -> bool:
    """The documented conditions: markdown headings (if any) start in the opening; two sections within the bound."""
    opening = OPENING_CHARS if metadata.get("category") else 400_000
    if markdown_within(text) != markdown_within(text[:opening]):
        return False
    sections = [tuple(c.cnm.nouns) for c in batch if c.cnm is not None and c.cnm.nouns]
    return len(batch) < HOLD_CHUNKS or len(set(sections[:HOLD_CHUNKS])) >= 2 or len(set(sections)) < 1


@pytest.mark.parametrize("prefix", ["adaptive", "fixed"])
@settings(max_examples=60, deadline=None)
@given(data=st.data(), text=documents(max_blocks=40), metadata=st.sampled_from(METADATAS))
def test_stream_equals_batch(prefix: str, data: st.DataObject, text: str, metadata: dict[str, Any]) -> None:
    seen = data.draw(st.sampled_from([None, "Other Printer"]))
    batch = CHOPChunker(prefix=prefix, corpus=corpus(seen)).chunk(text, metadata=dict(metadata))
    assume(streamable(text, metadata, batch))
    step = data.draw(st.integers(1, 64))  # or many small pieces, most of them with no line end
    pieces = data.draw(st.one_of(pieces_of(text), st.just([text[i : i + step] for i in range(0, len(text), step)])))
    chunker = CHOPChunker(prefix=prefix, corpus=corpus(seen))
    streamed = list(chunker.chunk_stream(iter(pieces), metadata=dict(metadata)))
    assert rows(streamed) == rows(batch)
    assert "".join(c.text for c in streamed) == text


@settings(max_examples=30, deadline=None)
@given(data=st.data(), text=documents(max_blocks=30), metadata=st.sampled_from(METADATAS))
def test_async_stream_equals_batch(data: st.DataObject, text: str, metadata: dict[str, Any]) -> None:
    batch = CHOPChunker().chunk(text, metadata=dict(metadata))
    assume(streamable(text, metadata, batch))
    pieces = data.draw(pieces_of(text))

    async def source() -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    async def collect() -> list[Chunk]:
        return [chunk async for chunk in CHOPChunker().achunk_stream(source(), metadata=dict(metadata))]

    assert rows(asyncio.run(collect())) == rows(batch)


def test_long_markdown_document_in_small_pieces() -> None:
    """A document longer than the opening, several sections: every chunk equal, the opening held once."""
    text = "# Acme X-200\n\n" + "".join(
        f"## Part {i}\n\nThe printer tray {i} holds paper. Press the key to feed it.\n\n### Detail {i}\n\n"
        f"Open the cover {i} and clean the drum with a dry cloth.\n\n"
        for i in range(120)
    )
    metadata = {"source": "acme_x200.md", "category": "printer"}
    stream = CHOPStream(CHOPChunker(), metadata)
    streamed = list(stream.run(text[i : i + 50] for i in range(0, len(text), 50)))
    assert rows(streamed) == rows(CHOPChunker().chunk(text, metadata=metadata))
    assert stream.opening_chars <= OPENING_CHARS + 50


def _peaks(copies: int) -> tuple[int, int, int, int]:
    part = "".join(
        f"SECTION {i}\n\nThe battery lasts a day. Charge it with the cable.\n\n"
        f"Usage {i}\n\nHold the key to start. Select the mode and tap open.\n\n"
        for i in range(40)
    )
    metadata = {"title": "Acme X-200", "category": "smartphone"}
    stream = CHOPStream(CHOPChunker(), metadata)
    count = sum(1 for _ in stream.run(part[i : i + 200] for _ in range(copies) for i in range(0, len(part), 200)))
    return stream.peak_held, stream.headings.peak_entries, stream.opening_chars, count


def test_memory_bounded_by_the_window_not_the_document() -> None:
    """What the stream holds (chunks, heading entries, opening) does not grow with the document."""
    short, long = _peaks(8), _peaks(32)  # 640 and 2,560 headings
    assert long[3] > 3 * short[3]  # four times the chunks went through
    assert long[0] == short[0] and long[0] < HOLD_CHUNKS  # chunks held for headings and the prefix choice
    assert long[2] == short[2] == OPENING_CHARS  # the opening: the cover and the name's spelling
    # heading entries: those in the text LumberChunker has read ahead of its last chunk (its windows), about the
    # same for four times the text (windows placed by content read more or less far ahead as the text goes)
    assert long[1] <= 1.25 * short[1]
    assert long[1] < 600


def test_one_long_section_prints_its_path_in_batch_and_stream() -> None:
    """One section longer than the bound prints its path in both (batch used to drop a run's only section)."""
    text = "BATTERY\n\n" + "".join(
        f"Paragraph {i} about the charger and the long cable with many words in the text.\n\n" for i in range(400)
    )
    metadata = {"title": "Acme X-200", "category": "smartphone"}
    # another manual seen: the name is printed, so sections may be
    batch_chunker = CHOPChunker(max_tokens=40, corpus=CorpusState(model=["Acme X-300"]))
    stream_chunker = CHOPChunker(max_tokens=40, corpus=CorpusState(model=["Acme X-300"]))
    batch = batch_chunker.chunk(text, metadata=metadata)
    streamed = list(stream_chunker.chunk_stream([text], metadata=metadata))
    assert len(batch) > HOLD_CHUNKS
    assert [c.text for c in streamed] == [c.text for c in batch]
    assert [c.cnm for c in streamed] == [c.cnm for c in batch]
    assert batch[0].prefix == streamed[0].prefix == "Acme X-200: [BATTERY | Acme X-200] "
    assert [c.prefix for c in streamed] == [c.prefix for c in batch]


def test_no_name_no_bound_difference() -> None:
    """A document whose name is not printed gets no section either, so the bound changes nothing."""
    text = "BATTERY\n\n" + "".join(f"Paragraph {i} about the charger and the cable.\n\n" for i in range(400))
    metadata = {"source": "3f9a0c17d2e4b6a8.txt"}  # a hash: no name
    batch = CHOPChunker(max_tokens=40).chunk(text, metadata=metadata)
    streamed = list(CHOPChunker(max_tokens=40).chunk_stream([text], metadata=metadata))
    assert len(batch) > HOLD_CHUNKS
    assert [c.prefix for c in streamed] == [c.prefix for c in batch] == ["" for _ in batch]
    stream = CHOPStream(CHOPChunker(max_tokens=40), metadata)
    assert len(list(stream.run(iter([text])))) == len(batch)
    assert stream.peak_held < HOLD_CHUNKS // 4  # nothing waits for a second section that could not be printed


_LINES = st.lists(
    st.sampled_from(
        [
            *["a", "B C", "\r", "\n", "\r\n", "# T", "\n\n", "HEAD\n", " ", "\f", "[![b](u)](v)", '<h1 x="y">'],
            *["https://z", "```", "~~~~", "```x`", "\n```\n", "~~~", "^^^^", "-----", "    # T", "\t", "\n\nT\n"],
            # wrapped lines, run-in numbered clauses and hanging bodies (section_title's continuation rules)
            *["1. Grant Of. Subject to", "\n    means z.\n", "\nand so on.\n", "2.1. Term", "Q" * 70, "\nwraps"],
        ]
    ),
    max_size=80,
).map("".join)


@settings(max_examples=300)
@given(data=st.data(), text=st.one_of(documents(max_blocks=30), _LINES))
def test_heading_stream_equals_headings(data: st.DataObject, text: str) -> None:
    whole = Headings(text)
    stream = HeadingStream(markdown=markdown_within(text))
    step = data.draw(st.integers(1, 6))  # small steps too: lines in many pieces, pieces with no line end
    pieces = data.draw(st.one_of(pieces_of(text), st.just([text[i : i + step] for i in range(0, len(text), step)])))
    for piece in pieces:
        stream.feed(piece)
        assert all(offset < stream.complete for offset in stream.offsets)
    stream.finish()
    assert (stream.offsets, stream.blocks, stream.paths) == (whole.offsets, whole.blocks, whole.paths)


@given(data=st.data(), text=st.one_of(documents(max_blocks=30), _LINES), markdown=st.booleans())
def test_heading_stream_equals_headings_for_either_reading(data: st.DataObject, text: str, markdown: bool) -> None:
    # the one outline: given the same choice of reading, the stream and the whole text find the same headings
    whole = Headings(text, markdown=markdown)
    stream = HeadingStream(markdown=markdown)
    for piece in data.draw(pieces_of(text)):
        stream.feed(piece)
    stream.finish()
    assert (stream.offsets, stream.blocks, stream.paths) == (whole.offsets, whole.blocks, whole.paths)
    assert whole.offsets == heading_starts(text, markdown=markdown)


def test_the_reading_is_chosen_by_the_opening() -> None:
    late = "Plain intro line.\n\n" + "Body sentence here. " * 300 + "\n\n## Install\n\npip install tool\n"
    assert len(late.split("## Install")[0]) > outline.OPENING_CHARS
    assert not markdown_within(late) and not Headings(late).marked  # the mark comes after the opening
    assert Headings(late[-40:]).marked


def test_empty_document_remembers_nothing() -> None:
    shared = CorpusState()
    assert list(CHOPChunker(corpus=shared).chunk_stream(["", ""], metadata={"title": "Kettle K1"})) == []
    assert CHOPChunker(corpus=shared).chunk("", metadata={"title": "Kettle K1"}) == []
    assert shared.counts() == {"model": 0, "category": 0}


class _Fixed:
    """A CNM extractor of the caller's own (it could read the whole document, so the stream refuses it)."""

    async def aextract(self, chunk: Chunk, doc: Any, previous: CNM | None) -> CNM:
        return CNM(model="Fixed")


def test_an_async_only_decider_runs_in_the_batch_run() -> None:
    chunks = CHOPChunker(offline_extractor=_Fixed(), prefix="fixed").chunk("INTRO\n\nThe kettle boils.\n")
    assert chunks and all(chunk.cnm is not None and chunk.cnm.model == "Fixed" for chunk in chunks)


def test_offline_deciders_with_other_settings_stream() -> None:
    text = "INTRO\n\nThe kettle boils water.\n\nCLEANING\n\nDescale the kettle each month with vinegar.\n"
    metadata = {"title": "Kettle K1"}

    def chunker() -> CHOPChunker:
        return CHOPChunker(offline_continuity=OfflineContinuity(min_similarity=0.5))

    assert rows(list(chunker().chunk_stream([text[:9], text[9:]], metadata=metadata))) == rows(
        chunker().chunk(text, metadata=metadata)
    )


def test_errors_are_clear() -> None:
    with pytest.raises(ConfigurationError, match="offline only"):
        CHOPChunker(valid_answer).chunk_stream(["text"])
    with pytest.raises(ConfigurationError, match="splits whole texts only"):
        CHOPChunker(chunker=lambda text: text.split("\n\n")).chunk_stream(["text"])
    with pytest.raises(ConfigurationError, match="offline deciders"):
        CHOPChunker(offline_extractor=_Fixed()).chunk_stream(["text"])
    with pytest.raises(ConfigurationError, match="paper mode"):
        list(CHOPChunker(chunker=LumberChunker(mode="paper")).chunk_stream(["Some text.\n\nMore text."]))
    with pytest.raises(InputError, match="strings"):
        list(CHOPChunker().chunk_stream(["text", b"bytes"]))  # type: ignore[list-item]


def test_the_stream_reads_and_adds_to_the_corpus_state() -> None:
    text = "\n\n".join(f"Step {i}\nTurn the dial {i} notches and wait." for i in range(30))
    names = [{"source": f"{name}.txt", "category": "kettle"} for name in ("Acme Kettle", "Zenith Kettle")]
    state = CorpusState()
    CHOPChunker(corpus=state).chunk_many([text, text], metadatas=names)  # the corpus, in an earlier run
    blocks = [text[i : i + 37] for i in range(0, len(text), 37)]
    streamed = list(CHOPChunker(corpus=state).chunk_stream(blocks, metadata=names[1]))
    assert rows(streamed) == rows(CHOPChunker(corpus=state).chunk(text, metadata=names[1]))
    assert streamed[0].prefix.startswith("Zenith Kettle")  # the corpus state: the model is printed
    fresh = CorpusState()
    list(CHOPChunker(corpus=fresh).chunk_stream(blocks, metadata=names[0]))
    assert "acme kettle" in fresh.names()


PLAIN_LICENCE = (
    "TERMS AND CONDITIONS\n\n"
    "1. Definitions.\n\n"
    "1.1. Contributor\n    means each individual or legal entity that creates or contributes.\n\n"
    "2. Grant of Patent License. Subject to the terms and conditions of\n"
    "this License, each Contributor hereby grants to You a licence.\n\n"
    "The precise terms and conditions for copying, distribution and\n"
    "modification follow.\n"
)


@pytest.mark.parametrize("step", [1, 3, 7, 64, 10_000])
def test_wrapped_lines_run_in_clauses_and_hanging_bodies_stream_as_they_batch(step: int) -> None:
    whole = Headings(PLAIN_LICENCE)
    titles = [path[-1] for path in whole.paths]
    # the wrapped sentence heads nothing; the run-in clause is its title; a hanging body keeps its heading; a
    # numbered title that stands alone may end with its full stop
    assert titles == ["TERMS AND CONDITIONS", "1. Definitions.", "1.1. Contributor", "2. Grant of Patent License"]
    stream = HeadingStream(markdown=markdown_within(PLAIN_LICENCE))
    for i in range(0, len(PLAIN_LICENCE), step):
        stream.feed(PLAIN_LICENCE[i : i + step])
    stream.finish()
    assert (stream.offsets, stream.blocks, stream.paths) == (whole.offsets, whole.blocks, whole.paths)
