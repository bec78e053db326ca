"""LumberChunker.chunk_stream: the same chunks as the batch run, in bounded memory."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import types
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations import LumberChunker
from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._lumber import stream as lumber_stream
from chop_integrations._lumber.stream import WindowStream
from chop_integrations._text import stream as text_stream
from chop_integrations._types import Chunk

from .documents import documents, pieces_of

_NUMBERS = re.compile(r"^#(\d+) ", re.M)


def prompt_llm(prompt: str) -> str:
    """A deterministic LLM that answers from the prompt alone: the numbered paragraphs whose hash is 0 mod 3."""
    named = [int(n) for n in _NUMBERS.findall(prompt)]
    starts = [n for n in named if hashlib.sha256(f"{n}{prompt}".encode()).digest()[0] % 3 == 0]
    return json.dumps({"starts": starts})


def as_rows(chunks: list[Chunk]) -> list[tuple[str, int, int, int, dict]]:
    return [(c.text, c.start, c.end, c.token_count, c.metadata) for c in chunks]


def reference(chunker: LumberChunker, text: str, metadata: dict) -> list[Chunk]:
    """The batch run through the async path, which builds the whole WindowPlan at once (not the stream driver)."""
    return asyncio.run(chunker.achunk(text, metadata=metadata))


CHUNKERS = {
    "default": lambda: LumberChunker(),
    "small": lambda: LumberChunker(max_tokens=60, window_tokens=90, context_tokens=20),
    "no-joining": lambda: LumberChunker(max_tokens=80, target_tokens=0, min_tokens=0),
    "tiny-windows": lambda: LumberChunker(max_tokens=40, window_tokens=10, target_tokens=30),
}


@pytest.mark.parametrize("name", sorted(CHUNKERS))
@given(data=st.data(), text=documents(max_blocks=40))
def test_stream_equals_batch_offline(name: str, data: st.DataObject, text: str) -> None:
    chunker = CHUNKERS[name]()
    pieces = data.draw(pieces_of(text))
    metadata = {"source": "doc.md", "title": "T"}
    with mock.patch.object(text_stream, "MIN_LOOK_CHARS", 1):  # look for a cut at every piece
        streamed = list(chunker.chunk_stream(pieces, metadata=metadata))
    assert as_rows(streamed) == as_rows(chunker.chunk(text, metadata=metadata))
    assert as_rows(streamed) == as_rows(reference(chunker, text, metadata))
    assert "".join(c.text for c in streamed) == text


@given(data=st.data(), text=documents(min_blocks=15, max_blocks=50), workers=st.sampled_from([1, 3]))
def test_stream_equals_batch_with_an_llm(data: st.DataObject, text: str, workers: int) -> None:
    chunker = LumberChunker(prompt_llm, max_tokens=60, window_tokens=120, max_concurrency=workers)
    pieces = data.draw(pieces_of(text))
    with mock.patch.object(text_stream, "MIN_LOOK_CHARS", 1):
        streamed = list(chunker.chunk_stream(pieces))
    calls = chunker.last_usage.calls
    assert as_rows(streamed) == as_rows(reference(chunker, text, {}))
    assert calls == chunker.last_usage.calls  # the same windows were asked


def _long_document(sections: int) -> str:
    words = "battery screen camera network settings apps".split()
    parts = []
    for i in range(sections):
        parts.append(f"## Part {i}\n\n")
        for p in range(3):
            parts.append(" ".join(words[(i + p + k) % 6] for k in range(40 + 7 * p)).capitalize() + ".\n\n")
        parts.append("- one item\n- another item\n\n")
    return "".join(parts)


def _peaks(monkeypatch: pytest.MonkeyPatch, text: str, chunker: LumberChunker | None = None) -> WindowStream:
    """Stream ``text`` in 1,000-character pieces; return the engine's stream state for inspection."""
    streams: list[WindowStream] = []
    original = WindowStream.__init__

    def spy(self: WindowStream, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        streams.append(self)

    monkeypatch.setattr(WindowStream, "__init__", spy)
    pieces = (text[i : i + 1000] for i in range(0, len(text), 1000))
    chunker = chunker or LumberChunker(max_tokens=200)
    assert sum(len(c.text) for c in chunker.chunk_stream(pieces)) == len(text)
    return streams[-1]


def test_memory_stays_bounded_while_streaming_a_long_document(monkeypatch: pytest.MonkeyPatch) -> None:
    short = _peaks(monkeypatch, _long_document(300))
    long = _peaks(monkeypatch, _long_document(1500))  # ~1.2 MB, ~6,000 units
    assert long.base > 5000  # the units of the chunks already out were dropped
    # held: the look-ahead (two windows of 800 tokens), a context, the open chunk, a segmentation batch
    assert long.peak_units < 120
    assert long.peak_units <= short.peak_units + 5  # five times the text, not more units held
    assert long.peak_buffer_chars < 20_000


class GatedLLM:
    """Answers as :func:`prompt_llm` does, but only while the stream waits for an answer (a deterministic schedule).

    The answers come from the event loop, not from threads: a call that starts while the stream still reads
    waits until the stream has queued every window the options let it queue and waits itself. The peak is then
    the most the stream can hold, the same on every run whatever the machine's load: with answers from threads
    it depended on when they arrived, and a run whose answers came early held less than the bound.
    """

    model_id = "gated-prompt-llm"

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.waiting = 0  # the stream's waits in progress
        self.calls = 0
        real_wait = asyncio.wait

        async def wait(tasks: Any, *args: Any, **kwargs: Any) -> Any:
            self.waiting += 1
            try:
                return await real_wait(tasks, *args, **kwargs)
            finally:
                self.waiting -= 1

        monkeypatch.setattr(lumber_stream, "asyncio", types.SimpleNamespace(**{**vars(asyncio), "wait": wait}))

    def complete(self, prompt: str) -> str:
        raise AssertionError("a stream asks through acomplete")

    async def acomplete(self, prompt: str) -> str:
        self.calls += 1
        while not self.waiting:
            await asyncio.sleep(0)
        return prompt_llm(prompt)


def test_memory_stays_bounded_with_an_llm_answering_concurrently(monkeypatch: pytest.MonkeyPatch) -> None:
    def peak(paragraphs: int) -> WindowStream:
        llm = GatedLLM(monkeypatch)
        stream = _peaks(monkeypatch, _long_document(paragraphs), LumberChunker(llm, max_tokens=200, max_concurrency=4))
        assert llm.calls > 10
        return stream

    short, long = peak(300), peak(900)
    assert (short.peak_units, long.peak_units) == (peak(300).peak_units, peak(900).peak_units)  # deterministic
    assert long.base > 4000  # ~4,500 units
    # QUEUED_PER_SLOT x 4 windows of 800 tokens queued ahead of the chunks being built (~450 units of ~30
    # tokens): a bound set by the options, about the same for three times the text (windows placed by content
    # hold more or fewer units as the text goes, so "about": a held count that grew with the text would triple)
    assert long.peak_units <= 1.5 * short.peak_units
    assert long.peak_units < 600


@pytest.mark.parametrize(("size", "workers"), [(7, 1), (50, 4), (1000, 2)])
def test_stream_equals_batch_on_a_long_document_with_an_llm(size: int, workers: int) -> None:
    text = _long_document(30)
    chunker = LumberChunker(prompt_llm, max_tokens=60, window_tokens=120, max_concurrency=workers)
    with mock.patch.object(text_stream, "MIN_LOOK_CHARS", 1):
        streamed = list(chunker.chunk_stream(text[i : i + size] for i in range(0, len(text), size)))
    calls = chunker.last_usage.calls
    assert as_rows(streamed) == as_rows(reference(chunker, text, {}))
    assert calls == chunker.last_usage.calls > 10


def test_chunks_come_out_before_the_stream_ends() -> None:
    text = _long_document(200)
    fed = 0

    def pieces() -> object:
        nonlocal fed
        for i in range(0, len(text), 500):
            fed = i + 500
            yield text[i : i + 500]

    first = next(iter(LumberChunker(max_tokens=200).chunk_stream(pieces())))  # type: ignore[arg-type]
    assert first.start == 0 and fed < len(text) // 10


def test_paper_mode_and_bad_pieces_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        LumberChunker(mode="paper").chunk_stream(["a"])
    with pytest.raises(InputError):
        list(LumberChunker().chunk_stream(["a", b"b"]))  # type: ignore[list-item]


def test_empty_and_blank_streams() -> None:
    assert list(LumberChunker().chunk_stream([])) == []
    assert list(LumberChunker().chunk_stream(["", ""])) == []
    assert as_rows(list(LumberChunker().chunk_stream([" \n", "\n "]))) == as_rows(LumberChunker().chunk(" \n\n "))


async def _agen(pieces: list[str]) -> object:
    for piece in pieces:
        await asyncio.sleep(0)
        yield piece


async def _acollect(chunker: LumberChunker, pieces: list[str]) -> list[Chunk]:
    return [c async for c in chunker.achunk_stream(_agen(pieces), metadata={"source": "a.md"})]  # type: ignore[arg-type]


@pytest.mark.parametrize("llm", [None, prompt_llm])
@pytest.mark.parametrize("size", [13, 400])
def test_async_stream_equals_batch(llm: object, size: int) -> None:
    text = _long_document(30)
    chunker = LumberChunker(llm, max_tokens=60, window_tokens=120, max_concurrency=3)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    with mock.patch.object(text_stream, "MIN_LOOK_CHARS", 1):
        streamed = asyncio.run(_acollect(chunker, pieces))
    assert chunker.last_usage.chunks == len(streamed)
    calls = chunker.last_usage.calls
    assert as_rows(streamed) == as_rows(reference(chunker, text, {"source": "a.md"}))
    assert calls == chunker.last_usage.calls


@given(data=st.data(), text=documents(min_blocks=5, max_blocks=40))
def test_async_stream_equals_batch_property(data: st.DataObject, text: str) -> None:
    chunker = LumberChunker(prompt_llm, max_tokens=60, window_tokens=90, max_concurrency=2)
    pieces = data.draw(pieces_of(text))
    with mock.patch.object(text_stream, "MIN_LOOK_CHARS", 1):
        streamed = asyncio.run(_acollect(chunker, pieces))
    assert as_rows(streamed) == as_rows(reference(chunker, text, {"source": "a.md"}))


def test_async_stream_stops_its_calls_when_the_consumer_stops() -> None:
    text = _long_document(60)

    async def first_only() -> Chunk:
        chunker = LumberChunker(prompt_llm, max_tokens=60, window_tokens=120, max_concurrency=2)
        stream = chunker.achunk_stream(_agen([text[i : i + 100] for i in range(0, len(text), 100)]))  # type: ignore[arg-type]
        first = await anext(stream)
        await stream.aclose()  # type: ignore[attr-defined]
        return first

    assert asyncio.run(first_only()).start == 0


def test_sync_stream_with_an_llm_stops_its_calls_and_its_loop_when_the_consumer_stops() -> None:
    text = _long_document(60)
    calls: list[str] = []

    def llm(prompt: str) -> str:
        calls.append(threading.current_thread().name)
        return prompt_llm(prompt)

    chunker = LumberChunker(llm, max_tokens=60, window_tokens=120, max_concurrency=2)
    stream = chunker.chunk_stream([text[i : i + 100] for i in range(0, len(text), 100)])
    assert next(stream).start == 0
    stream.close()  # type: ignore[attr-defined]
    asked = len(calls)
    assert 0 < asked < chunker.estimate([text]).calls
    assert threading.main_thread().name not in calls  # a sync model is called from worker threads
    assert not any(t.name == "chop-iterate-sync" for t in threading.enumerate())
