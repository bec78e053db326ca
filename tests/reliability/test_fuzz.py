"""Hypothesis fuzzing of every public entry point on hostile generated documents.

Each test sets its own ``max_examples`` (the CI profile's 100 would be too many
for some, too few for others); together they run more than 500 generated
documents per run, counted and printed in the terminal summary (see
``conftest.py``). Every entry point must finish and lose nothing: the chunks
concatenate to the input and every offset is exact.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_support import count_case, hostile_text

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter
from chop_integrations.testing import FAULTS, FaultyLLM

COUNT = default_counter()
FAST_FAULTS = [f for f in FAULTS if f != "hang"]
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def fuzz(examples: int) -> settings:
    """Settings of one fuzz test: exactly ``examples`` generated documents, no deadline."""
    return settings(max_examples=examples, deadline=None, suppress_health_check=_HEALTH)


async def _no_sleep(seconds: float) -> None:
    return None


NO_SLEEP = RetryPolicy(max_attempts=2, sleep=lambda s: None, asleep=_no_sleep)


def _faulty(seed: int, rate: float) -> FaultyLLM:
    return FaultyLLM(rate=rate, faults=FAST_FAULTS, seed=seed, retry_after=0.0, huge_chars=5000)


def check(chunks: list[Any], text: str, max_tokens: int | None = None) -> None:
    """Lossless, exact, contiguous; within the token maximum; prefixes on one safe line."""
    assert "".join(c.text for c in chunks) == text
    position = 0
    for chunk in chunks:
        assert chunk.start == position and text[chunk.start : chunk.end] == chunk.text
        position = chunk.end
        if max_tokens is not None:
            assert chunk.token_count <= max_tokens
        assert "\n" not in chunk.prefix and "\r" not in chunk.prefix
        if chunk.cnm is not None:
            for value in (chunk.cnm.category, chunk.cnm.model, *chunk.cnm.nouns):
                assert value is None or (0 < len(value) <= 80 and not any(ch in value for ch in "|[]\n"))


@fuzz(120)
@given(text=hostile_text, max_tokens=st.integers(1, 64))
def test_split_units(text: str, max_tokens: int) -> None:
    count_case("split_units")
    units = split_units(text, max_tokens=max_tokens, token_counter=COUNT)
    assert "".join(u.text for u in units) == text
    for unit in units:
        assert text[unit.start : unit.end] == unit.text and unit.text
        assert unit.tokens <= max_tokens or len(unit.text) <= 2


@fuzz(60)
@given(text=hostile_text, max_tokens=st.integers(5, 80), mode=st.sampled_from(["default", "paper"]))
def test_lumber_chunk_offline(text: str, max_tokens: int, mode: str) -> None:
    count_case("LumberChunker.chunk offline")
    chunker = LumberChunker(mode=mode, max_tokens=max_tokens, theta=max_tokens)  # type: ignore[arg-type]
    check(chunker.chunk(text), text, max_tokens)


@fuzz(50)
@given(
    text=hostile_text,
    max_tokens=st.integers(5, 80),
    mode=st.sampled_from(["default", "paper"]),
    seed=st.integers(0, 2**16),
    rate=st.sampled_from([0.0, 0.3, 1.0]),
)
async def test_lumber_achunk_faulty(text: str, max_tokens: int, mode: str, seed: int, rate: float) -> None:
    count_case("LumberChunker.achunk FaultyLLM")
    chunker = LumberChunker(_faulty(seed, rate), mode=mode, max_tokens=max_tokens, theta=max_tokens, retry=NO_SLEEP)  # type: ignore[arg-type]
    check(await chunker.achunk(text, metadata={"source": "fuzz.txt"}), text, max_tokens)


@fuzz(50)
@given(text=hostile_text, max_tokens=st.integers(5, 80), resets=st.booleans())
def test_chop_chunk_offline(text: str, max_tokens: int, resets: bool) -> None:
    count_case("CHOPChunker.chunk offline")
    chunker = CHOPChunker(max_tokens=max_tokens, new_document_resets=resets)
    check(chunker.chunk(text, metadata={"title": text[:30], "model": text[-20:]}), text, max_tokens)


@fuzz(40)
@given(
    text=hostile_text,
    seed=st.integers(0, 2**16),
    rate=st.sampled_from([0.0, 0.3, 1.0]),
    decisions=st.sampled_from(["window", "pair", "separate"]),
)
async def test_chop_achunk_faulty(text: str, seed: int, rate: float, decisions: str) -> None:
    count_case("CHOPChunker.achunk FaultyLLM")
    chunker = CHOPChunker(_faulty(seed, rate), max_tokens=24, decisions=decisions, retry=NO_SLEEP)
    check(await chunker.achunk(text, metadata={"source": "fuzz.txt"}), text, 24)


@fuzz(40)
@given(
    texts=st.lists(hostile_text, max_size=6),
    sources=st.lists(st.sampled_from(["a", "b", None, "\u202ec"]), min_size=6, max_size=6),
    seed=st.integers(0, 2**16),
    with_llm=st.booleans(),
)
def test_chop_annotate(texts: list[str], sources: list[str | None], seed: int, with_llm: bool) -> None:
    count_case("CHOPChunker.annotate")
    chunker = CHOPChunker(_faulty(seed, 0.5) if with_llm else None, retry=NO_SLEEP)
    metadatas = [{"source": s} for s in sources[: len(texts)]]
    chunks = chunker.annotate(texts, metadatas=metadatas)
    assert [c.text for c in chunks] == texts
    for chunk in chunks:
        assert "\n" not in chunk.prefix


# -- adapters -----------------------------------------------------------------------------------------

#: LlamaIndex hashes every Document's text as strict UTF-8, so a lone surrogate fails inside llama_index.core
#: itself (its own SentenceSplitter too; see test_hostile.py): its fuzz inputs have them replaced.
li_text = hostile_text.map(lambda t: t.encode("utf-8", "replace").decode("utf-8"))


@fuzz(30)
@given(texts=st.lists(hostile_text, min_size=1, max_size=3), seed=st.integers(0, 2**16))
def test_langchain_splitter(texts: list[str], seed: int) -> None:
    pytest.importorskip("langchain_core")
    from chop_integrations.langchain import LumberChunkerTextSplitter

    count_case("LumberChunkerTextSplitter")
    splitter = LumberChunkerTextSplitter(_faulty(seed, 0.3), max_tokens=30, add_start_index=True, retry=NO_SLEEP)
    for text in texts:
        assert "".join(splitter.split_text(text)) == text
    docs = splitter.create_documents(texts, metadatas=[{"i": i} for i in range(len(texts))])
    for i, text in enumerate(texts):
        mine = [d for d in docs if d.metadata["i"] == i]
        assert "".join(d.page_content for d in mine) == text
        assert all(text[d.metadata["start_index"] :].startswith(d.page_content) for d in mine)


@fuzz(30)
@given(texts=st.lists(hostile_text, min_size=1, max_size=3), seed=st.integers(0, 2**16), chunk=st.booleans())
def test_langchain_transformer(texts: list[str], seed: int, chunk: bool) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from chop_integrations.langchain import CHOPDocumentTransformer

    count_case("CHOPDocumentTransformer")
    transformer = CHOPDocumentTransformer(
        _faulty(seed, 0.3), chunk=chunk, max_tokens=30 if chunk else None, retry=NO_SLEEP
    )
    docs = [Document(page_content=t, metadata={"source": f"d{i}"}) for i, t in enumerate(texts)]
    out = transformer.transform_documents(docs)
    for i, text in enumerate(texts):
        assert "".join(d.metadata["chop_text"] for d in out if d.metadata["source"] == f"d{i}") == text
    assert all("\n" not in d.metadata["chop_prefix"] for d in out)
    assert all(d.page_content == d.metadata["chop_prefix"] + d.metadata["chop_text"] for d in out)


@fuzz(30)
@given(texts=st.lists(li_text, min_size=1, max_size=3), seed=st.integers(0, 2**16))
def test_llama_index_node_parser(texts: list[str], seed: int) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document

    from chop_integrations.llama_index import LumberChunkerNodeParser

    count_case("LumberChunkerNodeParser")
    parser = LumberChunkerNodeParser(llm=_faulty(seed, 0.3), max_tokens=30)
    documents = [Document(text=t, id_=f"d{i}") for i, t in enumerate(texts)]
    nodes = parser.get_nodes_from_documents(documents)
    for i, text in enumerate(texts):
        mine = [n for n in nodes if n.ref_doc_id == f"d{i}"]
        assert "".join(n.get_content() for n in mine) == text
        assert all(text[n.start_char_idx : n.end_char_idx] == n.get_content() for n in mine)


@fuzz(30)
@given(texts=st.lists(li_text, min_size=1, max_size=5), seed=st.integers(0, 2**16))
def test_llama_index_extractor(texts: list[str], seed: int) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import TextNode

    from chop_integrations.llama_index import CHOPExtractor

    count_case("CHOPExtractor")
    nodes = [TextNode(text=t, metadata={"file_name": f"f{i % 2}.txt"}) for i, t in enumerate(texts)]
    extractor = CHOPExtractor(llm=_faulty(seed, 0.3))
    out = extractor.process_nodes(nodes)
    assert [n.get_content() for n in out] == texts
    assert all("\n" not in n.metadata["chop_prefix"] for n in out)


# -- the command line ---------------------------------------------------------------------------------

file_bytes = st.one_of(
    hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass")),  # lone surrogates: invalid UTF-8
    st.binary(max_size=300),
    hostile_text.map(lambda t: b"\xef\xbb\xbf" + t.encode("utf-8", "replace")),  # BOM
)


def _decoded(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


@fuzz(30)
@given(files=st.lists(file_bytes, min_size=1, max_size=3), method=st.sampled_from(["lumber", "chop"]))
def test_cli_chunk_on_generated_files(files: list[bytes], method: str) -> None:
    from chop_integrations._cli import main

    count_case("CLI chunk")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, data in enumerate(files):
            path = Path(tmp) / f"doc{i}.txt"
            path.write_bytes(data)
            paths.append(path)
        out = Path(tmp) / "out.jsonl"
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["chunk", "--method", method, "--max-tokens", "40", "--out", str(out), *map(str, paths)])
        texts = [_decoded(data) for data in files]
        assert code == (1 if any(t is None for t in texts) else 0), err.getvalue()
        # JSON Lines are split at "\n" only: str.splitlines() would also split inside texts at U+2028/U+2029.
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line]
        for i, text in enumerate(texts):
            mine = [r for r in records if r["doc"] == f"doc{i}"]
            if text is None:
                assert not mine and f"doc{i}.txt" in err.getvalue()
                continue
            assert "".join(r["chop_text"] for r in mine) == text
            assert all(text[r["start"] : r["end"]] == r["chop_text"] for r in mine)
