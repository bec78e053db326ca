"""LumberChunkerNodeParser: offsets, relations, async path, failure policy, serialisation (offline)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from li_fakes import ScriptedCustomLLM
from llama_index.core import Document
from llama_index.core.callbacks import CallbackManager, CBEventType, LlamaDebugHandler
from llama_index.core.ingestion import IngestionCache, IngestionPipeline
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode

from chop_integrations._errors import LLMError
from chop_integrations.llama_index import LumberChunkerNodeParser

TOPICS = [
    "The Galaxy S21 camera lens is cleaned with a soft dry cloth before every photo session.",
    "Charging the battery with the USB-C cable takes about two hours from empty to full.",
    "Bluetooth pairing starts from the quick panel; choose the headset in the device list.",
]


def manual(paragraphs: int = 12, repeat: int = 5) -> str:
    return "\n\n".join(
        f"Section {i}. " + (TOPICS[(i * len(TOPICS)) // paragraphs] + " ") * repeat for i in range(paragraphs)
    )


def assert_exact(nodes: list[Any], text: str) -> None:
    assert nodes, "no nodes"
    assert "".join(n.text for n in nodes) == text  # lossless, in order
    for node in nodes:
        assert text[node.start_char_idx : node.end_char_idx] == node.text


def assert_linked(nodes: list[Any], source_id: str) -> None:
    for i, node in enumerate(nodes):
        assert node.relationships[NodeRelationship.SOURCE].node_id == source_id
        assert node.ref_doc_id == source_id
        prev = node.relationships.get(NodeRelationship.PREVIOUS)
        nxt = node.relationships.get(NodeRelationship.NEXT)
        assert (prev.node_id if prev else None) == (nodes[i - 1].node_id if i else None)
        assert (nxt.node_id if nxt else None) == (nodes[i + 1].node_id if i + 1 < len(nodes) else None)


def test_offline_nodes_have_exact_offsets_and_relations() -> None:
    doc = Document(text=manual(), metadata={"file_name": "s21.txt"})
    nodes = LumberChunkerNodeParser.from_defaults(max_tokens=120).get_nodes_from_documents([doc])
    assert len(nodes) > 3
    assert_exact(nodes, doc.text)
    assert_linked(nodes, doc.doc_id)
    assert all(n.metadata["file_name"] == "s21.txt" for n in nodes)  # include_metadata, as built-ins do


@given(st.lists(st.text(alphabet="abc xyz.\n", min_size=1, max_size=60).filter(str.strip), min_size=1, max_size=12))
def test_offsets_exact_for_any_text(paragraphs: list[str]) -> None:
    text = "\n\n".join(paragraphs)
    nodes = LumberChunkerNodeParser(max_tokens=12).get_nodes_from_documents([Document(text=text)])
    assert_exact(nodes, text)


def test_offsets_stay_exact_where_a_text_search_goes_wrong() -> None:
    # identical paragraphs: a later chunk's text also occurs inside the chunk before it
    text = "\n\n".join(["Tap Settings and choose Display to change the screen brightness."] * 12)
    nodes = LumberChunkerNodeParser(max_tokens=60).get_nodes_from_documents([Document(text=text)])
    assert_exact(nodes, text)
    searched = [text.find(n.text, nodes[i - 1].start_char_idx + 1) for i, n in enumerate(nodes) if i]
    assert searched != [n.start_char_idx for n in nodes[1:]]  # the base class's search would have been wrong


def test_text_node_inputs_get_offsets_into_themselves() -> None:
    parent = TextNode(text=manual(6), metadata={"page": 3})
    nodes = LumberChunkerNodeParser(max_tokens=80)([parent])
    assert_exact(nodes, parent.text)
    assert_linked(nodes, parent.node_id)
    assert nodes[0].metadata["page"] == 3


def test_embedded_metadata_counts_against_chunk_size_as_sentence_splitter_does() -> None:
    from chop_integrations._text.tokens import resolve_counter

    count = resolve_counter(None)
    text = manual()
    title = "Galaxy S21 user manual " * 12
    heavy = LumberChunkerNodeParser(max_tokens=120).get_nodes_from_documents(
        [Document(text=text, metadata={"title": title})]
    )
    source = Document(text=text, metadata={"title": title})
    reserve = count(source.get_metadata_str(MetadataMode.EMBED))
    assert reserve > 40
    assert max(count(n.get_content(metadata_mode=MetadataMode.NONE)) for n in heavy) <= 120 - reserve
    assert_exact(heavy, text)
    with pytest.raises(ValueError, match="Metadata length"):
        LumberChunkerNodeParser(max_tokens=120).get_nodes_from_documents(
            [Document(text=text, metadata={"title": title * 4})]
        )


def test_excluded_metadata_does_not_count() -> None:
    text = manual()
    plain = LumberChunkerNodeParser(max_tokens=120).get_nodes_from_documents([Document(text=text)])
    doc = Document(text=text, metadata={"title": "Galaxy S21 user manual " * 12})
    doc.excluded_embed_metadata_keys = ["title"]
    doc.excluded_llm_metadata_keys = ["title"]
    hidden = LumberChunkerNodeParser(max_tokens=120).get_nodes_from_documents([doc])
    assert [(n.start_char_idx, n.end_char_idx) for n in plain] == [(n.start_char_idx, n.end_char_idx) for n in hidden]


async def test_llm_sync_and_async_paths_agree_and_async_is_really_async() -> None:
    docs = [Document(text=manual(), doc_id="a"), Document(text=manual(9, 4), doc_id="b")]
    sync_llm, async_llm = ScriptedCustomLLM(), ScriptedCustomLLM()
    sync_nodes = LumberChunkerNodeParser(llm=sync_llm, max_tokens=120).get_nodes_from_documents(docs)
    parser = LumberChunkerNodeParser(llm=async_llm, max_tokens=120)
    async_nodes = await parser.acall(docs)
    assert [(n.ref_doc_id, n.start_char_idx, n.end_char_idx) for n in sync_nodes] == [
        (n.ref_doc_id, n.start_char_idx, n.end_char_idx) for n in async_nodes
    ]
    assert sync_llm.prompts and sorted(sync_llm.prompts) == sorted(async_llm.prompts)
    assert async_llm.async_calls == len(async_llm.prompts)  # every call went through acomplete
    assert parser.last_usage is not None and parser.last_usage.calls == len(async_llm.prompts)
    for doc in docs:
        own = [n for n in async_nodes if n.ref_doc_id == doc.doc_id]
        assert_exact(own, doc.text)
        assert_linked(own, doc.doc_id)


def test_failing_llm_falls_back_counted_or_raises() -> None:
    def broken(prompt: str) -> str:
        raise RuntimeError("model unavailable")

    doc = Document(text=manual())
    parser = LumberChunkerNodeParser(llm=ScriptedCustomLLM(responder=broken), max_tokens=120)
    nodes = parser.get_nodes_from_documents([doc])
    assert_exact(nodes, doc.text)
    assert parser.last_usage is not None and parser.last_usage.fallbacks > 0
    strict = LumberChunkerNodeParser(llm=ScriptedCustomLLM(responder=broken), max_tokens=120, on_llm_error="raise")
    with pytest.raises(LLMError):
        strict.get_nodes_from_documents([doc])


def test_settings_and_llm_identity_are_in_to_dict() -> None:
    parser = LumberChunkerNodeParser(llm=ScriptedCustomLLM(model_name="m1"), max_tokens=99, mode="paper")
    data = parser.to_dict()
    assert data["class_name"] == "LumberChunkerNodeParser"
    assert data["max_tokens"] == 99 and data["mode"] == "paper" and "m1" in data["llm_id"]
    assert "llm" not in data and "cache" not in data
    parser.llm = ScriptedCustomLLM(model_name="m2")
    assert "m2" in parser.to_dict()["llm_id"]
    assert LumberChunkerNodeParser().to_dict()["llm_id"] == "offline"
    restored = LumberChunkerNodeParser.from_dict(LumberChunkerNodeParser(max_tokens=77).to_dict())
    assert restored.max_tokens == 77 and restored.llm_id == "offline"


def test_pipeline_cache_keeps_configurations_apart() -> None:
    doc = Document(text=manual(), doc_id="d")
    cache = IngestionCache()
    small = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=60)], cache=cache).run(
        documents=[doc]
    )
    large = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=400)], cache=cache).run(
        documents=[doc]
    )
    assert len(small) > len(large)
    llm = ScriptedCustomLLM(model_name="m1")
    with_llm = IngestionPipeline(transformations=[LumberChunkerNodeParser(llm=llm, max_tokens=60)], cache=cache).run(
        documents=[doc]
    )
    assert llm.prompts  # not served from the offline parser's cache entry
    assert_exact(with_llm, doc.text)


def test_node_parsing_event_reaches_the_callback_manager() -> None:
    debug = LlamaDebugHandler()
    parser = LumberChunkerNodeParser.from_defaults(callback_manager=CallbackManager([debug]))
    parser.get_nodes_from_documents([Document(text=manual(4))])
    assert len(debug.get_event_pairs(CBEventType.NODE_PARSING)) == 1


def test_header_path_in_node_metadata_not_embedded() -> None:
    text = "# Guide\n\nIntro text.\n\n## Install\n\nDownload and unpack.\n\n### Linux\n\nUse apt.\n"
    nodes = LumberChunkerNodeParser(max_tokens=8, target_tokens=0, min_tokens=0).get_nodes_from_documents(
        [Document(text=text)]
    )
    paths = {n.get_content().splitlines()[0]: n.metadata["header_path"] for n in nodes}
    assert paths["## Install"] == "/Guide/" and paths["### Linux"] == "/Guide/Install/"
    assert all("header_path" not in n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes)
