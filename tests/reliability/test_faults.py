"""Fault injection: every engine, every fault, both failure policies.

``raise`` must give a typed LLMError naming the document and the offset;
``fallback`` must finish with every character kept and every fallback counted.
Retries use a fake sleep and the hang tests a tiny per-call timeout, so no
test waits for real.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._errors import AnswerParseError, LLMAnswerError, LLMCallError, LLMError, LLMTimeoutError
from chop_integrations._llm.retry import RetryPolicy
from chop_integrations.testing import FaultyLLM

SOURCE = "manuals/pump-7.txt"
METADATA = {"source": SOURCE, "title": "Pump 7"}
#: The typed error each fault must raise under on_llm_error="raise".
EXPECTED = {
    "timeout": LLMTimeoutError,
    "hang": LLMTimeoutError,
    "rate_limit": LLMCallError,
    "server_error": LLMCallError,
    "connection": LLMCallError,
    "garbage": LLMAnswerError,
    "empty": LLMAnswerError,
    "out_of_range": LLMAnswerError,
    "backward": LLMAnswerError,
    "wrong_types": LLMAnswerError,
}
#: Where the first call of each engine's run goes: LumberChunker prompts, or CHOP's own window prompt.
ENGINES: dict[str, Callable[..., Any]] = {
    "lumber": lambda llm, **kw: LumberChunker(llm, max_tokens=40, **kw),
    "lumber-paper": lambda llm, **kw: LumberChunker(llm, mode="paper", max_tokens=60, theta=60, **kw),
    "chop": lambda llm, **kw: CHOPChunker(llm, max_tokens=40, **kw),
    "chop-on-paragraphs": lambda llm, **kw: CHOPChunker(llm, chunker=lambda t: t.split("\n\n"), **kw),
    "chop-separate": lambda llm, **kw: CHOPChunker(llm, chunker=lambda t: t.split("\n\n"), decisions="separate", **kw),
}


@pytest.fixture
def faulty() -> Iterator[Callable[..., FaultyLLM]]:
    made: list[FaultyLLM] = []

    def make(**options: Any) -> FaultyLLM:
        options.setdefault("hang_seconds", 5.0)
        llm = FaultyLLM(**options)
        made.append(llm)
        return llm

    yield make
    for llm in made:
        llm.release()  # free hung sync calls


def _lossless(chunks: list[Any], text: str) -> None:
    assert "".join(c.text for c in chunks) == text
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert [c.start for c in chunks[1:]] == [c.end for c in chunks[:-1]]


def _options(fault: str, retry: RetryPolicy) -> dict[str, Any]:
    return {"retry": retry, "timeout": 0.2 if fault == "hang" else None}


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("fault", sorted(EXPECTED))
@pytest.mark.parametrize("path", ["sync", "async"])
async def test_raise_gives_a_typed_error_naming_document_and_offset(
    engine: str, fault: str, path: str, faulty: Any, retry: RetryPolicy, document: str
) -> None:
    chunker = ENGINES[engine](faulty(rate=1.0, faults=[fault]), on_llm_error="raise", **_options(fault, retry))
    with pytest.raises(LLMError) as caught:
        if path == "sync":
            chunker.chunk(document, metadata=METADATA)
        else:
            await chunker.achunk(document, metadata=METADATA)
    error = caught.value
    assert type(error) is EXPECTED[fault], f"{fault} raised {type(error).__name__}: {error}"
    assert error.document == SOURCE
    assert isinstance(error.position, int) and 0 <= error.position < len(document)
    assert SOURCE in str(error) and f"offset {error.position}" in str(error)
    assert error.task in ("topic_shift", "continuity", "cnm")


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("fault", sorted(EXPECTED))
async def test_fallback_keeps_every_character_and_counts_every_fallback(
    engine: str, fault: str, faulty: Any, retry: RetryPolicy, document: str, caplog: pytest.LogCaptureFixture
) -> None:
    llm = faulty(rate=1.0, faults=[fault])
    chunker = ENGINES[engine](llm, on_llm_error="fallback", **_options(fault, retry))
    chunks = await chunker.achunk(document, metadata=METADATA)
    _lossless(chunks, document)
    usage = chunker.last_usage
    assert usage.fallbacks >= 1
    # Every decision failed: two attempts (retry of a transient error, or the corrective retry) then a fallback.
    assert usage.calls == 2 * usage.fallbacks == llm.calls == len(llm.injections)
    assert "using the offline decider" in caplog.text
    # With every decision taken offline, the boundaries are the offline engine's.
    offline = ENGINES[engine](None).chunk(document, metadata=METADATA)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in offline]


@pytest.mark.parametrize("fault", ["server_error", "garbage", "hang"])
def test_sync_fallback_path(fault: str, faulty: Any, retry: RetryPolicy, document: str) -> None:
    """LumberChunker's sync entry point falls back as the async one does (it runs the same path)."""
    llm = faulty(rate=1.0, faults=[fault])
    chunker = LumberChunker(llm, max_tokens=40, **_options(fault, retry))
    chunks = chunker.chunk(document, metadata=METADATA)
    _lossless(chunks, document)
    decisions = LumberChunker(llm, max_tokens=40).estimate([document]).calls
    assert chunker.last_usage.fallbacks == decisions >= 2
    assert chunker.last_usage.calls == 2 * decisions


