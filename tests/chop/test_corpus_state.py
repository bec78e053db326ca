"""CorpusState: by default a call's chunks depend on its input and options only; a shared state is explicit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from chop_bench.eval.simulated import SimulatedLLM
from chop_integrations import CHOPChunker, CorpusState, InMemoryCache, InputError

TEXT = "\n\n".join(f"Step {i}\nTurn the dial {i} notches, check the gauge and wait for the light." for i in range(40))
OTHERS = ["\n\n".join(f"Part {i}\nFit bracket {i} to the frame." for i in range(20))] * 2
OTHER_NAMES = [{"source": "x100.txt"}, {"source": "x300.txt"}]
ALONE = {"source": "x200.txt"}


def _spans(chunks: list[object]) -> list[tuple[int, int, str]]:
    return [(c.start, c.end, c.prefix) for c in chunks]  # type: ignore[attr-defined]


CACHES: dict[str, Callable[[Path], object]] = {
    "sqlite-path": lambda folder: str(folder / "answers.sqlite"),
    "in-memory": lambda folder: InMemoryCache(),
}


@pytest.mark.parametrize("cache", sorted(CACHES))
@pytest.mark.parametrize("llm", [False, True], ids=["offline", "llm"])
def test_the_same_input_gives_the_same_chunks_after_an_unrelated_corpus_ran(
    tmp_path: Path, cache: str, llm: bool
) -> None:
    shared = CACHES[cache](tmp_path)

    def make() -> CHOPChunker:
        return CHOPChunker(SimulatedLLM(0) if llm else None, cache=shared)

    before = _spans(make().chunk(TEXT, metadata=ALONE))
    make().chunk_many(OTHERS, metadatas=OTHER_NAMES)  # an unrelated corpus, two names, on the same cache
    assert _spans(make().chunk(TEXT, metadata=ALONE)) == before
    assert before[0][2].startswith("x200")  # one document alone carries its name, as in a batch


def test_every_entry_point_starts_from_an_empty_state_by_default() -> None:
    chunker = CHOPChunker(cache=InMemoryCache())
    fresh = _spans(chunker.chunk(TEXT, metadata=ALONE))
    pieces = [TEXT[at : at + 500] for at in range(0, len(TEXT), 500)]
    chunker.chunk_many(OTHERS, metadatas=OTHER_NAMES)
    assert _spans(chunker.chunk_stream(pieces, metadata=ALONE)) == fresh
    chunker.annotate(OTHERS, metadatas=OTHER_NAMES)

    async def pieces_async():  # type: ignore[no-untyped-def]
        for piece in pieces:
            yield piece

    async def run() -> tuple[list[object], list[object]]:
        streamed = [chunk async for chunk in chunker.achunk_stream(pieces_async(), metadata=ALONE)]
        return await chunker.achunk(TEXT, metadata=ALONE), streamed

    batch, streamed = asyncio.run(run())
    assert _spans(batch) == _spans(streamed) == fresh
    assert chunker.corpus is None


def test_a_shared_state_carries_the_corpus_across_calls_and_chunkers() -> None:
    state = CorpusState()
    first = CHOPChunker(corpus=state).chunk_many(OTHERS, metadatas=OTHER_NAMES)
    assert first[0][0].prefix.startswith("x100") and state.names() == {"x100", "x300"}
    other = CHOPChunker(corpus=state, max_tokens=300)  # another chunker, other options, the same state
    alone = other.chunk(TEXT, metadata=ALONE)
    assert alone[0].prefix.startswith("x200") and "x200" in state.names()
    streamed = list(CHOPChunker(corpus=state).chunk_stream([TEXT], metadata=ALONE))
    assert _spans(streamed) == _spans(CHOPChunker(corpus=state).chunk(TEXT, metadata=ALONE))
    assert _spans(streamed) == _spans(CHOPChunker().chunk(TEXT, metadata=ALONE))  # a name needs no state


def test_a_saved_state_loads_equal_and_prints_the_same_prefixes(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    state = CorpusState()
    corpus_run = CHOPChunker(corpus=state).chunk_many([*OTHERS, TEXT], metadatas=[*OTHER_NAMES, ALONE])
    state.save(path)
    assert json.loads(path.read_text()) == {"version": 1, "model": ["x100", "x200", "x300"], "category": []}
    assert [p.name for p in tmp_path.iterdir()] == ["corpus.json"]  # no temporary file left behind
    loaded = CorpusState.load(path)
    assert loaded == state and CorpusState.from_dict(state.to_dict()) == state
    again = CHOPChunker(corpus=loaded).chunk(TEXT, metadata=ALONE)  # a later process re-ingesting one document
    assert _spans(again) == _spans(corpus_run[2])
    assert CorpusState.load(tmp_path / "missing.json", missing_ok=True) == CorpusState()
    with pytest.raises(FileNotFoundError):
        CorpusState.load(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "content",
    ['{"version": 1, "model": ["a"', '["a", "b"]', '{"version": 2, "model": []}', '{"version": 1, "model": [3]}'],
)
def test_a_corrupt_state_file_is_a_clear_error_and_stays_as_it_is(tmp_path: Path, content: str) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(content)
    with pytest.raises(InputError, match=r"corpus\.json is not a saved CorpusState"):
        CorpusState.load(path)
    assert path.read_text() == content


def test_a_failed_save_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "corpus.json"
    CorpusState(model=["a"]).save(path)
    old = path.read_text()

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(json, "dump", broken)
    with pytest.raises(OSError, match="disk full"):
        CorpusState(model=["a", "b"]).save(path)
    assert path.read_text() == old and [p.name for p in tmp_path.iterdir()] == ["corpus.json"]
