"""CHOPExtractor: metadata, metadata modes, document isolation, bounded async, pipeline cache (offline)."""

from __future__ import annotations

from typing import Any

import pytest
from li_fakes import ScriptedCustomLLM
from llama_index.core import Document
from llama_index.core.ingestion import IngestionCache, IngestionPipeline
from llama_index.core.schema import MetadataMode, NodeRelationship, RelatedNodeInfo, TextNode

from chop_integrations._errors import LLMError
from chop_integrations._offline import Lexicon, OfflineCNMExtractor
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from chop_integrations.llama_index._extractor import CHOP_KEYS

S21 = [
    "Galaxy S21 camera: clean the camera lens with a soft cloth before taking photos.",
    "Camera lens care: avoid touching the lens; a fingerprint blurs every photo.",
]
A52 = [
    "Galaxy A52 camera: clean the camera lens with a soft cloth before taking photos.",
    "Camera lens care: avoid touching the lens; a fingerprint blurs every photo.",
]


def nodes_of(doc_id: str, texts: list[str], **metadata: Any) -> list[TextNode]:
    source = RelatedNodeInfo(node_id=doc_id)
    return [TextNode(text=t, metadata=dict(metadata), relationships={NodeRelationship.SOURCE: source}) for t in texts]


def interleave(a: list[TextNode], b: list[TextNode]) -> list[TextNode]:
    return [n for pair in zip(a, b, strict=True) for n in pair]


@pytest.mark.parametrize("llm", [None, "scripted"])
def test_metadata_written_text_intact_prefix_embedded_not_shown_to_llm(llm: Any) -> None:
    nodes = nodes_of("s21", S21, file_name="Galaxy_S21.txt")
    model = ScriptedCustomLLM() if llm else None
    out = CHOPExtractor(llm=model, prefix="fixed")(nodes)
    for node, text in zip(out, S21, strict=True):
        assert set(CHOP_KEYS) <= set(node.metadata)
        assert node.text == text
        prefix = node.metadata["chop_prefix"]
        assert node.metadata["chop_model"] == "Galaxy S21" and prefix.startswith("Galaxy S21: [")
        embed = node.get_content(MetadataMode.EMBED)
        assert f"chop_prefix: {prefix.strip()}" in embed and embed.endswith(text)
        assert "chop_category" not in embed
        for_llm = node.get_content(MetadataMode.LLM)
        assert "chop_prefix" not in for_llm and "chop_model" in for_llm and for_llm.endswith(text)
        assert node.get_content(MetadataMode.NONE) == text
    assert out[0].metadata["chop_continues"] is False  # a bool on every node: a first node continues nothing
    assert isinstance(out[1].metadata["chop_continues"], bool)
    if model is not None:
        assert model.prompts


def test_what_the_llm_sees_is_configurable() -> None:
    out = CHOPExtractor(excluded_llm_metadata_keys=list(CHOP_KEYS))(nodes_of("s21", S21))
    assert "chop_" not in out[0].get_content(MetadataMode.LLM)
    shown = CHOPExtractor(excluded_llm_metadata_keys=[])(nodes_of("s21", S21))
    assert "chop_prefix" in shown[0].get_content(MetadataMode.LLM)


def test_rerun_does_not_duplicate_exclusions_or_read_its_own_output() -> None:
    extractor = CHOPExtractor()
    once = extractor(nodes_of("s21", S21))
    first = [dict(n.metadata) for n in once]
    twice = extractor(once)
    assert [dict(n.metadata) for n in twice] == first
    assert twice[0].excluded_embed_metadata_keys.count("chop_category") == 1


@pytest.mark.parametrize("llm", [None, "scripted"])
def test_documents_never_inherit_each_others_signature(llm: Any) -> None:
    # same file name, interleaved order: only the source document separates them
    s21 = nodes_of("doc-s21", S21, file_name="manual.txt", title="Galaxy S21")
    a52 = nodes_of("doc-a52", A52, file_name="manual.txt", title="Galaxy A52")
    out = CHOPExtractor(llm=ScriptedCustomLLM() if llm else None)(interleave(s21, a52))
    by_doc: dict[str, list[TextNode]] = {}
    for node in out:
        by_doc.setdefault(node.ref_doc_id or "", []).append(node)
    for doc_id in ("doc-s21", "doc-a52"):
        # the first node starts fresh; the second continues its own document (not the node before it)
        assert [n.metadata["chop_continues"] for n in by_doc[doc_id]] == [False, True]
    assert {n.metadata["chop_model"] for n in by_doc["doc-s21"]} == {"Galaxy S21"}
    assert {n.metadata["chop_model"] for n in by_doc["doc-a52"]} == {"Galaxy A52"}