def test_rate_limit_honours_retry_after(faulty: Any, fake_sleep: Any, document: str) -> None:
    retry = RetryPolicy(max_attempts=3, sleep=fake_sleep, asleep=fake_sleep.asleep)
    llm = faulty(rate=1.0, faults=["rate_limit"], retry_after=7.5)
    chunker = LumberChunker(llm, max_tokens=40, retry=retry)
    _lossless(chunker.chunk(document), document)
    assert fake_sleep.delays and set(fake_sleep.delays) == {7.5}
    assert chunker.last_usage.retries == 2 * chunker.last_usage.fallbacks


def test_hang_is_cut_by_the_timeout_on_both_paths(faulty: Any, fake_sleep: Any, document: str) -> None:
    retry = RetryPolicy(max_attempts=1, sleep=fake_sleep, asleep=fake_sleep.asleep)
    llm = faulty(rate=1.0, faults=["hang"], hang_seconds=60.0)
    lumber = LumberChunker(llm, max_tokens=40, retry=retry, timeout=0.05)
    _lossless(lumber.chunk(document), document)  # sync entry point: the async core under run_sync
    chop = CHOPChunker(llm, max_tokens=40, retry=retry, timeout=0.05)
    _lossless(chop.chunk(document), document)
    assert lumber.last_usage.fallbacks >= 2 and chop.last_usage.fallbacks >= 1
    assert {i.path for i in llm.injections} == {"async"}  # one call path, whatever the entry point
    assert fake_sleep.delays == []


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("engine", sorted(ENGINES))
async def test_mixed_faults_on_a_share_of_calls(
    engine: str, seed: int, faulty: Any, retry: RetryPolicy, document: str
) -> None:
    """All faults at once on 40% of the calls: the run finishes, loses nothing, and says what happened."""
    llm = faulty(rate=0.4, seed=seed, huge_chars=20_000)
    chunker = ENGINES[engine](llm, retry=retry, timeout=0.5, max_concurrency=4)
    chunks = await chunker.achunk(document, metadata=METADATA)
    _lossless(chunks, document)
    usage = chunker.last_usage
    assert usage.calls == llm.calls
    injected_errors = sum(
        1 for i in llm.injections if i.fault in ("timeout", "rate_limit", "server_error", "connection", "hang")
    )
    assert usage.retries >= min(1, injected_errors)
    assert usage.fallbacks <= len(llm.injections)
    for chunk in chunks:
        assert "\n" not in chunk.prefix and len(chunk.prefix) <= 3 * 80 + 20


