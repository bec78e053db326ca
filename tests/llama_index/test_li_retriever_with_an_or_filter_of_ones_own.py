"""CHOPRetriever over a store without nested filters, given an OR filter of one's own.

The reading's condition AND an OR filter needs nested ``MetadataFilters``, which LlamaIndex's default
``SimpleVectorStore`` refuses ("Nested MetadataFilters are not supported"): the retriever raised where the
plain retrieval with the same filter worked. Now the OR filter goes to the store and the model's condition
is applied to what it returns: only the named model's nodes, within the caller's filter, ``top_k`` at most.
"""

from __future__ import annotations

from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import FilterCondition, MetadataFilter, MetadataFilters

from chop_integrations.llama_index import CHOPRetriever
from tests.llama_index.li_query_support import HashingEmbedding

MODELS = ("AP-200", "AP-300", "AP-500")


def _index() -> VectorStoreIndex:
    nodes = [
        TextNode(
            id_=f"{model}-{shelf}-{n}",
            text=f"Replace the filter cartridge, step {n}.",
            metadata={"chop_model": model, "shelf": shelf},
        )
        for model in MODELS
        for shelf in ("kitchen", "garage", "attic")
        for n in range(3)
    ]
    return VectorStoreIndex(nodes, embed_model=HashingEmbedding())


def _shelves() -> MetadataFilters:
    return MetadataFilters(
        filters=[MetadataFilter(key="shelf", value="kitchen"), MetadataFilter(key="shelf", value="garage")],
        condition=FilterCondition.OR,
    )


def test_filter_mode_keeps_the_named_model_within_an_or_filter() -> None:
    hits = CHOPRetriever(_index(), similarity_top_k=4, filters=_shelves()).retrieve("Replace the AP-300 filter?")
    assert len(hits) == 4
    assert {h.node.metadata["chop_model"] for h in hits} == {"AP-300"}
    assert {h.node.metadata["shelf"] for h in hits} <= {"kitchen", "garage"}


def test_boost_mode_leads_with_the_named_model_then_the_or_filter_s_others() -> None:
    retriever = CHOPRetriever(_index(), similarity_top_k=9, filters=_shelves(), mode="boost")
    hits = retriever.retrieve("Replace the AP-300 filter?")
    models = [h.node.metadata["chop_model"] for h in hits]
    assert models[:6] == ["AP-300"] * 6 and len({h.node.node_id for h in hits}) == 9
    assert {h.node.metadata["shelf"] for h in hits} <= {"kitchen", "garage"}