async def test_async_extraction_is_concurrent_and_bounded() -> None:
    llm = ScriptedCustomLLM(delay=0.02)
    docs = [nodes_of(f"d{i}", [f"Galaxy S2{i} camera lens care.", "Lens cleaning tips."]) for i in range(8)]
    nodes = [n for group in docs for n in group]
    out = await CHOPExtractor(llm=llm, max_concurrency=3).acall(nodes)
    assert all(n.metadata["chop_prefix"] for n in out)
    assert llm.async_calls == len(llm.prompts) > 3  # every call awaited through acomplete
    assert 1 < llm.max_in_flight <= 3


def test_failing_llm_falls_back_counted_or_raises() -> None:
    def broken(prompt: str) -> str:
        raise RuntimeError("model unavailable")

    extractor = CHOPExtractor(llm=ScriptedCustomLLM(responder=broken))
    out = extractor(nodes_of("s21", S21, file_name="Galaxy_S21.txt"))
    assert out[0].metadata["chop_model"] == "Galaxy S21"  # the offline decider answered
    assert extractor.last_usage is not None and extractor.last_usage.fallbacks > 0
    with pytest.raises(LLMError):
        CHOPExtractor(llm=ScriptedCustomLLM(responder=broken), on_llm_error="raise")(nodes_of("s21", S21))


def test_identity_and_settings_are_in_to_dict() -> None:
    data = CHOPExtractor(llm=ScriptedCustomLLM(model_name="m1"), prefix="<{model}> ").to_dict()
    assert data["class_name"] == "CHOPExtractor" and "m1" in data["llm_id"]
    assert data["prefix"] == "<{model}> " and "llm" not in data


def test_two_extractors_in_one_pipeline_cache_do_not_share_results() -> None:
    cache = IngestionCache()
    doc = Document(text="\n\n".join(S21 * 3), doc_id="s21", metadata={"file_name": "S21.txt"})
    parser = LumberChunkerNodeParser(max_tokens=40)

    def run(extractor: CHOPExtractor) -> list[Any]:
        return IngestionPipeline(transformations=[parser, extractor], cache=cache).run(documents=[doc])

    square = run(CHOPExtractor(prefix="[{category} | {nouns} | {model}] "))
    angle = run(CHOPExtractor(prefix="<{model}> "))
    assert square[0].metadata["chop_prefix"].startswith("[")
    assert angle[0].metadata["chop_prefix"] == "<S21> "
    m1, m2 = ScriptedCustomLLM(model_name="m1"), ScriptedCustomLLM(model_name="m2")
    run(CHOPExtractor(llm=m1))
    run(CHOPExtractor(llm=m2))
    assert m1.prompts and m2.prompts  # the second model was asked, not served the first one's nodes
    m1_again = ScriptedCustomLLM(model_name="m1")
    again = run(CHOPExtractor(llm=m1_again))
    assert not m1_again.prompts and "chop_prefix" in again[0].metadata  # same configuration: a cache hit


def test_the_observed_corpus_survives_pickling() -> None:
    # LlamaIndex re-runs __init__ on unpickling, which dropped the corpus state: the copy (a pipeline worker, a saved
    # extractor) forgot the corpus and printed no model where the original does.
    import pickle

    extractor = CHOPExtractor()
    two = nodes_of("x", ["# A\n\nx"], file_name="X100 User Manual.pdf") + nodes_of(
        "p", ["# B\n\ny"], file_name="P200 User Manual.pdf"
    )
    extractor.observe_corpus(two)
    copy = pickle.loads(pickle.dumps(extractor))
    one = nodes_of("x", ["# A\n\nx"], file_name="X100 User Manual.pdf")
    assert copy.extract(one) == extractor.extract(one)
    assert extractor.extract(one)[0]["chop_prefix"].startswith("X100")


