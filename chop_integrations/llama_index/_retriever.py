"""CHOP at query time as a LlamaIndex retriever: the model a question names becomes a ``MetadataFilters``.

LlamaIndex's ``VectorIndexAutoRetriever`` asks an LLM to write a metadata filter from the question. The
store already knows every node's ``chop_model`` (the :class:`~chop_integrations.llama_index.CHOPExtractor`
wrote it), so :class:`CHOPRetriever` reads the question against those known values offline
(:class:`~chop_integrations.QueryReader`) and retrieves with
``MetadataFilters([MetadataFilter(key="chop_model", value=..., operator=FilterOperator.EQ)])`` through the
index's own ``as_retriever(filters=...)``: every vector store LlamaIndex filters natively works unchanged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Literal, get_args

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.constants import DEFAULT_SIMILARITY_TOP_K
from llama_index.core.indices.base import BaseIndex
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

from .._errors import ConfigurationError
from .._query import QueryReader, QueryReading, SignatureCatalog
from .._query.fetching import Deepening
from .._query.live import DEFAULT_REFRESH
from .._query.ranking import meets, merged
from ._catalog import resolve_reader

__all__ = ["CHOPRetriever", "Mode", "reading_filters"]

#: Nodes fetched first under a caller's OR filter, when the reading's condition is applied only on the client.
FETCH_K = 50
#: How many times more nodes each further fetch asks for while too few hits carry the named model.
GROWTH = 4
#: The most nodes one filtered retrieval asks for (a bound on the fetches over an index that ignores filters).
MAX_FETCH = 1000
#: ``"filter"``: only the named model's nodes; ``"boost"``: the named model's nodes first, then the rest.
Mode = Literal["filter", "boost"]


def reading_filters(reading: QueryReading, base: MetadataFilters | None = None) -> MetadataFilters | None:
    """The ``MetadataFilters`` a reading stands for (``EQ`` on ``chop_model``, and ``chop_category`` if read).

    Args:
        reading: What the question names.
        base: The caller's own filters, kept: the reading's conditions are added to them (AND).

    Returns:
        ``base`` alone when the reading names nothing.
    """
    ours: list[MetadataFilter | MetadataFilters] = [
        MetadataFilter(key=key, value=value, operator=FilterOperator.EQ)
        for key, value in reading.metadata_filter().items()
    ]
    if not ours:
        return base
    if base is None:
        return MetadataFilters(filters=ours, condition=FilterCondition.AND)
    if base.condition in (None, FilterCondition.AND):
        return MetadataFilters(filters=[*base.filters, *ours], condition=FilterCondition.AND)
    return MetadataFilters(filters=[base, *ours], condition=FilterCondition.AND)


def merge(results: Sequence[Sequence[NodeWithScore]], top_k: int) -> list[NodeWithScore]:
    """The hits of ``results`` in order, each node once, at most ``top_k``."""
    return merged(results, lambda hit: hit.node.node_id, top_k)


class CHOPRetriever(BaseRetriever):
    """Retrieves from an index with a filter on the model the question names, read offline.

    The question (``QueryBundle.query_str``) is read by a :class:`~chop_integrations.QueryReader` against
    the models the store holds. When it names one, ``mode="filter"`` retrieves only that model's nodes and
    ``mode="boost"`` puts them first, then fills up with the plain hits (no node twice, ``similarity_top_k``
    in all). When it names none (or is ambiguous) the result is exactly the plain retrieval. Works wherever
    a retriever does (``RetrieverQueryEngine``, a chat engine), sync and async.

    Args:
        index: The index retrieved from; its ``as_retriever(similarity_top_k=..., filters=...)`` is used, so
            a ``VectorStoreIndex`` over any store filters in the store. The hits are checked on the client
            too, so an index whose retriever ignores ``filters`` (a ``SummaryIndex``) never returns another
            model's nodes in ``"filter"`` mode; it is asked for more nodes (up to :data:`MAX_FETCH`) while
            fewer than ``similarity_top_k`` of the model's come back.
        reader: The reader of questions. Default: one over ``catalog``.
        catalog: The known values (saved at ingestion). Default: read back from ``index``
            (:func:`~chop_integrations.llama_index.catalog_from_index`) here, and again before a query when
            the index may have changed (``catalog_refresh``); an index with no ``chop_model`` value logs one
            warning. A ``reader`` or ``catalog`` given is never read again.
        catalog_refresh: For values read back from ``index``: they are read again before a query whenever
            the index's number of nodes changed (a ``VectorStoreIndex``'s nodes, a ``SimpleVectorStore``, a
            Qdrant collection), so nodes inserted after the retriever was built are read; a store that
            cannot tell its size is read again once this many seconds have passed. ``None``: read once, here.
        mode: ``"filter"`` or ``"boost"``.
        similarity_top_k: Nodes returned.
        callback_manager: LlamaIndex callbacks.
        **retriever_kwargs: Passed to ``index.as_retriever`` (``vector_store_query_mode``...); a
            ``filters=`` of your own is kept and the reading's condition added to it (to an OR filter on
            the client, over the store's first :data:`FETCH_K` hits and more as needed: many stores refuse
            nested filters).

    Raises:
        ConfigurationError: On an unknown ``mode``, a ``similarity_top_k`` < 1, a negative ``catalog_refresh``,
            or both ``reader`` and ``catalog``.
    """

    def __init__(
        self,
        index: BaseIndex[Any],
        *,
        reader: QueryReader | None = None,
        catalog: SignatureCatalog | None = None,
        mode: Mode = "filter",
        similarity_top_k: int = DEFAULT_SIMILARITY_TOP_K,
        catalog_refresh: float | None = DEFAULT_REFRESH,
        callback_manager: CallbackManager | None = None,
        **retriever_kwargs: Any,
    ) -> None:
        if mode not in get_args(Mode):
            raise ConfigurationError(f"mode must be one of {get_args(Mode)}, got {mode!r}")
        if similarity_top_k < 1:
            raise ConfigurationError(f"similarity_top_k must be >= 1, got {similarity_top_k}")
        self._index = index
        self._live = resolve_reader(index, reader, catalog, refresh=catalog_refresh)
        self._mode: Mode = mode
        self._top_k = similarity_top_k
        self._filters: MetadataFilters | None = retriever_kwargs.pop("filters", None)
        self._kwargs = retriever_kwargs
        super().__init__(callback_manager=callback_manager)

    @property
    def reader(self) -> QueryReader:
        """The reader of questions (its ``models`` are the values the store held when last read)."""
        return self._live.current

    @property
    def mode(self) -> Mode:
        """``"filter"`` or ``"boost"``."""
        return self._mode

    def _plan(self, reading: QueryReading) -> list[_Fetch]:
        """The retrievals to run, in order (filtered, filtered then plain, or plain), with what their hits must meet.

        The filtered retrieval's hits are checked here whatever the index did with ``filters=`` (a
        ``SummaryIndex``, a custom retriever and some stores ignore it), and fetched again with a larger
        ``similarity_top_k`` while too few pass (:meth:`_Fetch.run`). A filter of the caller's that is not a
        plain AND (an OR) would need nested ``MetadataFilters``, which many stores refuse (LlamaIndex's
        ``SimpleVectorStore``): that filter alone goes to the store, from :data:`FETCH_K` nodes up.
        """
        plain = _Fetch(self, self._filters, self._top_k, {})
        conditions = reading.metadata_filter()
        if not conditions:
            return [plain]
        if self._filters is None or self._filters.condition in (None, FilterCondition.AND):
            filtered = _Fetch(self, reading_filters(reading, self._filters), self._top_k, conditions)
        else:
            filtered = _Fetch(self, self._filters, max(FETCH_K, self._top_k), conditions)
        return [filtered, plain] if self._mode == "boost" else [filtered]

    def _retriever(self, filters: MetadataFilters | None, top_k: int) -> BaseRetriever:
        """The index's own retriever (``filters`` passed only when there are some: any index's retriever works)."""
        options = {**self._kwargs, **({"filters": filters} if filters is not None else {})}
        return self._index.as_retriever(similarity_top_k=top_k, **options)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """Read the question, then run the plan (one bundle: the question is embedded once)."""
        return self._run(self._plan(self._live.reader().read(query_bundle.query_str)), query_bundle)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """:meth:`_retrieve` with the reader's and the index retriever's async paths.

        A store that has no async client (LlamaIndex's ``QdrantVectorStore`` given only ``client=``, as in
        Qdrant's local mode, where an async client would not see the same data) is retrieved from on its sync
        client, in a worker thread.
        """
        reading = await (await self._live.areader()).aread(query_bundle.query_str)
        plan = self._plan(reading)
        if _sync_only(getattr(self._index, "vector_store", None)):
            return await asyncio.to_thread(self._run, plan, query_bundle)
        try:
            found = [await fetch.arun(query_bundle) for fetch in plan]
        except Exception:
            if await asyncio.to_thread(_collection_missing, self._index):
                return []
            raise
        return merge(found, self._top_k)

    def _run(self, plan: list[_Fetch], query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The hits of ``plan``'s retrievals, merged (an empty list when the store's collection does not exist)."""
        try:
            found = [fetch.run(query_bundle) for fetch in plan]
        except Exception:
            if _collection_missing(self._index):
                return []
            raise
        return merge(found, self._top_k)


class _Fetch:
    """One retrieval of the plan: its filters, how many nodes it asks for first, and what its hits must meet.

    With conditions, the hits are checked on the client and, while fewer than ``similarity_top_k`` pass, the
    index is asked again for :data:`GROWTH` times as many nodes, until the index returns no more (fewer than
    asked, or no more than the last time) or :data:`MAX_FETCH` nodes were asked for: a store that ignores
    ``filters=`` still gives ``similarity_top_k`` of the named model's nodes when its first
    :data:`MAX_FETCH` hold them, and never another model's.
    """

    def __init__(
        self, owner: CHOPRetriever, filters: MetadataFilters | None, top_k: int, conditions: dict[str, Any]
    ) -> None:
        self.owner, self.filters, self.top_k, self.conditions = owner, filters, top_k, conditions

    def _deepening(self) -> Deepening[NodeWithScore] | None:
        """How the hits are searched deeper and kept (``None`` without conditions: one retrieval, every hit)."""
        if not self.conditions:
            return None
        conditions = self.conditions
        return Deepening(
            self.owner._top_k,
            self.top_k,
            lambda hit: meets(hit.node.metadata, conditions),
            limit=MAX_FETCH,
            growth=GROWTH,
        )

    def run(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The hits that meet the conditions (all hits without any)."""
        deepening = self._deepening()
        if deepening is None:
            return self.owner._retriever(self.filters, self.top_k).retrieve(query_bundle)
        while (
            kept := deepening.take(self.owner._retriever(self.filters, deepening.depth).retrieve(query_bundle))
        ) is None:
            pass
        return kept

    async def arun(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """Async :meth:`run`."""
        deepening = self._deepening()
        if deepening is None:
            return await self.owner._retriever(self.filters, self.top_k).aretrieve(query_bundle)
        while (
            kept := deepening.take(await self.owner._retriever(self.filters, deepening.depth).aretrieve(query_bundle))
        ) is None:
            pass
        return kept


def _sync_only(store: Any) -> bool:
    """Whether ``store`` is a Qdrant store with a sync client and no async one (its ``aquery`` would raise)."""
    return (
        store is not None
        and hasattr(store, "collection_name")
        and getattr(store, "_aclient", True) is None
        and getattr(store, "client", None) is not None
    )


def _collection_missing(index: BaseIndex[Any]) -> bool:
    """Whether ``index``'s store is a Qdrant store whose collection does not exist yet (nothing was ever added).

    LlamaIndex's ``QdrantVectorStore`` creates its collection with the first nodes; a query before that fails
    in Qdrant, where the retriever returns what an empty store holds: nothing.
    """
    store = getattr(index, "vector_store", None)
    client, collection = getattr(store, "client", None), getattr(store, "collection_name", None)
    if client is None or not isinstance(collection, str):
        return False
    try:
        return not client.collection_exists(collection)
    except Exception:  # the store is unreachable: the original error says more
        return False
