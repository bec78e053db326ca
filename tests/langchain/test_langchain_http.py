"""HTTP-level tests: ``ChatOpenAI`` -> the OpenAI wire format -> recorded cassettes.

These tests replay cassettes from ``tests/cassettes/langchain/test_langchain_http/``
(pytest-recording's default record mode is ``none``), so they need no server, no key
and no network. CI runs them with the network blocked::

    pytest tests/langchain -m network_replay --record-mode=none --block-network

Re-record against the local OpenAI-compatible test server (the ``openai_server``
fixture starts it on 127.0.0.1:18765 whenever the record mode is not ``none``)::

    pytest tests/langchain/test_langchain_http.py --record-mode=rewrite

Re-record against a real provider: set ``CHOP_TEST_BASE_URL`` (for example
``https://api.openai.com/v1``), ``CHOP_TEST_MODEL`` (``gpt-4o-mini``) and
``OPENAI_API_KEY``, run the command above, then check the assertions that pin the
local server's answers (model codes) still hold, and never commit a cassette
without looking at it: ``authorization`` and other auth headers are filtered out
by ``vcr_config`` (see ``tests/support/fixtures.py``), but the prompts and answers
are stored in clear.
"""

from __future__ import annotations

import os

import httpx
import pytest
from langchain_core.documents import Document
from langchain_core.tracers.context import collect_runs
from langchain_openai import ChatOpenAI

from chop_integrations._chop.answers import CNMAnswer, ContinuityAnswer
from chop_integrations.langchain import CHOPDocumentTransformer, LangChainLLM, LumberChunkerTextSplitter

pytestmark = [pytest.mark.network_replay, pytest.mark.vcr, pytest.mark.block_network]

CNM_PROMPT = (
    'Signature of the passage, JSON only: {"category": broad product family, "nouns": [1-2 key nouns], '
    '"model": specific model or series name}; null where unknown.\nPassage: Cleaning the KX-200 camera lens.'
)
PAIR = "Does B continue A? Answer TRUE or FALSE.\nA ends: ...the KX-200 lens.\nB starts: The KX-300 battery."


@pytest.fixture
def chat(openai_base_url: str) -> ChatOpenAI:
    # A fresh async HTTP client per test: langchain-openai shares one by default, and its
    # connections die with the event loop of the test that opened them.
    return ChatOpenAI(
        http_async_client=httpx.AsyncClient(),
        base_url=os.environ.get("CHOP_TEST_BASE_URL", openai_base_url),
        api_key=os.environ.get("OPENAI_API_KEY", "test"),  # type: ignore[arg-type]
        model=os.environ.get("CHOP_TEST_MODEL", "gpt-4o-mini"),
        temperature=0,
        max_retries=0,
    )


def test_complete_and_batch(chat: ChatOpenAI) -> None:
    llm = LangChainLLM(chat, max_concurrency=2)
    assert llm.complete(PAIR).strip().upper().startswith("FALSE")
    answers = llm.batch([PAIR, PAIR.replace("KX-300", "KX-200")])
    assert [a.strip().upper()[:4] for a in answers] == ["FALS", "TRUE"]


async def test_acomplete(chat: ChatOpenAI) -> None:
    assert (await LangChainLLM(chat).acomplete(PAIR)).strip().upper().startswith("FALSE")


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
def test_structured_output_methods(chat: ChatOpenAI, method: str) -> None:
    llm = LangChainLLM(chat, structured_method=method)
    assert llm.structured
    cnm = llm.complete_json(CNM_PROMPT, CNMAnswer)
    assert cnm.model == "KX-200"
    assert cnm.category == "camera"


async def test_async_structured_output(chat: ChatOpenAI) -> None:
    answer = await LangChainLLM(chat).acomplete_json(PAIR, ContinuityAnswer)
    assert answer == ContinuityAnswer(continues=False)


MANUALS = {
    "kx200.txt": "KX-200 camera manual.\n\nInsert the battery into the KX-200 until it clicks.\n\n"
    "Charging takes two hours; the lamp turns green when the battery is full.",
    "kx300.txt": "KX-300 camera manual.\n\nInsert the battery into the KX-300 until it clicks.\n\n"
    "Charging takes two hours; the lamp turns green when the battery is full.",
}


def test_splitter_and_transformer_over_http(chat: ChatOpenAI) -> None:
    docs = [Document(text, metadata={"source": name}) for name, text in MANUALS.items()]
    splitter = LumberChunkerTextSplitter(chat, max_tokens=24, add_start_index=True)
    chop = CHOPDocumentTransformer(chat, splitter=splitter)
    with collect_runs() as runs:
        out = chop.transform_documents(docs)
    names = {run.name for run in runs.traced_runs}
    assert {"chop.topic_shift", "chop.continuity"} <= names
    for doc in out:
        source = doc.metadata["source"]
        assert doc.metadata["chop_text"] in MANUALS[source]
        assert doc.metadata["chop_model"] == ("KX-200" if source == "kx200.txt" else "KX-300")
    assert chop.last_usage.calls >= 1 and splitter.last_usage.calls >= 1


async def test_atransform_over_http(chat: ChatOpenAI) -> None:
    docs = [Document(text, metadata={"source": name}) for name, text in MANUALS.items()]
    chop = CHOPDocumentTransformer(chat, chunk=True, max_tokens=24, add_start_index=True, max_concurrency=4)
    out = await chop.atransform_documents(docs)
    assert {d.metadata["chop_model"] for d in out} == {"KX-200", "KX-300"}
    for doc in out:
        text = MANUALS[doc.metadata["source"]]
        start = doc.metadata["start_index"]
        original = doc.metadata["chop_text"]
        assert text[start : start + len(original)] == original
        assert doc.page_content == doc.metadata["chop_prefix"] + original