def test_one_document_alone_prints_as_in_the_corpus_also_in_a_worker(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    x100 = nodes_of("x", ["# A\n\nx", "# B\n\ny"], file_name="X100 User Manual.pdf")
    p200 = nodes_of("p", ["# A\n\nx", "# B\n\ny"], file_name="P200 User Manual.pdf")
    in_corpus = CHOPExtractor().extract(x100 + p200)[: len(x100)]
    assert CHOPExtractor().extract(x100) == in_corpus and in_corpus[0]["chop_prefix"].startswith("X100")
    told = CHOPExtractor()
    told.observe_corpus(
        [Document(text="x", metadata={"file_name": n}) for n in ("X100 User Manual.pdf", "P200 User Manual.pdf")]
    )
    assert told.extract(x100) == in_corpus
    # In a pipeline worker process (num_workers > 1) a document alone is signed as in one process, with no warning.
    monkeypatch.setattr("multiprocessing.parent_process", lambda: object())
    with caplog.at_level("WARNING", logger="chop_integrations"):
        assert CHOPExtractor().extract(x100) == in_corpus
    assert caplog.records == []


# -- parity with CHOPChunker: decisions and the offline extractor -------------------------------

ESPRESSO = [
    "Espresso Pro: fill the water tank and lock the portafilter before brewing.",
    "Descaling: run the descaling solution through the portafilter every month.",
]


def espresso_extractor() -> OfflineCNMExtractor:
    return OfflineCNMExtractor(lexicon=Lexicon(extra={"espresso machine": ["espresso", "portafilter"]}))


def test_an_extended_lexicon_names_its_own_category() -> None:
    nodes = nodes_of("espresso", ESPRESSO, file_name="Espresso_Pro_manual.txt")
    default = CHOPExtractor()(nodes_of("espresso", ESPRESSO, file_name="Espresso_Pro_manual.txt"))
    assert all(n.metadata["chop_category"] != "espresso machine" for n in default)  # only the new lexicon knows it
    out = CHOPExtractor(offline_extractor=espresso_extractor())(nodes)
    assert [n.metadata["chop_category"] for n in out] == ["espresso machine"] * len(ESPRESSO)


@pytest.mark.parametrize("decisions", ["window", "pair"])
def test_decisions_reach_the_engine(decisions: str) -> None:
    model = ScriptedCustomLLM()
    CHOPExtractor(llm=model, decisions=decisions)(nodes_of("s21", S21 * 2, file_name="Galaxy_S21.txt"))
    windows = [p for p in model.prompts if p.startswith("Passages [1]..")]
    pairs = [p for p in model.prompts if p.startswith("A and B are adjacent passages") and '"continues"' in p]
    assert model.prompts and (pairs if decisions == "pair" else windows)
    assert not (windows if decisions == "pair" else pairs)


def test_an_unknown_decision_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="decisions"):
        CHOPExtractor(decisions="both")


def test_decisions_and_the_offline_extractor_identity_are_in_to_dict() -> None:
    data = CHOPExtractor(decisions="pair").to_dict()
    assert data["decisions"] == "pair" and data["object_ids"] == {}
    custom = CHOPExtractor(offline_extractor=espresso_extractor()).to_dict()
    assert custom["offline_extractor"] is None and "OfflineCNMExtractor" in custom["object_ids"]["offline_extractor"]
    assert CHOPExtractor(offline_extractor=espresso_extractor()).to_dict() == custom  # same settings, same key
    other = OfflineCNMExtractor(lexicon=Lexicon(extra={"kettle": ["kettle"]}))
    assert CHOPExtractor(offline_extractor=other).to_dict()["object_ids"] != custom["object_ids"]
    extractor = CHOPExtractor()
    extractor.offline_extractor = other  # set after construction: the identity and the engine follow
    assert extractor.to_dict()["object_ids"] == CHOPExtractor(offline_extractor=other).object_ids
    assert extractor._engine().config.offline_extractor is other


def test_a_pipeline_cache_does_not_serve_one_lexicon_s_nodes_to_another() -> None:
    cache = IngestionCache()
    doc = Document(text="\n\n".join(ESPRESSO * 3), doc_id="e", metadata={"file_name": "Espresso_Pro_manual.txt"})
    parser = LumberChunkerNodeParser(max_tokens=40)

    def run(extractor: CHOPExtractor) -> list[Any]:
        return IngestionPipeline(transformations=[parser, extractor], cache=cache).run(documents=[doc])

    plain = run(CHOPExtractor())
    extended = run(CHOPExtractor(offline_extractor=espresso_extractor()))
    assert plain[0].metadata["chop_category"] != "espresso machine"
    assert extended[0].metadata["chop_category"] == "espresso machine"


def test_nodes_carry_the_position_keys_hidden_from_embedding_and_llm() -> None:
    """chop_document and chop_index, as the LangChain transformer, the CLI's lines and Ray rows carry them."""
    first, second = nodes_of("s21", S21), nodes_of("s22", S21)
    out = CHOPExtractor()([*first, *second])
    assert [n.metadata["chop_index"] for n in out] == [*range(len(first)), *range(len(second))]
    documents = [n.metadata["chop_document"] for n in out]
    assert len(set(documents[: len(first)])) == 1 and len(set(documents[len(first) :])) == 1
    assert documents[0] != documents[-1]
    for node in out:
        assert "chop_document" not in node.get_content(MetadataMode.EMBED)
        assert "chop_index" not in node.get_content(MetadataMode.LLM)
