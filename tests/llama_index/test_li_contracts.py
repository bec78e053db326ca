"""The retriever contract on LlamaIndex's side: ``CHOPRetriever`` and ``CHOPBoostPostprocessor``.

LlamaIndex has no standard-test package like ``langchain-tests``; these are its equivalent, in the same
shape: a base contract class per component, run by one subclass per store (``SimpleVectorStore``, Qdrant in
memory), question (naming a model the store holds, none, a model the store lacks) and, for the retriever,
mode (``filter``, ``boost``). A retriever returns scored nodes, the same sync and async, ``similarity_top_k``
of them (fewer only when the filter leaves fewer); a caller's ``MetadataFilters`` (AND or OR) and the named
model's condition both hold; an empty store or a filter nothing meets gives no nodes, not an error. The
postprocessor moves the named model's nodes first, stable, sync and async, and leaves the rest alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

from chop_integrations.llama_index import CHOPBoostPostprocessor, CHOPRetriever
from tests.llama_index.li_manuals import NODES_PER_MANUAL, STORE_KINDS, open_index
from tests.support.manuals import MODELS, QUESTIONS

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")

#: The model the question naming one names.
NAMED = "Nimbus AC-14"
#: The indexes of this module by kind (``empty-<kind>``: one holding nothing), opened once for all its classes.
_INDEXES: dict[str, VectorStoreIndex] = {}


@pytest.fixture(scope="module", autouse=True)
def _indexes() -> Iterator[None]:
    opened = [(kind, open_index(kind)) for kind in STORE_KINDS]
    opened += [(f"empty-{kind}", open_index(kind, [])) for kind in STORE_KINDS]
    _INDEXES.update({name: context.__enter__() for name, context in opened})
    yield
    _INDEXES.clear()
    for _, context in opened:
        context.__exit__(None, None, None)


def _models(hits: list[NodeWithScore]) -> list[str]:
    return [hit.node.metadata["chop_model"] for hit in hits]


def _ids(hits: list[NodeWithScore]) -> list[str]:
    return [hit.node.node_id for hit in hits]


def _sources(*names: str, condition: FilterCondition = FilterCondition.AND) -> MetadataFilters:
    """A caller's filter: ``source`` is one of ``names`` (one ``IN`` under AND, one ``EQ`` each under OR)."""
    if condition is FilterCondition.AND:
        return MetadataFilters(filters=[MetadataFilter(key="source", value=list(names), operator=FilterOperator.IN)])
    return MetadataFilters(filters=[MetadataFilter(key="source", value=name) for name in names], condition=condition)


class _Case:
    """One store and one question (set by the subclasses below)."""

    store: str
    case: str

    @property
    def index(self) -> VectorStoreIndex:
        return _INDEXES[self.store]

    @property
    def empty(self) -> VectorStoreIndex:
        return _INDEXES[f"empty-{self.store}"]

    @property
    def question(self) -> str:
        return QUESTIONS[self.case]

    @property
    def named(self) -> str | None:
        """The model the question names and the store holds (``None``: none)."""
        return NAMED if self.case == "model" else None


