"""LumberChunkerTextSplitter: LumberChunker as a LangChain TextSplitter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_text_splitters import TextSplitter

from chop_integrations._errors import ConfigurationError, InputError, LLMError
from chop_integrations._text.tokens import default_counter
from chop_integrations.langchain import LumberChunkerTextSplitter
from tests.support.langchain_fakes import PromptFakeChatModel
from tests.support.offline import NO_NETWORK_NO_LLAMA_INDEX

PARAGRAPHS = [
    "Installing the KX-200. Unpack the camera and remove the lens cap.",
    "Insert the battery into the KX-200 until it clicks into place.",
    "Cleaning. Wipe the lens with a soft, dry cloth; never use solvents.",
    "Troubleshooting. If the lamp blinks red, the battery is too cold.",
] * 3
TEXT = "\n\n".join(PARAGRAPHS)


def test_is_a_text_splitter_and_lossless_with_exact_start_index() -> None:
    splitter = LumberChunkerTextSplitter(max_tokens=40, add_start_index=True)
    assert isinstance(splitter, TextSplitter)
    docs = splitter.create_documents([TEXT, TEXT], metadatas=[{"source": "a"}, {"source": "b"}])
    for source in ("a", "b"):
        mine = [d for d in docs if d.metadata["source"] == source]
        assert "".join(d.page_content for d in mine) == TEXT
        for doc in mine:
            start = doc.metadata["start_index"]
            assert TEXT[start : start + len(doc.page_content)] == doc.page_content
    assert max(default_counter()(d.page_content) for d in docs) <= 40


def test_start_index_is_exact_where_text_repeats() -> None:
    # The base class searches for each chunk; a repeated passage would get the first offset.
    splitter = LumberChunkerTextSplitter(max_tokens=20, add_start_index=True)
    docs = splitter.create_documents([TEXT])
    starts = [d.metadata["start_index"] for d in docs]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    assert sum(len(d.page_content) for d in docs) == len(TEXT)


def test_split_text_split_documents_transform_documents_agree() -> None:
    splitter = LumberChunkerTextSplitter(max_tokens=40)
    pieces = splitter.split_text(TEXT)
    via_docs = [d.page_content for d in splitter.split_documents([Document(TEXT, metadata={"k": [1]})])]
    via_transform = [d.page_content for d in splitter.transform_documents([Document(TEXT)])]
    assert pieces == via_docs == via_transform
    assert "start_index" not in splitter.split_documents([Document(TEXT)])[0].metadata


def test_metadata_is_copied_not_shared() -> None:
    meta = {"source": "a", "tags": ["x"]}
    docs = LumberChunkerTextSplitter(max_tokens=40).create_documents([TEXT], metadatas=[meta])
    docs[0].metadata["tags"].append("y")
    assert meta["tags"] == ["x"] and docs[1].metadata["tags"] == ["x"]


def test_strip_whitespace_moves_offsets_with_the_text() -> None:
    text = "  First part of the text.  \n\n\n  Second part, quite different.  "
    docs = LumberChunkerTextSplitter(max_tokens=8, strip_whitespace=True, add_start_index=True).create_documents([text])
    for doc in docs:
        assert doc.page_content == doc.page_content.strip()
        start = doc.metadata["start_index"]
        assert text[start : start + len(doc.page_content)] == doc.page_content


async def test_async_paths_match_the_sync_ones() -> None:
    splitter = LumberChunkerTextSplitter(PromptFakeChatModel(), max_tokens=40, add_start_index=True)
    sync = splitter.create_documents([TEXT])
    assert [d.page_content for d in await splitter.atransform_documents([Document(TEXT)])] == [
        d.page_content for d in sync
    ]
    assert await splitter.asplit_text(TEXT) == splitter.split_text(TEXT)


def test_a_chat_model_chooses_boundaries_and_usage_is_reported() -> None:
    model = PromptFakeChatModel()
    splitter = LumberChunkerTextSplitter(model, max_tokens=60)
    assert "".join(splitter.split_text(TEXT)) == TEXT
    assert model.prompts and splitter.last_usage.calls == len(model.prompts)


def test_on_llm_error_raise_and_fallback() -> None:
    garbage = FakeListChatModel(responses=["I like turtles"])
    with pytest.raises(LLMError):
        LumberChunkerTextSplitter(garbage, max_tokens=40, on_llm_error="raise").split_text(TEXT)
    splitter = LumberChunkerTextSplitter(garbage, max_tokens=40, on_llm_error="fallback")
    assert "".join(splitter.split_text(TEXT)) == TEXT
    assert splitter.last_usage.fallbacks >= 1


def test_aliases_and_bad_options() -> None:
    assert LumberChunkerTextSplitter(chunk_size=123).chunker.settings.max_tokens == 123
    with pytest.raises(ConfigurationError, match="overlap"):
        LumberChunkerTextSplitter(chunk_overlap=10)
    with pytest.raises(ConfigurationError, match="disagree"):
        LumberChunkerTextSplitter(max_tokens=10, chunk_size=20)
    with pytest.raises(ConfigurationError):
        LumberChunkerTextSplitter(on_llm_error="ignore")
    with pytest.raises(InputError):
        LumberChunkerTextSplitter().create_documents([TEXT], metadatas=[{}, {}])
    with pytest.raises(ConfigurationError, match="did you mean 'theta'"):
        LumberChunkerTextSplitter(thetta=300)


def test_a_config_object_and_keywords_build_the_engine() -> None:
    from chop_integrations import LumberChunker, LumberConfig

    splitter = LumberChunkerTextSplitter(config=LumberConfig(max_tokens=99, theta=300), theta=400)
    assert (splitter.config.max_tokens, splitter.config.theta) == (99, 400) and splitter._chunk_size == 99
    with pytest.raises(ConfigurationError, match="not both"):
        LumberChunkerTextSplitter(chunker=LumberChunker(), config=LumberConfig())


def test_from_tiktoken_encoder_works_offline() -> None:
    splitter = LumberChunkerTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", chunk_size=50)
    assert splitter.chunker.settings.max_tokens == 50
    assert "".join(splitter.split_text(TEXT)) == TEXT


FRESH_OFFLINE = (
    NO_NETWORK_NO_LLAMA_INDEX
    + r"""
