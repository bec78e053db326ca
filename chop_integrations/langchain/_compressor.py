"""CHOP for any LangChain retriever: a document compressor that filters or boosts by the model a question names.

For retrievers that are no vector store CHOP can filter (BM25, an ``EnsembleRetriever`` of BM25 and vectors, a
web or SQL retriever): ``ContextualCompressionRetriever(base_compressor=CHOPDocumentCompressor(...),
base_retriever=...)``. The ranking is the one LlamaIndex's ``CHOPBoostPostprocessor`` and the benchmark's
``chop+query`` rows use (:mod:`chop_integrations._query.ranking`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, Field, PrivateAttr

from .._errors import ConfigurationError
from .._query import QueryReader, QueryReading, SignatureCatalog
from .._query.live import DEFAULT_REFRESH, LiveReader
from .._query.ranking import meets, partitioned
from ._stores import catalog_from_vectorstore, store_size

__all__ = ["CHOPDocumentCompressor"]


class CHOPDocumentCompressor(BaseDocumentCompressor):
    """Keeps (``mode="filter"``) or puts first (``mode="boost"``) the documents of the model the question names.

    The question is read by a :class:`~chop_integrations.QueryReader` against the known ``chop_model`` values;
    a document is the model's when its ``chop_model`` metadata is the value read. A question that names no known
    model (or an ambiguous one) leaves the documents as they came. Each part keeps the retriever's order.

    ``filter`` can only keep what the base retriever returned: ask it for more than you need (``BM25Retriever``'s
    ``k``, the ensemble's members' ``k``) and cut with ``top_n``. With ``top_n`` set, ``boost`` always returns
    ``top_n`` documents when the retriever gave as many.

    Example:
        >>> bm25 = BM25Retriever.from_documents(chunks, k=50)
        >>> compressor = CHOPDocumentCompressor(documents=chunks, top_n=4)
        >>> retriever = ContextualCompressionRetriever(base_compressor=compressor, base_retriever=bm25)

    Args:
        mode: ``"filter"`` (default): only the named model's documents. ``"boost"``: the named model's first, then
            the rest.
        top_n: How many documents to return at most (``None``: all that are kept).
        reader: The reader of questions.
        catalog: The known values (a :class:`~chop_integrations.SignatureCatalog` saved at ingestion).
        documents: The signed chunks the retriever searches (their metadata is read into a catalog once).
        vectorstore: A store to read the known values back from, as ``CHOPRetriever`` does (and again when it
            changes: ``catalog_refresh``).
        catalog_refresh: See :class:`~chop_integrations.langchain.CHOPRetriever`.

    Raises:
        ConfigurationError: Not exactly one of ``reader``, ``catalog``, ``documents``, ``vectorstore``; an unknown
            ``mode``; a ``top_n`` below 1.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    mode: Literal["filter", "boost"] = "filter"
    top_n: int | None = Field(default=None)
    reader: QueryReader | None = Field(default=None, exclude=True)
    catalog_refresh: float | None = Field(default=DEFAULT_REFRESH, ge=0)
    _live: LiveReader = PrivateAttr()

    def __init__(
        self,
        *,
        reader: QueryReader | None = None,
        catalog: SignatureCatalog | None = None,
        documents: Iterable[Document] | None = None,
        vectorstore: VectorStore | None = None,
        **fields: Any,
    ) -> None:
        given = [name for name, value in locals().items() if name in _SOURCES and value is not None]
        if len(given) != 1:
            raise ConfigurationError(
                "CHOPDocumentCompressor needs exactly one of reader=, catalog=, documents= or vectorstore= (what "
                f"the known models are), got {', '.join(given) or 'none'}"
            )
        if fields.get("mode", "filter") not in ("filter", "boost"):
            raise ConfigurationError(f"mode must be 'filter' or 'boost', got {fields['mode']!r}")
        top_n = fields.get("top_n")
        if top_n is not None and (isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1):
            raise ConfigurationError(f"top_n must be None or a positive integer, got {top_n!r}")
        if documents is not None:
            catalog = SignatureCatalog.from_metadata(d.metadata for d in documents)
        super().__init__(**fields)
        if vectorstore is not None:
            store = vectorstore
            self._live = LiveReader.of(
                None,
                None,
                lambda: catalog_from_vectorstore(store),
                mark=lambda: store_size(store),
                every=self.catalog_refresh,
                where=f"the {type(store).__name__}",
            )
        else:
            self._live = LiveReader.of(reader, catalog, SignatureCatalog, mark=None, every=None, where="")
        self.reader = self._live.current

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """``documents`` filtered or reordered by the model ``query`` names, at most ``top_n``."""
        reader = self._live.reader()
        self.reader = reader
        return self._ranked(documents, reader.read(query))

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """:meth:`compress_documents`, with the reader's optional LLM called asynchronously."""
        reader = await self._live.areader()
        self.reader = reader
        return self._ranked(documents, await reader.aread(query))

    def _ranked(self, documents: Sequence[Document], reading: QueryReading) -> list[Document]:
        conditions = reading.metadata_filter()
        ranked = list(documents)
        if conditions:

            def named(doc: Document) -> bool:
                return meets(doc.metadata, conditions)

            ranked = [doc for doc in ranked if named(doc)] if self.mode == "filter" else partitioned(ranked, named)
        return ranked if self.top_n is None else ranked[: self.top_n]


_SOURCES = ("reader", "catalog", "documents", "vectorstore")
