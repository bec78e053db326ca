"""HTTP-level tests: LlamaIndex's ``OpenAI`` LLM against the local OpenAI-compatible test server.

The exchanges are recorded in ``tests/cassettes/llama_index/test_li_openai/`` and replayed
with the network blocked (pytest-recording's default record mode ``none``); authorization
headers are filtered out of the cassettes (see ``tests/support/fixtures.py``).

Re-record (starts the local server from ``tests/support/openai_server.py`` on 127.0.0.1:18765)::

    rm -r tests/cassettes/llama_index/test_li_openai
    .venv/bin/pytest tests/llama_index/test_li_openai.py --record-mode=once
"""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core import Document
from llama_index.core.schema import MetadataMode
from llama_index.llms.openai import OpenAI

from chop_integrations._types import CNM
from chop_integrations.llama_index import CHOPExtractor, LlamaIndexLLM, LumberChunkerNodeParser

pytestmark = [pytest.mark.network_replay, pytest.mark.vcr, pytest.mark.block_network]

TEXT = "\n\n".join(
    [
        "Galaxy S21 camera. Clean the camera lens with a soft cloth before taking photos. " * 3,
        "Lens care. Avoid touching the lens: a fingerprint blurs every photo you take. " * 3,
        "Battery. Charge the battery with the USB-C cable; a full charge takes two hours. " * 3,
        "Charging tips. Use the original charger; wireless charging is slower than the cable. " * 3,
        "Bluetooth. Pair a headset from the quick panel and choose it in the device list. " * 3,
    ]
)


@pytest.fixture(scope="module")
def vcr_cassette_dir() -> str:
    return str(Path(__file__).parents[1] / "cassettes" / "llama_index" / "test_li_openai")


@pytest.fixture
def llm(openai_base_url: str) -> OpenAI:
    return OpenAI(model="gpt-4o-mini", api_base=openai_base_url, api_key="test", max_retries=0, temperature=0.0)


def test_wrapper_completes_and_answers_structured(llm: OpenAI) -> None:
    wrapped = LlamaIndexLLM(llm)
    assert wrapped.structured  # gpt-4o-mini calls functions: structured_predict sends a tool
    assert wrapped.model_id.startswith("llama_index:openai_llm:gpt-4o-mini")
    cnm = wrapped.complete_json("Describe this passage.\nPassage: Galaxy S21 camera lens cleaning.", CNM)
    assert cnm.model == "S21"
    assert wrapped.complete("Say hello.")


async def test_node_parser_sync_and_async_over_http(llm: OpenAI) -> None:
    doc = Document(text=TEXT, doc_id="s21-manual")
    parser = LumberChunkerNodeParser(llm=llm, max_tokens=80)
    nodes = parser.get_nodes_from_documents([doc])
    assert parser.last_usage is not None and parser.last_usage.calls > 0 and parser.last_usage.fallbacks == 0
    assert "".join(n.text for n in nodes) == TEXT
    assert all(TEXT[n.start_char_idx : n.end_char_idx] == n.text for n in nodes)
    again = await parser.acall([doc])
    assert [(n.start_char_idx, n.end_char_idx) for n in again] == [(n.start_char_idx, n.end_char_idx) for n in nodes]


async def test_extractor_over_http(llm: OpenAI) -> None:
    nodes = LumberChunkerNodeParser(max_tokens=80).get_nodes_from_documents([Document(text=TEXT, doc_id="s21")])
    extractor = CHOPExtractor(llm=llm, num_workers=2, prefix="fixed")
    out = await extractor.acall(nodes)
    assert extractor.last_usage is not None and extractor.last_usage.calls > 0
    assert extractor.last_usage.fallbacks == 0
    assert out[0].metadata["chop_model"] == "S21"
    assert all(n.metadata["chop_prefix"] for n in out)
    assert out[0].get_content(MetadataMode.EMBED).startswith("chop_prefix: S21: [")