import json, sys

from chop_integrations.langchain import LumberChunkerTextSplitter

default = LumberChunkerTextSplitter.from_tiktoken_encoder(chunk_size=50)  # first thing to touch tiktoken
named = LumberChunkerTextSplitter.from_tiktoken_encoder(encoding_name="cl100k", chunk_size=50)
print(json.dumps({"count": default._length_function(sys.argv[1]), "named": named._length_function(sys.argv[1]),
                  "lossless": "".join(default.split_text(sys.argv[1])) == sys.argv[1]}))
"""
)


def test_from_tiktoken_encoder_default_works_in_a_fresh_process_with_no_network(tmp_path: Any) -> None:
    # LangChain's own default (gpt2) is downloaded by tiktoken; ours is cl100k_base, shipped with the package,
    # and it must load before anything else of the package has loaded tiktoken's copy.
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(empty), "TMPDIR": str(tmp_path), "DATA_GYM_CACHE_DIR": ""}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_OFFLINE, TEXT], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result == {"count": default_counter()(TEXT), "named": default_counter()(TEXT), "lossless": True}
    assert list(empty.iterdir()) == []


_text = st.lists(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=120), max_size=8
).map("\n\n".join)


@given(_text)
def test_property_lossless_exact_offsets_bounded(text: str) -> None:
    splitter = LumberChunkerTextSplitter(max_tokens=24, add_start_index=True)
    docs = splitter.create_documents([text])
    assert "".join(d.page_content for d in docs) == text
    for doc in docs:
        start = doc.metadata["start_index"]
        assert text[start : start + len(doc.page_content)] == doc.page_content
        assert default_counter()(doc.page_content) <= 24


def test_header_path_in_metadata_as_markdown_node_parser_writes_it() -> None:
    text = "# Guide\n\nIntro text.\n\n## Install\n\nDownload and unpack.\n\n### Linux\n\nUse apt.\n"
    splitter = LumberChunkerTextSplitter(max_tokens=8, target_tokens=0, min_tokens=0)
    docs = splitter.create_documents([text], metadatas=[{"source": "guide.md"}])
    paths = {d.page_content.splitlines()[0]: d.metadata["header_path"] for d in docs}
    assert paths["## Install"] == "/Guide/" and paths["### Linux"] == "/Guide/Install/"
    assert all(d.metadata["source"] == "guide.md" for d in docs)
