"""CHOP at query time as LlamaIndex node postprocessors: boost the named model, widen hits to their section.

* :class:`CHOPBoostPostprocessor` moves the nodes of the model a question names to the front, for those who
  keep their own retriever (a hybrid or fusion retriever, a store without metadata filters).
* :class:`CHOPContextPostprocessor` widens each hit to the chunks of its section run (the
  ``chop_continues`` chain), under a token budget, so a generator reads the section, not a slice of it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from itertools import pairwise
from typing import Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.indices.base import BaseIndex
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import BaseNode, NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode
from llama_index.core.storage.docstore.types import BaseDocumentStore

from .._errors import ConfigurationError
from .._query import QueryReader, QueryReading, SignatureCatalog, section_run
from .._query.context import CONTINUES_KEY
from .._query.live import DEFAULT_REFRESH, LiveReader
from .._query.ranking import meets, partitioned
from .._text.tokens import TokenCounter, resolve_counter
from ._catalog import resolve_reader

__all__ = ["CHOPBoostPostprocessor", "CHOPContextPostprocessor"]

#: Default token budget of a widened hit (the hit and its section neighbours together). Set by design: a few
#: chunks of the default size, so five widened hits still fit a small model's context.
SECTION_BUDGET = 512
#: Metadata key of a widened node: the ids of the nodes it joins, in document order (hidden from embed and LLM).
SECTION_KEY = "chop_section_ids"


class CHOPBoostPostprocessor(BaseNodePostprocessor):
    """Puts the nodes of the model the question names first, the rest after, each group in its order.

    For a retriever of your own; :class:`~chop_integrations.llama_index.CHOPRetriever` with ``mode="boost"``
    does the same inside the retrieval (and can fetch the model's nodes the plain top-k missed). Nothing
    moves when the question names no known model, or when no query reaches the postprocessor.

    Args:
        reader: The reader of questions. Default: one over ``catalog``.
        catalog: The known values (saved at ingestion). Default: read back from ``index``.
        index: An index, docstore or vector store to read the known values back from, here and again before
            a query when it may have changed (see ``catalog_refresh``); one with no ``chop_model`` value logs
            one warning.
        catalog_refresh: For values read back from ``index``: read again whenever its number of nodes changed
            (an index, a ``SimpleVectorStore``, a Qdrant collection), else (a docstore, another store) once this
            many seconds have passed. ``None``: read once, here.
    """

    reader: Any = Field(exclude=True, description="The QueryReader of questions.")
    catalog_refresh: float | None = Field(
        default=DEFAULT_REFRESH, ge=0, description="Seconds between readings of an index without a cheap size."
    )
    _live: LiveReader = PrivateAttr()

    def __init__(
        self,
        *,
        reader: QueryReader | None = None,
        catalog: SignatureCatalog | None = None,
        index: Any = None,
        catalog_refresh: float | None = DEFAULT_REFRESH,
        **kwargs: Any,
    ) -> None:
        live = resolve_reader(index, reader, catalog, refresh=catalog_refresh)
        super().__init__(reader=live.current, catalog_refresh=catalog_refresh, **kwargs)  # type: ignore[call-arg]
        self._live = live

    def _kept_reader(self, latest: QueryReader) -> Any:
        """The reader for this query: ``latest`` (the index's values as last read), kept in ``reader``.

        A reader given, or read once (``catalog_refresh=None``), is ``reader`` as it is.
        """
        if self._live.refreshing and latest is not self.reader:
            self.reader = latest
        return self.reader

    @classmethod
    def class_name(cls) -> str:
        """Name used in serialisation."""
        return "CHOPBoostPostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            return nodes
        return boosted(nodes, self._kept_reader(self._live.reader()).read(query_bundle.query_str))

    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            return nodes
        reader = self._kept_reader(await self._live.areader())
        return boosted(nodes, await reader.aread(query_bundle.query_str))


def boosted(nodes: Sequence[NodeWithScore], reading: QueryReading) -> list[NodeWithScore]:
    """``nodes`` with those whose metadata matches ``reading`` first (a stable partition)."""
    conditions = reading.metadata_filter()
    if not conditions:
        return list(nodes)
    return partitioned(nodes, lambda hit: meets(hit.node.metadata, conditions))


class CHOPContextPostprocessor(BaseNodePostprocessor):
    """Widens each hit to the neighbours of its section run, nearest first, within ``budget`` tokens.

    A node's section run is the chain of nodes joined by ``chop_continues`` (set by
    :class:`~chop_integrations.llama_index.CHOPExtractor`): a node with ``chop_continues=True`` goes on with
    the node before it. Neighbours are found through the nodes' PREVIOUS/NEXT relationships (LlamaIndex's
    node parsers and :class:`~chop_integrations.llama_index.LumberChunkerNodeParser` set them) and fetched
    from the docstore or the vector store; :func:`~chop_integrations.section_run` chooses them. The widened
    node keeps the hit's id, score and metadata; its text is the run's original text in document order
    (exact when the nodes' offsets adjoin, else joined by ``separator``) and ``chop_section_ids`` lists the
    nodes it joins. A hit already inside a higher-ranked hit's run is dropped, and a run never takes in a node a
    higher-ranked hit returned, so no passage is returned twice.

    LlamaIndex's ``PrevNextNodePostprocessor`` adds a fixed number of neighbours as separate nodes; this one
    stops at a section break, keeps to a token budget, and returns one node per section.

    Args:
        docstore: Where neighbours are fetched (``index.docstore`` of a ``VectorStoreIndex`` over the default
            store). Use :meth:`from_index` to choose.
        vector_store: Where neighbours are fetched when the docstore holds no nodes (a store that keeps text,
            such as Qdrant, through its ``get_nodes(node_ids=...)``).
        budget: Tokens a widened hit may hold; the hit is kept whole even when it alone is over.
        token_counter: Counts tokens (``None``: cl100k_base; ``"chars"``, ``"words"`` or a callable).
        separator: Joins two nodes whose offsets do not adjoin.
    """

    docstore: BaseDocumentStore | None = Field(default=None, exclude=True)
    vector_store: Any = Field(default=None, exclude=True)
    budget: int = Field(default=SECTION_BUDGET, ge=0, description="Tokens a widened hit may hold.")
    token_counter: Any = Field(default=None, exclude=True, description="Counts tokens (None: cl100k_base).")
    separator: str = Field(default="\n\n", description="Joins two nodes whose offsets do not adjoin.")
    _count: TokenCounter = PrivateAttr()

    def __init__(self, **data: Any) -> None:
        if data.get("docstore") is None and data.get("vector_store") is None:
            raise ConfigurationError("CHOPContextPostprocessor needs a docstore= or a vector_store= to fetch from")
        super().__init__(**data)
        self._count = resolve_counter(self.token_counter)

    @classmethod
    def from_index(cls, index: BaseIndex[Any], **fields: Any) -> CHOPContextPostprocessor:
        """Fetch neighbours from ``index``'s docstore when it holds nodes, else from its vector store."""
        if index.docstore.docs:
            return cls(docstore=index.docstore, **fields)
        return cls(vector_store=getattr(index, "vector_store", None), **fields)

    @classmethod
    def class_name(cls) -> str:
        """Name used in serialisation."""
        return "CHOPContextPostprocessor"

    def _fetch(self, node_id: str) -> BaseNode | None:
        if self.docstore is not None:
            found = self.docstore.get_node(node_id, raise_error=False)
            if found is not None or self.vector_store is None:
                return found
        nodes = self.vector_store.get_nodes(node_ids=[node_id])
        return nodes[0] if nodes else None

    def _side(self, hit: BaseNode, direction: NodeRelationship, room: int, taken: Set[str]) -> list[BaseNode]:
        """The nodes of ``hit``'s run on one side, nearest first.

        The walk stops when ``room`` tokens are used, the run ends, or it reaches a node of ``taken``.
        """
        found: list[BaseNode] = []
        current, used = hit, 0
        while used < room:
            if direction is NodeRelationship.PREVIOUS and current.metadata.get(CONTINUES_KEY) is not True:
                break
            related = current.relationships.get(direction)
            if not isinstance(related, RelatedNodeInfo) or related.node_id in taken:
                break
            neighbour = self._fetch(related.node_id)
            if neighbour is None or neighbour.ref_doc_id != hit.ref_doc_id:
                break
            if direction is NodeRelationship.NEXT and neighbour.metadata.get(CONTINUES_KEY) is not True:
                break
            found.append(neighbour)
            used += self._count(neighbour.get_content())
            current = neighbour
        return found

    def widen(self, hit: NodeWithScore, taken: Set[str] = frozenset()) -> NodeWithScore:
        """``hit`` widened to its section run within the budget (``hit`` itself when nothing joins it).

        Args:
            hit: A retrieved node.
            taken: Ids of nodes the run may not include (returned already with a higher-ranked hit).
        """
        node = hit.node
        if not isinstance(node, TextNode):
            return hit
        room = max(self.budget - self._count(node.get_content()), 0)
        before = self._side(node, NodeRelationship.PREVIOUS, room, taken)[::-1]
        after = self._side(node, NodeRelationship.NEXT, room, taken)
        if not before and not after:
            return hit
        window = [*before, node, *after]
        continues = [n.metadata.get(CONTINUES_KEY) for n in window]
        tokens = [self._count(n.get_content()) for n in window]
        chosen = section_run(continues, tokens, len(before), self.budget)
        run = window[chosen.start : chosen.stop]
        return NodeWithScore(node=self._joined(node, run), score=hit.score) if len(run) > 1 else hit

    def _joined(self, hit: TextNode, run: Sequence[BaseNode]) -> TextNode:
        """A copy of ``hit`` holding the run's text, offsets and outer PREVIOUS/NEXT relations."""
        text = run[0].get_content()
        for previous, current in pairwise(run):
            end, start = getattr(previous, "end_char_idx", None), getattr(current, "start_char_idx", None)
            text += ("" if end is not None and end == start else self.separator) + current.get_content()
        first, last = run[0], run[-1]
        relationships = dict(hit.relationships)
        for key, edge in ((NodeRelationship.PREVIOUS, first), (NodeRelationship.NEXT, last)):
            relationships.pop(key, None)
            if key in edge.relationships:
                relationships[key] = edge.relationships[key]
        update = {
            "text": text,
            "metadata": {**hit.metadata, SECTION_KEY: [n.node_id for n in run]},
            "excluded_embed_metadata_keys": [*hit.excluded_embed_metadata_keys, SECTION_KEY],
            "excluded_llm_metadata_keys": [*hit.excluded_llm_metadata_keys, SECTION_KEY],
            "relationships": relationships,
            "start_char_idx": getattr(first, "start_char_idx", None),
            "end_char_idx": getattr(last, "end_char_idx", None),
        }
        return hit.model_copy(update=update)

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        covered: set[str] = set()
        widened: list[NodeWithScore] = []
        for hit in nodes:
            if hit.node.node_id in covered:
                continue
            wide = self.widen(hit, covered)
            covered.update(wide.node.metadata.get(SECTION_KEY, [hit.node.node_id]))
            widened.append(wide)
        return widened
