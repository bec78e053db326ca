"""End to end: CHOP IngestionPipeline -> VectorStoreIndex -> CHOPRetriever / postprocessors / query engine.

Four near-identical manuals (AquaPure AP-200, AP-300, AP-300 Pro, AP-500) differ only in the model on
the cover and in one figure: how many minutes the water runs after a new cartridge. The embedding is a
deterministic hashing bag of words, so ranking is meaningful and reproducible offline.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from li_fakes import ScriptedCustomLLM
from li_query_support import MINUTES, HashingEmbedding, documents, ingest
from llama_index.core import StorageContext, VectorStoreIndex, load_index_from_storage
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import BaseNode, MetadataMode, NodeRelationship

from chop_integrations import QueryReader, SignatureCatalog
from chop_integrations.llama_index import (
    CHOPBoostPostprocessor,
    CHOPContextPostprocessor,
    CHOPExtractor,
    CHOPRetriever,
    LumberChunkerNodeParser,
    catalog_from_index,
)

FULL = {model: f"AquaPure {model}" for model in MINUTES}


def question(model: str) -> str:
    return f"How many minutes should the water run after a new cartridge in the AquaPure {model}?"


def minutes_answer(prompt: str) -> str:
    """The scripted LLM's answer: the first 'run water for N minutes' figure in the context it was given."""
    found = re.search(r"run water for (\w+) minutes", prompt)
    return found.group(1) if found else "unknown"


@pytest.fixture(scope="module")
def embed_model() -> HashingEmbedding:
    return HashingEmbedding(model_name="hashing")


@pytest.fixture(scope="module")
def nodes(embed_model: HashingEmbedding) -> list[BaseNode]:
    return ingest(embed_model)


@pytest.fixture(scope="module")
def index(nodes: list[BaseNode], embed_model: HashingEmbedding) -> VectorStoreIndex:
    return VectorStoreIndex(nodes, embed_model=embed_model)


def models_of(hits: list[Any]) -> list[str]:
    return [hit.node.metadata["chop_model"] for hit in hits]


# -- ingestion keeps what query time needs ------------------------------------------------------------------


def test_the_prefix_reaches_the_embedding_and_relations_survive_the_extractor(nodes: list[BaseNode]) -> None:
    for node in nodes:
        embedded = node.get_content(MetadataMode.EMBED)
        assert node.metadata["chop_prefix"] and node.metadata["chop_prefix"].strip() in embedded
    by_id = {node.node_id: node for node in nodes}
    for node in nodes:
        following = node.relationships.get(NodeRelationship.NEXT)
        if following is not None:
            assert by_id[following.node_id].relationships[NodeRelationship.PREVIOUS].node_id == node.node_id
    assert sum(node.metadata["chop_continues"] for node in nodes) >= len(MINUTES)  # runs exist to widen


def test_known_values_read_back_from_the_index_its_docstore_and_its_vector_store(index: VectorStoreIndex) -> None:
    expected = {name: 8 for name in FULL.values()}
    assert catalog_from_index(index).models == expected
    assert catalog_from_index(index.docstore).models == expected
    assert catalog_from_index(index.vector_store).models == expected


def test_a_catalog_saved_at_ingestion_beside_the_persisted_index(
    nodes: list[BaseNode], embed_model: HashingEmbedding, tmp_path: Path
) -> None:
    VectorStoreIndex(nodes, embed_model=embed_model).storage_context.persist(persist_dir=tmp_path)
    SignatureCatalog.from_metadata(node.metadata for node in nodes).save(tmp_path / "chop_signatures.json")

    storage = StorageContext.from_defaults(persist_dir=tmp_path)
    loaded = load_index_from_storage(storage, embed_model=embed_model)
    catalog = SignatureCatalog.load(tmp_path / "chop_signatures.json")
    assert catalog == catalog_from_index(loaded)
    hits = CHOPRetriever(loaded, catalog=catalog, similarity_top_k=3).retrieve(question("AP-500"))
    assert models_of(hits) == [FULL["AP-500"]] * 3


# -- the retriever -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", list(MINUTES))
def test_filter_returns_only_the_named_models_nodes(index: VectorStoreIndex, model: str) -> None:
    hits = CHOPRetriever(index, mode="filter", similarity_top_k=6).retrieve(question(model))
    assert models_of(hits) == [FULL[model]] * 6
    plain = index.as_retriever(similarity_top_k=6).retrieve(question(model))
    assert set(models_of(plain)) != {FULL[model]}  # near-identical manuals: plain retrieval mixes models


def test_boost_puts_the_named_model_first_then_fills_up_without_duplicates(index: VectorStoreIndex) -> None:
    hits = CHOPRetriever(index, mode="boost", similarity_top_k=10).retrieve(question("AP-200"))
    models = models_of(hits)
    assert len(hits) == 10 and len({hit.node.node_id for hit in hits}) == 10
    assert models[:8] == [FULL["AP-200"]] * 8  # all 8 of its nodes, then the best of the others
    assert FULL["AP-200"] not in models[8:]


@pytest.mark.parametrize("mode", ["filter", "boost"])
@pytest.mark.parametrize(
    "query", ["How do I clean the tank?", "How many minutes for the AquaPure AP-400?", "What does a red light mean?"]
)
def test_no_model_read_is_exactly_the_plain_retrieval(index: VectorStoreIndex, mode: str, query: str) -> None:
    ours = CHOPRetriever(index, mode=mode, similarity_top_k=5).retrieve(query)
    plain = index.as_retriever(similarity_top_k=5).retrieve(query)
    assert [(h.node.node_id, h.score) for h in ours] == [(h.node.node_id, h.score) for h in plain]