async def test_many_documents_one_failing_under_raise_names_it(faulty: Any, retry: RetryPolicy) -> None:
    texts = ["Alpha one.\n\nAlpha two.", "Beta one.\n\nBeta two.\n\nBeta three."]
    llm = faulty(rate=1.0, faults=["garbage"])
    chunker = LumberChunker(llm, max_tokens=4, on_llm_error="raise", retry=retry)
    with pytest.raises(LLMAnswerError) as caught:
        await chunker.achunk_many(texts, metadatas=[{"source": "a.txt"}, {"source": "b.txt"}])
    assert caught.value.document in ("a.txt", "b.txt")


# -- adapters -----------------------------------------------------------------------------------------


def test_langchain_splitter_and_transformer_under_faults(faulty: Any, retry: RetryPolicy, document: str) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter

    llm = faulty(rate=1.0, faults=["server_error"])
    splitter = LumberChunkerTextSplitter(llm, max_tokens=40, retry=retry, on_llm_error="raise")
    with pytest.raises(LLMCallError, match="offset"):
        splitter.split_text(document)
    splitter = LumberChunkerTextSplitter(llm, max_tokens=40, retry=retry)
    assert "".join(splitter.split_text(document)) == document
    assert splitter.last_usage.fallbacks >= 1

    transformer = CHOPDocumentTransformer(faulty(rate=1.0, faults=["wrong_types"]), chunk=True, max_tokens=40)
    docs = transformer.transform_documents([Document(page_content=document, metadata={"source": SOURCE})])
    assert "".join(d.metadata["chop_text"] for d in docs) == document  # page_content carries the prefix
    assert all(d.page_content == d.metadata["chop_prefix"] + d.metadata["chop_text"] for d in docs)
    assert transformer.last_usage.fallbacks >= 1
    raising = CHOPDocumentTransformer(faulty(rate=1.0, faults=["empty"]), on_llm_error="raise")
    with pytest.raises(LLMAnswerError):
        raising.transform_documents([Document(page_content=document, metadata={"source": SOURCE})])


def test_llama_index_parser_and_extractor_under_faults(faulty: Any, document: str) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document

    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    parser = LumberChunkerNodeParser(llm=faulty(rate=1.0, faults=["out_of_range"]), max_tokens=40)
    nodes = parser.get_nodes_from_documents([Document(text=document)])
    assert "".join(n.get_content() for n in nodes) == document
    assert parser.last_usage is not None and parser.last_usage.fallbacks >= 1
    raising = LumberChunkerNodeParser(llm=faulty(rate=1.0, faults=["backward"]), max_tokens=40, on_llm_error="raise")
    with pytest.raises(LLMAnswerError):
        raising.get_nodes_from_documents([Document(text=document)])

    extractor = CHOPExtractor(llm=faulty(rate=1.0, faults=["garbage"]))
    signed = extractor.process_nodes(nodes)
    assert len(signed) == len(nodes) and extractor.last_usage is not None and extractor.last_usage.fallbacks >= 1
    assert all("chop_prefix" in n.metadata for n in signed)
    raising_extractor = CHOPExtractor(llm=faulty(rate=1.0, faults=["wrong_types"]), on_llm_error="raise")
    with pytest.raises(LLMAnswerError):
        raising_extractor.process_nodes(nodes)


@pytest.mark.parametrize("answer", ['{"continues": "maybe"}', '{"continues": {"a": 1}}', '{"continues": [2, 3]}'])
def test_a_continuity_answer_of_the_wrong_type_is_not_read_as_true(answer: str) -> None:
    """Regression: parse_bool read the key "continues" as the word TRUE, so wrong types passed as TRUE."""
    from chop_integrations._chop.answers import parse_continuity
    from chop_integrations._llm.parsing import parse_bool

    with pytest.raises(AnswerParseError):
        parse_bool(answer)
    with pytest.raises(AnswerParseError):
        parse_continuity(answer)
    assert parse_bool('{"continues": "no"}') is False and parse_bool('{"answer": "TRUE"}') is True