class _RetrieverContract(_Case):
    """What every ``CHOPRetriever`` owes its caller, on one store, question and mode."""

    mode: str

    def retriever(self, **options: object) -> CHOPRetriever:
        return CHOPRetriever(self.index, mode=self.mode, **options)  # type: ignore[arg-type]

    async def _both(self, retriever: CHOPRetriever, question: str | None = None) -> list[NodeWithScore]:
        """The hits of ``retrieve``, checked equal (ids and scores) to those of ``aretrieve``."""
        sync = retriever.retrieve(question or self.question)
        again = await retriever.aretrieve(question or self.question)
        assert [(h.node.node_id, h.score) for h in again] == [(h.node.node_id, h.score) for h in sync]
        return sync

    async def test_retrieve_returns_scored_nodes(self) -> None:
        hits = await self._both(self.retriever(similarity_top_k=3))
        assert len(hits) == 3
        assert all(isinstance(hit, NodeWithScore) and hit.score is not None for hit in hits)
        assert all(hit.node.metadata["chop_model"] in MODELS for hit in hits)

    async def test_query_bundle_is_read_like_a_string(self) -> None:
        retriever = self.retriever(similarity_top_k=3)
        assert _ids(await retriever.aretrieve(QueryBundle(self.question))) == _ids(retriever.retrieve(self.question))

    @pytest.mark.parametrize("top_k", [1, 2, NODES_PER_MANUAL, NODES_PER_MANUAL + 3])
    async def test_similarity_top_k_is_honoured(self, top_k: int) -> None:
        hits = await self._both(self.retriever(similarity_top_k=top_k))
        only_the_model = self.named is not None and self.mode == "filter"
        assert len(hits) == (min(top_k, NODES_PER_MANUAL) if only_the_model else top_k)
        assert len(set(_ids(hits))) == len(hits)  # no node twice

    async def test_the_named_model_filters_or_leads_else_the_plain_retrieval(self) -> None:
        top_k = NODES_PER_MANUAL + 3
        hits = await self._both(self.retriever(similarity_top_k=top_k))
        if self.named is None:
            assert _ids(hits) == _ids(self.index.as_retriever(similarity_top_k=top_k).retrieve(self.question))
        elif self.mode == "filter":
            assert _models(hits) == [self.named] * NODES_PER_MANUAL
        else:
            assert _models(hits)[:NODES_PER_MANUAL] == [self.named] * NODES_PER_MANUAL
            assert self.named not in _models(hits)[NODES_PER_MANUAL:]

    @pytest.mark.parametrize("condition", [FilterCondition.AND, FilterCondition.OR])
    async def test_a_filter_of_ones_own_and_the_named_model_both_hold(self, condition: FilterCondition) -> None:
        own = _sources("AC-14.txt", "AC-16.txt", condition=condition)
        hits = await self._both(self.retriever(similarity_top_k=12, filters=own))
        allowed = {"Nimbus AC-14", "Nimbus AC-16"}
        assert set(_models(hits)) <= allowed
        if self.named is not None and self.mode == "filter":
            assert _models(hits) == [self.named] * NODES_PER_MANUAL
        elif self.named is not None:
            assert _models(hits) == [self.named] * NODES_PER_MANUAL + ["Nimbus AC-16"] * NODES_PER_MANUAL
        else:
            assert sorted(_models(hits)) == sorted([*allowed] * NODES_PER_MANUAL)

    async def test_a_filter_that_excludes_the_named_model(self) -> None:
        hits = await self._both(self.retriever(similarity_top_k=12, filters=_sources("AC-12.txt")))
        if self.named is not None and self.mode == "filter":
            assert hits == []  # the model's condition and the caller's cannot both hold
        else:
            assert _models(hits) == ["Nimbus AC-12"] * NODES_PER_MANUAL

    async def test_a_filter_nothing_meets_gives_no_nodes(self) -> None:
        assert await self._both(self.retriever(filters=_sources("nowhere.txt"))) == []

    async def test_an_empty_store_gives_no_nodes(self) -> None:
        assert await self._both(CHOPRetriever(self.empty, mode=self.mode)) == []  # type: ignore[arg-type]

    async def test_in_a_query_engine(self) -> None:
        engine = RetrieverQueryEngine.from_args(self.retriever(similarity_top_k=2), llm=MockLLM())
        sync, again = engine.query(self.question), await engine.aquery(self.question)
        assert _ids(sync.source_nodes) == _ids(again.source_nodes) and len(sync.source_nodes) == 2
        if self.named is not None:
            assert _models(sync.source_nodes) == [self.named] * 2


class _BoostContract(_Case):
    """What ``CHOPBoostPostprocessor`` owes its caller, on one store and question."""

    def nodes(self) -> list[NodeWithScore]:
        """Every node of the store, in the plain retrieval's order."""
        return self.index.as_retriever(similarity_top_k=len(MODELS) * NODES_PER_MANUAL).retrieve(self.question)

    async def _both(self, boost: CHOPBoostPostprocessor, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        sync = boost.postprocess_nodes(nodes, query_str=self.question)
        again = await boost.apostprocess_nodes(nodes, query_str=self.question)
        assert _ids(again) == _ids(sync)
        return sync

    async def test_the_named_model_leads_each_group_in_its_order(self) -> None:
        nodes = self.nodes()
        out = await self._both(CHOPBoostPostprocessor(index=self.index), nodes)
        assert sorted(_ids(out)) == sorted(_ids(nodes))  # the same nodes
        if self.named is None:
            assert _ids(out) == _ids(nodes)
            return
        named = [hit for hit in nodes if hit.node.metadata["chop_model"] == self.named]
        rest = [hit for hit in nodes if hit.node.metadata["chop_model"] != self.named]
        assert _ids(out) == _ids(named) + _ids(rest)

    async def test_no_query_and_no_nodes_leave_things_alone(self) -> None:
        boost, nodes = CHOPBoostPostprocessor(index=self.index), self.nodes()
        assert _ids(boost.postprocess_nodes(nodes)) == _ids(nodes)
        assert _ids(await boost.apostprocess_nodes(nodes)) == _ids(nodes)
        assert await self._both(boost, []) == []

    async def test_an_empty_store_moves_nothing(self) -> None:
        nodes = self.nodes()
        assert _ids(await self._both(CHOPBoostPostprocessor(index=self.empty), nodes)) == _ids(nodes)

    async def test_after_a_retriever_of_ones_own_with_a_filter(self) -> None:
        own = self.index.as_retriever(similarity_top_k=12, filters=_sources("AC-12.txt", "AC-14.txt"))
        out = await self._both(CHOPBoostPostprocessor(index=self.index), own.retrieve(self.question))
        assert set(_models(out)) == {"Nimbus AC-12", "Nimbus AC-14"}
        if self.named is not None:
            assert _models(out)[:NODES_PER_MANUAL] == [self.named] * NODES_PER_MANUAL


for _store in STORE_KINDS:
    for _case in QUESTIONS:
        _name = f"TestCHOPBoostPostprocessor_{_store}_{_case}"
        globals()[_name] = type(_name, (_BoostContract,), {"store": _store, "case": _case})
        for _mode in ("filter", "boost"):
            _name = f"TestCHOPRetriever_{_store}_{_case}_{_mode}"
            globals()[_name] = type(_name, (_RetrieverContract,), {"store": _store, "case": _case, "mode": _mode})
