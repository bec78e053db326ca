"""CHOP at query time as a LangChain ``BaseRetriever``: the model a question names picks the chunks.

The retriever reads the question against the signatures the store holds (a
:class:`~chop_integrations.QueryReader`), turns the reading into the store's own filter on
``chop_model`` and searches. It holds no algorithm: reading and section runs are the core's
(:mod:`chop_integrations._query`); store specifics are in :mod:`._stores`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from langchain_core.vectorstores import VectorStore, VectorStoreRetriever
from pydantic import Field, PrivateAttr

from .._errors import ConfigurationError
from .._query import QueryReader, QueryReading, SignatureCatalog, section_run
from .._query.context import CONTINUES_KEY
from .._query.live import DEFAULT_REFRESH, LiveReader
from .._query.ranking import merged
from .._text.tokens import tiktoken_counter
from ._filters import Search, plan_search, translator_for
from ._search import Options, asearch, options_of, search
from ._stores import catalog_from_vectorstore, fetch_positions, store_size
from ._transformer import DOCUMENT_KEY, INDEX_KEY, TEXT_KEY

__all__ = ["CHOPRetriever"]

#: Metadata keys the retriever adds to what it returns.
QUERY_MODEL_KEY, QUERY_CATEGORY_KEY = "chop_query_model", "chop_query_category"
CONTEXT_INDICES_KEY, CONTEXT_IDS_KEY = "chop_context_indices", "chop_context_ids"


class CHOPRetriever(BaseRetriever):
    """Retrieves from a vector store, restricted to (or led by) the model the question names.

    It follows LangChain's ``VectorStoreRetriever``: build it from a store (``vectorstore=``) or from the store's
    retriever (``CHOPRetriever.from_retriever(store.as_retriever(search_type="mmr", search_kwargs={"k": 2}))``);
    ``search_type`` and ``search_kwargs`` mean what they mean there. The question is read against the
    ``chop_model`` values the store holds; when it names one, the search runs with the condition
    ``chop_model == <model>`` AND the caller's ``filter``, in the store's own filter: through LangChain's
    self-query translator for the store (Chroma, Qdrant, Pinecone, PGVector, Milvus, Weaviate... the stores
    ``SelfQueryRetriever`` supports), a callable for ``InMemoryVectorStore``. A store with neither is searched
    without the condition and its hits kept on the client, searching twice as deep until ``k`` are kept (up to
    10,000 hits deep): never fewer than ``k`` when the store holds ``k`` of the model. A question that names no
    known model (or an ambiguous one) gets exactly the plain search.

    Every document comes back with its original text in ``page_content`` (``metadata["chop_text"]``
    when the prefix was written into ``page_content``), its metadata intact, plus what the question
    was read as: ``chop_query_model`` and ``chop_query_category`` (``""`` when none), and, for the similarity
    search types, its relevance score (``similarity_search_with_relevance_scores``, higher is nearer) in
    ``metadata["score"]`` (MMR gives none; nor does a store that cannot score).

    Example:
        >>> retriever = CHOPRetriever(vectorstore=store, k=4)  # reads the known models from the store
        >>> retriever.invoke("How do I clean the filter of the Nimbus AC-12?")

    Args:
        vectorstore: Any LangChain ``VectorStore`` holding chunks from
            :class:`~chop_integrations.langchain.CHOPDocumentTransformer`.
        retriever: Instead of ``vectorstore``: a ``VectorStoreRetriever`` (``store.as_retriever(...)``) whose
            store, ``search_type``, ``search_kwargs`` and tags are taken (``search_kwargs=`` given too are merged
            over its own).
        reader: The :class:`~chop_integrations.QueryReader` to read questions with.
        catalog: The :class:`~chop_integrations.SignatureCatalog` saved at ingestion (used when no
            ``reader`` is given). With neither, the catalog is read back from the store
            (:func:`catalog_from_vectorstore`) when the retriever is built, and again before a query
            when the store may have changed (``catalog_refresh``). A store with no ``chop_model``
            value logs one warning. A ``reader`` or ``catalog`` given is never read again.
        catalog_refresh: For a catalog read back from the store: the store is read again before a query
            whenever its number of chunks changed (``InMemoryVectorStore``, Chroma and Qdrant tell it
            cheaply), so chunks ingested after the retriever was built are read; a store that cannot
            tell its size would be read again once this many seconds have passed. ``None``: read once,
            when the retriever is built.
        mode: ``"filter"``: only the named model's chunks. ``"boost"``: the named model's chunks first,
            then the plain search's others, ``k`` in all, none twice.
        search_type: ``"similarity"`` (default), ``"similarity_score_threshold"`` (only hits whose relevance
            score is at least ``search_kwargs["score_threshold"]``) or ``"mmr"`` (maximal marginal relevance:
            ``fetch_k`` candidates, diversity ``lambda_mult``, 0.5 by default).
        k: How many documents to return (``search_kwargs["k"]`` wins over it).
        fetch_k: The MMR candidates, and the first depth of a search filtered on the client.
        search_kwargs: Arguments of every search, as ``VectorStoreRetriever`` takes them: ``k``, ``fetch_k``,
            ``lambda_mult``, ``score_threshold``, and ``filter``: a filter of your own that every search keeps (the
            named model's condition is AND-ed to it), either a ``langchain_core.structured_query`` expression
            (``Comparison``/``Operation``, for any store: translated, or tested on the client) or the store's own
            form (a callable for ``InMemoryVectorStore``, a ``models.Filter`` for Qdrant, a ``where`` dict for
            Chroma; passed as it is elsewhere). Any other key goes to the store's search as it is. Keyword
            arguments of ``invoke``/``ainvoke`` are merged over these for one call (``invoke(question, k=1)``).
        context_tokens: When > 0, each hit comes back widened to its section run: the neighbouring
            chunks of the same document that continue it (``chop_continues``), nearest first, while
            the whole stays within this many tokens (cl100k). ``page_content`` then holds the run's
            original text; ``chop_context_indices`` and ``chop_context_ids`` say which chunks it holds.
            A hit already inside an earlier hit's run is not returned again. Needs the
            ``chop_document``/``chop_index`` metadata the transformer writes, and a store read
            natively (others return the hit alone).

    Raises:
        InputError: When no reader or catalog is given and the store cannot be read back; on a ``k`` or
            ``fetch_k`` that is not a positive integer.
        ConfigurationError: An option that cannot be honoured: an unknown ``search_type``, a
            ``similarity_score_threshold`` search without a ``score_threshold``, ``score_threshold`` with
            ``mmr``, ``lambda_mult`` without it, a ``score_threshold`` on a store that gives no scores; a
            ``retriever=`` that is no ``VectorStoreRetriever``. (A structured filter the store's translator refuses
            is run on the client.)
    """

    vectorstore: VectorStore
    reader: QueryReader | None = None
    catalog: SignatureCatalog | None = Field(default=None, exclude=True)
    mode: Literal["filter", "boost"] = "filter"
    search_type: str = "similarity"
    k: int = Field(default=4, gt=0)
    fetch_k: int = Field(default=50, gt=0)
    search_kwargs: dict[str, Any] = Field(default_factory=dict)
    context_tokens: int = Field(default=0, ge=0)
    catalog_refresh: float | None = Field(default=DEFAULT_REFRESH, ge=0)
    _live: LiveReader = PrivateAttr()
    _translator: Any = PrivateAttr(default=None)

    def __init__(self, **fields: Any) -> None:
        fields = _from_retriever(fields)
        super().__init__(**fields)
        # here, not in a validator: pydantic would wrap the InputError
        self._options({})
        store = self.vectorstore
        self._live = LiveReader.of(
            self.reader,
            self.catalog,
            lambda: catalog_from_vectorstore(store),
            mark=lambda: store_size(store),
            every=self.catalog_refresh,
            where=f"the {type(store).__name__}",
        )
        self.reader = self._live.current
        self._translator = translator_for(store)  # the store's LangChain filter translator, or None

    @classmethod
    def from_retriever(cls, retriever: VectorStoreRetriever, **fields: Any) -> CHOPRetriever:
        """A CHOP retriever over ``retriever``'s store, with its ``search_type``, ``search_kwargs`` and tags.

        ``CHOPRetriever.from_retriever(store.as_retriever(search_type="mmr", search_kwargs={"k": 2}))`` (or
        ``CHOPRetriever(retriever=...)``). ``fields`` are the retriever's other arguments (``mode``, ``catalog``...).

        Raises:
            ConfigurationError: ``retriever`` is not a ``VectorStoreRetriever`` (wrap any other retriever in a
                ``ContextualCompressionRetriever`` with :class:`CHOPDocumentCompressor`), or ``vectorstore=`` is
                given too.
        """
        return cls(retriever=retriever, **fields)

    # -- BaseRetriever -----------------------------------------------------------------------------

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        options = self._options(kwargs)
        reading = self._kept_reader(self._live.reader()).read(query)
        found = [search(self.vectorstore, query, options, plan, options.k) for plan in self._plan(reading, options)]
        return self._finish(_combined(found, options.k), reading)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        options = self._options(kwargs)
        reading = await self._kept_reader(await self._live.areader()).aread(query)
        found = [
            await asearch(self.vectorstore, query, options, plan, options.k) for plan in self._plan(reading, options)
        ]
        hits = _combined(found, options.k)
        if self.context_tokens <= 0:
            return self._finish(hits, reading)
        return await run_in_executor(None, self._finish, hits, reading)

    def _options(self, kwargs: dict[str, Any]) -> Options:
        """This call's options: ``kwargs`` over ``search_kwargs`` over the retriever's ``k`` and ``fetch_k``.

        Raises:
            InputError: On a ``k`` or ``fetch_k`` that is not a positive integer.
            ConfigurationError: An option the search type cannot honour (see :func:`._search.options_of`).
        """
        defaults = {"k": self.k, "fetch_k": self.fetch_k, **self.search_kwargs}
        return options_of(self.search_type, defaults, kwargs)

    def _plan(self, reading: QueryReading, options: Options) -> list[Search]:
        """The searches to run, in order: filtered, filtered then plain (boost), or plain.

        Each keeps the caller's ``filter``; the filtered one adds the reading's conditions, in the store's own
        filter where it can (LangChain's translator for the store, or :mod:`._stores`), else on the client.
        """
        translator = self._translator
        plain = plan_search(self.vectorstore, translator, {}, options.filter)
        conditions = reading.metadata_filter()
        if not conditions:
            return [plain]
        filtered = plan_search(self.vectorstore, translator, conditions, options.filter)
        return [filtered, plain] if self.mode == "boost" else [filtered]

    # -- shaping the result ------------------------------------------------------------------------

    def _kept_reader(self, latest: QueryReader) -> QueryReader:
        """The reader for this query: ``latest`` (the store's values as last read), kept in ``reader``.

        A reader given, or read once (``catalog_refresh=None``), is ``reader`` as it is.
        """
        if self._live.refreshing and latest is not self.reader:
            self.reader = latest
        assert self.reader is not None  # set by __init__
        return self.reader

    def _finish(self, hits: list[Document], reading: QueryReading) -> list[Document]:
        """The hits as the caller gets them: original text, the reading noted, widened where asked."""
        said = {QUERY_MODEL_KEY: reading.model or "", QUERY_CATEGORY_KEY: reading.category or ""}
        out: list[Document] = []
        covered: set[tuple[str, int]] = set()
        for hit in hits:
            document, index = hit.metadata.get(DOCUMENT_KEY), hit.metadata.get(INDEX_KEY)
            if self.context_tokens <= 0 or not isinstance(document, str) or not isinstance(index, int):
                out.append(Document(page_content=original(hit), metadata={**hit.metadata, **said}, id=_id_of(hit)))
                continue
            if (document, index) in covered:
                continue
            run = self._run(hit, document, index)
            covered.update((document, d.metadata[INDEX_KEY]) for d in run)
            metadata = {
                **hit.metadata,
                **said,
                CONTEXT_INDICES_KEY: [d.metadata[INDEX_KEY] for d in run],
                CONTEXT_IDS_KEY: [i for i in map(_id_of, run) if i is not None],
            }
            out.append(Document(page_content=_joined(original(d) for d in run), metadata=metadata, id=_id_of(hit)))
        return out

    def _run(self, hit: Document, document: str, index: int) -> list[Document]:
        """``hit`` and its section-run neighbours within ``context_tokens``, in document order.

        Neighbours are fetched in a window around the hit that doubles while the run reaches its edge.
        Two different chunks at one position (a document ingested twice, differently) end the run there.
        """
        known: dict[int, Document | None] = {index: hit}
        count = tiktoken_counter()
        window = 4
        while True:
            first, last = max(0, index - window), index + window
            found = fetch_positions(self.vectorstore, document, first, last)
            if found is None:
                return [hit]
            for doc in found:
                position = doc.metadata.get(INDEX_KEY)
                if not isinstance(position, int) or position == index:
                    continue
                seen = known.get(position)
                known[position] = doc if position not in known or _same(seen, doc) else None
            start, end = index, index
            while known.get(start - 1) is not None:
                start -= 1
            while known.get(end + 1) is not None:
                end += 1
            block = [d for i in range(start, end + 1) if (d := known[i]) is not None]  # none is: the walks stop at one
            continues = [d.metadata.get(CONTINUES_KEY) is True for d in block]
            tokens = [count(original(d)) for d in block]
            run = section_run(continues, tokens, index - start, self.context_tokens)
            more_before = run.start == 0 and start == first and first > 0
            more_after = run.stop == len(block) and end == last
            if not (more_before or more_after):
                return block[run.start : run.stop]
            window *= 2


def original(document: Document) -> str:
    """A chunk's original text: ``metadata["chop_text"]`` when the prefix went into ``page_content``."""
    text = document.metadata.get(TEXT_KEY)
    return text if isinstance(text, str) else document.page_content


def _id_of(document: Document) -> str | None:
    """A search result's id (Qdrant's results carry it in ``metadata["_id"]``)."""
    if document.id is not None:
        return document.id
    found = document.metadata.get("_id")
    return None if found is None else str(found)


def _identity(document: Document) -> Any:
    """What makes two search results the same chunk."""
    found = _id_of(document)
    if found is not None:
        return found
    return (document.metadata.get(DOCUMENT_KEY), document.metadata.get(INDEX_KEY), original(document))


def _same(a: Document | None, b: Document) -> bool:
    return a is not None and original(a) == original(b)


def _from_retriever(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with ``retriever=`` (a ``VectorStoreRetriever``) turned into its store, search type and arguments.

    Raises:
        ConfigurationError: ``retriever`` is not a ``VectorStoreRetriever``, or ``vectorstore`` is given too.
    """
    retriever = fields.pop("retriever", None)
    if retriever is None:
        return fields
    if not isinstance(retriever, VectorStoreRetriever):
        raise ConfigurationError(
            f"retriever= must be a VectorStoreRetriever (store.as_retriever(...)), got {type(retriever).__name__}; "
            "for any other retriever, wrap it in a ContextualCompressionRetriever with CHOPDocumentCompressor"
        )
    if "vectorstore" in fields:
        raise ConfigurationError("pass vectorstore= or retriever=, not both")
    out = {"vectorstore": retriever.vectorstore, "search_type": retriever.search_type, **fields}
    out["search_kwargs"] = {**retriever.search_kwargs, **fields.get("search_kwargs", {})}
    if retriever.tags and "tags" not in fields:
        out["tags"] = list(retriever.tags)
    return out


def _combined(found: list[list[Document]], k: int) -> list[Document]:
    """One search's documents as they are; several (boost): in order, none twice, ``k`` in all."""
    return found[0] if len(found) == 1 else merged(found, _identity, k)


def _joined(texts: Iterable[str]) -> str:
    """Chunks' texts as one passage: as they are when whitespace already separates them, else a line break."""
    parts: list[str] = []
    for text in texts:
        if parts and not parts[-1][-1:].isspace() and not text[:1].isspace():
            parts.append("\n")
        parts.append(text)
    return "".join(parts)