def test_boost_embeds_the_question_once(nodes: list[BaseNode]) -> None:
    class Counting(HashingEmbedding):
        queries: int = 0

        def _get_query_embedding(self, query: str) -> list[float]:
            self.queries += 1
            return super()._get_query_embedding(query)

    counting = Counting(model_name="hashing")
    retriever = CHOPRetriever(VectorStoreIndex(nodes, embed_model=counting), mode="boost", similarity_top_k=10)
    assert len(retriever.retrieve(question("AP-500"))) == 10 and counting.queries == 1


async def test_async_retrieval_equals_sync(index: VectorStoreIndex) -> None:
    for mode in ("filter", "boost"):
        retriever = CHOPRetriever(index, mode=mode, similarity_top_k=9)
        for query in (question("AP-300 Pro"), "How do I clean the tank?"):
            sync = [(h.node.node_id, h.score) for h in retriever.retrieve(query)]
            assert [(h.node.node_id, h.score) for h in await retriever.aretrieve(query)] == sync


def test_the_filter_finds_the_right_manual_when_the_embedding_cannot(embed_model: HashingEmbedding) -> None:
    """Without the prefix in the embedding the manuals' sections tie; the filter still picks the model."""
    hidden = [*CHOPExtractor().excluded_embed_metadata_keys, "chop_prefix"]
    extractor = CHOPExtractor(excluded_embed_metadata_keys=hidden)
    nodes = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=30), extractor, embed_model]).run(
        documents=documents()
    )
    index = VectorStoreIndex(nodes, embed_model=embed_model)

    def answered(retriever: Any, model: str) -> bool:
        hits = retriever.retrieve(question(model))
        return any(f"run water for {MINUTES[model]} minutes" in hit.node.text for hit in hits)

    plain = index.as_retriever(similarity_top_k=2)
    assert sum(answered(plain, model) for model in MINUTES) <= 1  # the tied sections: one model wins them all
    assert all(answered(CHOPRetriever(index, similarity_top_k=2), model) for model in MINUTES)


# -- the postprocessors -----------------------------------------------------------------------------------


def test_boost_postprocessor_moves_the_named_model_first_in_a_plain_retrieval(index: VectorStoreIndex) -> None:
    plain = index.as_retriever(similarity_top_k=8).retrieve(question("AP-300 Pro"))
    boosted = CHOPBoostPostprocessor(index=index).postprocess_nodes(plain, query_str=question("AP-300 Pro"))
    named = [hit for hit in plain if hit.node.metadata["chop_model"] == FULL["AP-300 Pro"]]
    assert 0 < len(named) < len(plain)
    assert boosted == named + [hit for hit in plain if hit not in named]
    assert CHOPBoostPostprocessor(index=index).postprocess_nodes(plain, query_str="How do I clean the tank?") == plain


def test_context_widens_a_hit_to_its_section_run_in_document_order(index: VectorStoreIndex) -> None:
    hits = CHOPRetriever(index, similarity_top_k=1).retrieve(question("AP-300"))
    assert hits[0].node.text.startswith("Push a new cartridge")  # the slice holding the figure
    (wide,) = CHOPContextPostprocessor.from_index(index, budget=200).postprocess_nodes(hits)
    run = [index.docstore.get_node(node_id) for node_id in wide.node.metadata["chop_section_ids"]]
    assert [node.start_char_idx for node in run] == sorted(node.start_char_idx for node in run)
    assert wide.node.text == "".join(node.text for node in run)
    assert wide.node.text.startswith("Replacing the filter") and "Cleaning the tank" not in wide.node.text
    assert wide.node.node_id == hits[0].node.node_id and wide.score == hits[0].score
    assert "chop_section_ids" not in wide.node.get_content(MetadataMode.LLM)


def test_context_keeps_to_the_budget(index: VectorStoreIndex) -> None:
    hits = CHOPRetriever(index, similarity_top_k=1).retrieve(question("AP-300"))
    alone = CHOPContextPostprocessor.from_index(index, budget=0, token_counter="words").postprocess_nodes(hits)
    assert alone[0].node.text == hits[0].node.text
    size = len(hits[0].node.text.split())
    one_more = CHOPContextPostprocessor.from_index(index, budget=size + 20, token_counter="words")
    (wide,) = one_more.postprocess_nodes(hits)
    assert len(wide.node.metadata["chop_section_ids"]) == 2 and len(wide.node.text.split()) <= size + 20


# -- a query engine ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", list(MINUTES))
async def test_query_engine_answers_from_the_named_manual_sync_and_async(index: VectorStoreIndex, model: str) -> None:
    llm = ScriptedCustomLLM(responder=minutes_answer)
    engine = RetrieverQueryEngine.from_args(
        CHOPRetriever(index, similarity_top_k=2),
        llm=llm,
        node_postprocessors=[CHOPContextPostprocessor.from_index(index, budget=200)],
    )
    assert str(engine.query(question(model))) == MINUTES[model]
    assert str(await engine.aquery(question(model))) == MINUTES[model]
    assert all(s.node.metadata["chop_model"] == FULL[model] for s in engine.query(question(model)).source_nodes)


def test_a_reader_passed_in_is_the_one_used(index: VectorStoreIndex) -> None:
    reader = QueryReader([FULL["AP-500"]])  # knows only one model: another is never filtered on
    retriever = CHOPRetriever(index, reader=reader, similarity_top_k=4)
    assert retriever.reader is reader
    assert models_of(retriever.retrieve(question("AP-500"))) == [FULL["AP-500"]] * 4
    plain = index.as_retriever(similarity_top_k=4).retrieve(question("AP-200"))
    assert [h.node.node_id for h in retriever.retrieve(question("AP-200"))] == [h.node.node_id for h in plain]
