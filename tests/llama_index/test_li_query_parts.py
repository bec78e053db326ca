"""The query-time parts on hand-made nodes: filters, merging, boosting, section runs, reading values back."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

from chop_integrations import ConfigurationError, InputError, QueryReader, QueryReading, SignatureCatalog
from chop_integrations.llama_index import (
    CHOPBoostPostprocessor,
    CHOPContextPostprocessor,
    CHOPRetriever,
    catalog_from_index,
)
from chop_integrations.llama_index._postprocessor import boosted
from chop_integrations.llama_index._retriever import merge, reading_filters


def chain(doc: str, texts: list[str], continues: list[bool], model: str = "X1") -> list[TextNode]:
    """Nodes of one document with exact adjoining offsets and PREVIOUS/NEXT relations, as the parsers set them."""
    nodes, start = [], 0
    for i, (text, flag) in enumerate(zip(texts, continues, strict=True)):
        metadata = {"chop_model": model, "chop_continues": flag}
        node = TextNode(
            id_=f"{doc}-{i}", text=text, metadata=metadata, start_char_idx=start, end_char_idx=start + len(text)
        )
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=doc)
        nodes.append(node)
        start += len(text)
    for before, after in pairwise(nodes):
        before.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=after.node_id)
        after.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=before.node_id)
    return nodes


def docstore_of(*groups: list[TextNode]) -> SimpleDocumentStore:
    store = SimpleDocumentStore()
    store.add_documents([node for group in groups for node in group])
    return store


def hit(node: TextNode, score: float = 1.0) -> NodeWithScore:
    return NodeWithScore(node=node, score=score)


# -- filters and merging -------------------------------------------------------------------------------------


def test_reading_filters_add_the_reading_to_the_callers_filters() -> None:
    reading = QueryReading(model="X1", category="camera")
    assert reading_filters(QueryReading()) is None
    ours = reading_filters(reading)
    assert ours is not None and ours.condition == FilterCondition.AND
    assert [(f.key, f.value, f.operator) for f in ours.filters] == [  # type: ignore[union-attr]
        ("chop_model", "X1", FilterOperator.EQ),
        ("chop_category", "camera", FilterOperator.EQ),
    ]
    own = MetadataFilters(filters=[MetadataFilter(key="lang", value="en")])
    assert [f.key for f in reading_filters(reading, own).filters] == ["lang", "chop_model", "chop_category"]  # type: ignore[union-attr]
    either = MetadataFilters(filters=[MetadataFilter(key="lang", value="en")], condition=FilterCondition.OR)
    nested = reading_filters(reading, either)
    assert nested is not None and nested.filters[0] is either and nested.condition == FilterCondition.AND
    assert reading_filters(QueryReading(), own) is own


@given(st.lists(st.lists(st.integers(0, 9), max_size=8), max_size=3), st.integers(1, 12))
def test_merge_keeps_order_drops_repeats_and_caps(results: list[list[int]], top_k: int) -> None:
    nodes = {i: TextNode(id_=str(i), text=str(i)) for i in range(10)}
    merged = merge([[hit(nodes[i]) for i in ids] for ids in results], top_k)
    expected = list(dict.fromkeys(i for ids in results for i in ids))[:top_k]
    assert [int(h.node.node_id) for h in merged] == expected


def test_boosted_is_a_stable_partition() -> None:
    nodes = [hit(TextNode(id_=str(i), text="t", metadata={"chop_model": m})) for i, m in enumerate("ABABC")]
    assert [h.node.node_id for h in boosted(nodes, QueryReading(model="B"))] == ["1", "3", "0", "2", "4"]
    assert boosted(nodes, QueryReading()) == nodes


def test_the_boost_postprocessor_needs_a_query_and_a_known_model() -> None:
    nodes = [hit(TextNode(id_=str(i), text="t", metadata={"chop_model": m})) for i, m in enumerate(["A1", "B2"])]
    post = CHOPBoostPostprocessor(catalog=SignatureCatalog(["A1", "B2"]))
    assert [h.node.node_id for h in post.postprocess_nodes(nodes, query_str="about the B2")] == ["1", "0"]
    assert post.postprocess_nodes(nodes) == nodes
    assert post.postprocess_nodes(nodes, query_str="about the C3") == nodes


async def test_the_boost_postprocessor_async_reads_with_aread() -> None:
    class Counting(QueryReader):
        calls = 0

        async def aread(self, question: str) -> QueryReading:
            Counting.calls += 1
            return await super().aread(question)

    nodes = [hit(TextNode(id_=str(i), text="t", metadata={"chop_model": m})) for i, m in enumerate(["A1", "B2"])]
    post = CHOPBoostPostprocessor(reader=Counting(["A1", "B2"]))
    boosted_nodes = await post.apostprocess_nodes(nodes, query_bundle=QueryBundle("about the B2"))
    assert [h.node.node_id for h in boosted_nodes] == ["1", "0"] and Counting.calls == 1


# -- section runs --------------------------------------------------------------------------------------------

TEXTS = ["Intro. ", "Filter: open. ", "Pull it out. ", "Rinse it. ", "Tank: empty it. ", "Dry it. "]
FLAGS = [False, False, True, True, False, True]


def test_a_hit_widens_to_its_run_and_stops_at_the_section_break() -> None:
    nodes = chain("d", TEXTS, FLAGS)
    post = CHOPContextPostprocessor(docstore=docstore_of(nodes), token_counter="words")
    for middle in (1, 2, 3):
        (wide,) = post.postprocess_nodes([hit(nodes[middle], 0.5)])
        assert wide.node.text == "Filter: open. Pull it out. Rinse it. " and wide.score == 0.5
        assert wide.node.metadata["chop_section_ids"] == ["d-1", "d-2", "d-3"]
        assert (wide.node.start_char_idx, wide.node.end_char_idx) == (nodes[1].start_char_idx, nodes[3].end_char_idx)
        assert wide.node.relationships[NodeRelationship.PREVIOUS].node_id == "d-0"
        assert wide.node.relationships[NodeRelationship.NEXT].node_id == "d-4"
    (alone,) = post.postprocess_nodes([hit(nodes[0])])
    assert alone.node is nodes[0]  # nothing continues the intro


def test_the_budget_takes_the_following_neighbour_first_then_the_preceding() -> None:
    nodes = chain("d", TEXTS, FLAGS)
    store = docstore_of(nodes)

    def widened(budget: int) -> list[str]:
        post = CHOPContextPostprocessor(docstore=store, budget=budget, token_counter="words")
        (wide,) = post.postprocess_nodes([hit(nodes[2])])
        return wide.node.metadata.get("chop_section_ids", [wide.node.node_id])

    assert widened(3) == ["d-2"]  # the hit alone: its 3 words fill the budget
    assert widened(5) == ["d-2", "d-3"]  # 'Rinse it.' (2 words) follows and fits; 'Filter: open.' would not
    assert widened(7) == ["d-1", "d-2", "d-3"]


def test_hits_inside_a_higher_ranked_run_are_dropped_and_documents_never_mix() -> None:
    first, second = chain("a", TEXTS, FLAGS), chain("b", TEXTS, [True] * len(TEXTS))
    post = CHOPContextPostprocessor(docstore=docstore_of(first, second), token_counter="words")
    out = post.postprocess_nodes([hit(first[2]), hit(first[3]), hit(second[0]), hit(first[1])])
    assert [h.node.node_id for h in out] == ["a-2", "b-0"]
    assert out[1].node.metadata["chop_section_ids"] == [n.node_id for n in second]


def test_a_later_run_never_takes_in_a_passage_already_returned() -> None:
    nodes = chain("d", ["a. ", "b. ", "c. ", "d. ", "e. "], [False, True, True, True, True])
    post = CHOPContextPostprocessor(docstore=docstore_of(nodes), budget=3, token_counter="words")
    out = post.postprocess_nodes([hit(nodes[1]), hit(nodes[3])])
    # Alone, d-3 would take d-4 and then d-2; d-2 went with the higher-ranked d-1.
    assert [h.node.metadata["chop_section_ids"] for h in out] == [["d-0", "d-1", "d-2"], ["d-3", "d-4"]]
    (alone,) = post.postprocess_nodes([hit(nodes[3])])
    assert alone.node.metadata["chop_section_ids"] == ["d-2", "d-3", "d-4"]


def test_offsets_that_do_not_adjoin_are_joined_by_the_separator() -> None:
    nodes = chain("d", ["one", "two"], [False, True])
    nodes[1].start_char_idx, nodes[1].end_char_idx = 10, 13  # an overlap or a gap: not one exact slice
    post = CHOPContextPostprocessor(docstore=docstore_of(nodes), separator=" | ", token_counter="words")
    assert post.postprocess_nodes([hit(nodes[0])])[0].node.text == "one | two"


def test_the_context_postprocessor_needs_somewhere_to_fetch_from() -> None:
    with pytest.raises(ConfigurationError, match="docstore= or a vector_store="):
        CHOPContextPostprocessor()
    with pytest.raises(ValueError):
        CHOPContextPostprocessor(docstore=SimpleDocumentStore(), budget=-1)


# -- readers and known values ----------------------------------------------------------------------------


def test_reader_and_catalog_are_exclusive_and_something_must_say_the_values() -> None:
    with pytest.raises(ConfigurationError, match="not both"):
        CHOPBoostPostprocessor(reader=QueryReader(["A"]), catalog=SignatureCatalog(["A"]))
    with pytest.raises(ConfigurationError, match="pass reader=, catalog= or an index"):
        CHOPBoostPostprocessor()


def test_retriever_options_are_checked() -> None:
    index: Any = object()
    with pytest.raises(ConfigurationError, match="mode must be one of"):
        CHOPRetriever(index, catalog=SignatureCatalog(), mode="rerank")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="similarity_top_k"):
        CHOPRetriever(index, catalog=SignatureCatalog(), similarity_top_k=0)


def test_catalog_from_index_refuses_what_it_cannot_read() -> None:
    class NoListing:
        def get_nodes(self) -> list[Any]:
            raise NotImplementedError

    with pytest.raises(InputError, match="save a SignatureCatalog"):
        catalog_from_index(NoListing())
    with pytest.raises(InputError, match="cannot read signature values from a str"):
        catalog_from_index("index")
    store = docstore_of(chain("d", ["a", "b"], [False, True], model="Z9"))
    assert catalog_from_index(store).models == {"Z9": 2}
