"""Credentials never appear in a model id, a log line, an exception, a cache row or a ``repr``.

A ChatOpenAI whose endpoint carries ``user:password@`` and ``?api-key=`` and whose key is set,
run against a local server (a cache write) and against a closed port (a failure, logged and
raised); a LlamaIndex OpenAI LLM inside the node parser and the extractor.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from chop_integrations import LumberChunker
from chop_integrations._errors import LLMError
from chop_integrations._llm.sqlite_cache import SQLiteCache
from tests.support.openai_server import MODEL, OpenAITestServer, free_port

DOC = "\n\n".join(f"# Part {i}\nThe unit step {i} moves the valve {i * 3} times, then stops." for i in range(6))
SECRET = "secret"


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(port=free_port()) as running:
        yield running


def _rows(path: Path) -> str:
    connection = sqlite3.connect(path)
    try:
        return repr(connection.execute("SELECT * FROM answers").fetchall())
    finally:
        connection.close()


def _chat(base_url: str) -> object:
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=MODEL, base_url=base_url, api_key=f"sk-{SECRET}", max_retries=0, timeout=5)


def test_langchain_credentials_stay_out_of_ids_logs_errors_rows_and_reprs(
    tmp_path: Path, server: OpenAITestServer, caplog: pytest.LogCaptureFixture
) -> None:
    from chop_integrations.langchain import LumberChunkerTextSplitter
    from chop_integrations.langchain._llm import LangChainLLM

    cache_path = tmp_path / "cache.sqlite"
    working = _chat(f"http://user:{SECRET}@127.0.0.1:{server.port}/v1")
    broken = _chat(f"http://user:{SECRET}@127.0.0.1:{free_port()}/v1?api-key={SECRET}")
    seen: list[str] = []
    with caplog.at_level(logging.DEBUG, logger="chop_integrations"):
        engine = LumberChunker(working, max_tokens=40, cache=SQLiteCache(cache_path))
        engine.chunk(DOC)
        assert engine.last_usage.calls > 0 and server.requests  # answers were cached
        LumberChunker(broken, max_tokens=40).chunk(DOC)  # fallback: failures logged at WARNING
        with pytest.raises(LLMError) as caught:
            LumberChunker(broken, max_tokens=40, on_llm_error="raise").chunk(DOC)
    error: BaseException | None = caught.value
    while error is not None:
        seen.append(f"{type(error).__name__}: {error!s} {error!r}")
        error = error.__cause__ or error.__context__
    seen += [caplog.text, _rows(cache_path)]
    seen += [LangChainLLM(m).model_id for m in (working, broken)]  # type: ignore[arg-type]
    seen += [repr(LangChainLLM(m)) for m in (working, broken)]  # type: ignore[arg-type]
    seen += [repr(engine), repr(LumberChunkerTextSplitter(llm=broken, max_tokens=40))]
    assert "WARNING" in caplog.text  # the failures were logged (else this test proves nothing)
    for text in seen:
        assert SECRET not in text, text


def test_llama_index_components_do_not_show_the_api_key() -> None:
    pytest.importorskip("llama_index.llms.openai")
    from llama_index.llms.openai import OpenAI

    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    llm = OpenAI(model="gpt-4o-mini", api_key=f"sk-{SECRET}", api_base=f"http://user:{SECRET}@127.0.0.1:9/v1")
    assert SECRET in repr(llm)  # LlamaIndex's own repr shows it: ours must not pass it on
    for component in (LumberChunkerNodeParser(llm=llm, max_tokens=40), CHOPExtractor(llm=llm)):
        assert SECRET not in repr(component) and SECRET not in str(component)
        assert SECRET not in component.llm_id and SECRET not in str(component.to_dict())


def test_the_command_line_client_keeps_the_endpoint_credentials_out(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("openai")
    from chop_integrations._llm.config import build_llm

    url = f"http://user:{SECRET}@127.0.0.1:9/v1?api-key={SECRET}"
    with caplog.at_level(logging.DEBUG, logger="chop_integrations"):
        llm = build_llm(base_url=url, model="m", environ={})
    assert llm is not None
    other = build_llm(base_url=f"http://127.0.0.1:9/v1?api-key=other-{SECRET}", model="m", environ={})
    assert other is not None and other.model_id != llm.model_id  # the query still tells endpoints apart
    for text in (llm.model_id, repr(llm), caplog.text):
        assert SECRET not in text, text
