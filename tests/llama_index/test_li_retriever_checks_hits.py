"""``CHOPRetriever(mode="filter")`` checks its hits on the client, whatever the index does with ``filters=``.

A ``SummaryIndex``'s retrievers ignore ``filters=``: the retriever returned another model's nodes. Now every
hit is checked against the reading, and the index is asked for more nodes while too few of the named model's
come back, so ``similarity_top_k`` of them return whenever the index holds that many.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from llama_index.core import SummaryIndex, VectorStoreIndex
from llama_index.core.schema import TextNode

from chop_integrations.llama_index import CHOPRetriever
from chop_integrations.llama_index._retriever import MAX_FETCH
from tests.llama_index.li_query_support import HashingEmbedding

MODELS = ("AP-200", "AP-300", "AP-500")


def _nodes(per_model: dict[str, int]) -> list[TextNode]:
    return [
        TextNode(id_=f"{model}-{n}", text=f"Replace the filter cartridge, step {n}.", metadata={"chop_model": model})
        for model, count in per_model.items()
        for n in range(count)
    ]


def _summary(per_model: dict[str, int]) -> SummaryIndex:
    return SummaryIndex(_nodes(per_model))


def _mode(mode: str) -> dict[str, Any]:
    """A SummaryIndex's retriever: all nodes in order ("default") or the top k by embedding (neither filters)."""
    return {"retriever_mode": mode, **({"embed_model": HashingEmbedding()} if mode == "embedding" else {})}


@pytest.mark.parametrize("mode", ["default", "embedding"])
def test_a_summary_index_never_gives_another_model_s_nodes(mode: str) -> None:
    index = _summary({"AP-200": 7, "AP-300": 3, "AP-500": 7})
    retriever = CHOPRetriever(index, similarity_top_k=2, **_mode(mode))
    hits = retriever.retrieve("How do I replace the AP-300 filter?")
    assert [h.node.metadata["chop_model"] for h in hits] == ["AP-300", "AP-300"]
    wide = CHOPRetriever(index, similarity_top_k=5, **_mode(mode)).retrieve("AP-300 filter?")
    assert sorted(h.node.node_id for h in wide) == ["AP-300-0", "AP-300-1", "AP-300-2"]  # all it holds


def test_a_model_far_down_the_ranking_is_fetched_until_top_k_are_found() -> None:
    """The embedding ranks 40 other nodes first; the model's nodes are fetched by asking for more (same async)."""
    nodes = _nodes({"AP-200": 40})
    nodes += [
        TextNode(id_=f"AP-300-{n}", text=f"Warranty terms {n}.", metadata={"chop_model": "AP-300"}) for n in range(4)
    ]
    index = SummaryIndex(nodes)
    retriever = CHOPRetriever(index, similarity_top_k=3, **_mode("embedding"))
    question = "Replace the filter cartridge step of the AP-300"
    hits = retriever.retrieve(question)
    assert len(hits) == 3 and {h.node.metadata["chop_model"] for h in hits} == {"AP-300"}
    again = asyncio.run(retriever.aretrieve(question))
    assert [h.node.node_id for h in again] == [h.node.node_id for h in hits]


def test_fetching_is_bounded() -> None:
    """Past MAX_FETCH nodes the retriever stops asking: it returns what it found, never another model's nodes."""
    nodes = _nodes({"AP-200": MAX_FETCH + 10})
    nodes.append(TextNode(id_="AP-300-0", text="Warranty terms.", metadata={"chop_model": "AP-300"}))
    index = SummaryIndex(nodes)
    asked: list[int] = []
    original = index.as_retriever

    def counting(**kwargs: Any) -> Any:
        asked.append(kwargs["similarity_top_k"])
        return original(**kwargs)

    index.as_retriever = counting  # type: ignore[method-assign]
    hits = CHOPRetriever(index, similarity_top_k=2, **_mode("embedding")).retrieve("filter cartridge AP-300")
    assert asked[-1] == MAX_FETCH and asked == sorted(asked)
    assert all(h.node.metadata["chop_model"] == "AP-300" for h in hits)


@pytest.mark.parametrize("top_k", [1, 3, 6])
def test_a_vector_store_index_filters_in_the_store_and_gives_top_k(top_k: int) -> None:
    index = VectorStoreIndex(_nodes({"AP-200": 6, "AP-300": 6, "AP-500": 6}), embed_model=HashingEmbedding())
    hits = CHOPRetriever(index, similarity_top_k=top_k).retrieve("AP-500 filter cartridge?")
    assert len(hits) == top_k and {h.node.metadata["chop_model"] for h in hits} == {"AP-500"}


def test_boost_mode_over_a_summary_index_leads_with_the_model() -> None:
    index = _summary({"AP-200": 4, "AP-300": 2})
    hits = CHOPRetriever(index, mode="boost", similarity_top_k=4, **_mode("embedding")).retrieve("AP-300?")
    models = [h.node.metadata["chop_model"] for h in hits]
    assert models[:2] == ["AP-300", "AP-300"] and models[2:] == ["AP-200", "AP-200"]
