"""What the query side needs from a LangChain vector store, for the stores CHOP knows by name.

Three embedded stores are read natively: ``InMemoryVectorStore`` (langchain-core), ``QdrantVectorStore``
(langchain-qdrant, local mode or a server) and ``Chroma`` (langchain-chroma). For each this module
builds the store's own metadata filter from a reading, reads every chunk's signature back
(:func:`catalog_from_vectorstore`), tells how many chunks it holds (:func:`store_size`) and fetches a
document's chunks by position (for context by continuity). The model filter of every other store goes through
LangChain's translators (:mod:`._filters`), or is applied on the client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from .._errors import InputError
from .._query import SignatureCatalog
from .._query.catalog import ALIASES_KEY, CATEGORY_KEY, MODEL_KEY
from .._query.qdrant import scroll
from .._query.ranking import meets
from ._transformer import DOCUMENT_KEY, INDEX_KEY

__all__ = ["catalog_from_vectorstore", "fetch_positions", "matches", "native_filter", "store_kind", "store_size"]

StoreKind = Literal["memory", "qdrant", "chroma", "other"]
#: Chunks read per page when a whole store is read back.
_PAGE = 1000


def store_kind(store: VectorStore) -> StoreKind:
    """Which of the stores this module reads natively ``store`` is (``"other"``: none of them).

    Qdrant's and Chroma's classes are imported only for a store whose class comes from their package.
    """
    if isinstance(store, InMemoryVectorStore):
        return "memory"
    modules = {cls.__module__.split(".")[0] for cls in type(store).__mro__}
    if "langchain_qdrant" in modules:
        from langchain_qdrant import QdrantVectorStore

        if isinstance(store, QdrantVectorStore):
            return "qdrant"
    if "langchain_chroma" in modules:
        from langchain_chroma import Chroma

        if isinstance(store, Chroma):
            return "chroma"
    return "other"


def native_filter(store: VectorStore, conditions: Mapping[str, Any], base: Any = None) -> Any:
    """``store``'s own ``filter=`` argument for metadata equal to ``conditions`` (``None`` for other stores).

    The retriever asks it for ``InMemoryVectorStore``, and for Qdrant and Chroma when the caller's filter is in the
    store's own form or LangChain's translators are not installed.

    ``InMemoryVectorStore``: a callable on the document; Qdrant: a ``models.Filter`` on
    ``metadata.<key>``; Chroma: a ``where`` dict (``$and`` of the conditions when there are several).

    Args:
        store: The vector store searched.
        conditions: Metadata key -> the value it must equal.
        base: A ``filter=`` of the caller's, in the store's own form (a callable, a ``models.Filter``, a
            ``where`` dict): kept, and ``conditions`` added to it (both must hold). ``None``: none.

    Raises:
        InputError: When ``base`` is not a filter ``InMemoryVectorStore`` takes (a callable).
    """
    kind = store_kind(store)
    if kind == "memory":
        ours = matches(conditions)
        if base is None:
            return ours
        if not callable(base):
            raise InputError(f"InMemoryVectorStore takes a callable filter, got {type(base).__name__}")
        return lambda doc: bool(base(doc)) and ours(doc)
    if kind == "qdrant":
        from qdrant_client import models

        must = [_qdrant_match(store, key, value) for key, value in conditions.items()]
        return models.Filter(must=must if base is None else [base, *must])
    if kind == "chroma":
        return _chroma_where(conditions, base)
    return None


def matches(conditions: Mapping[str, Any]) -> Callable[[Document], bool]:
    """A test of ``conditions`` on a document's metadata (``InMemoryVectorStore``'s filter, or on the client)."""
    wanted = dict(conditions)
    return lambda doc: meets(doc.metadata, wanted)


# -- reading the signatures back --------------------------------------------------------------------


def catalog_from_vectorstore(store: VectorStore) -> SignatureCatalog:
    """The :class:`~chop_integrations.SignatureCatalog` of every chunk ``store`` holds, read from its metadata.

    Reads metadata only (no vectors, no search): ``InMemoryVectorStore``'s ``store`` dict, Chroma's
    ``get(include=["metadatas"])`` page by page, Qdrant's ``scroll`` over the signature payload fields
    (model, category, aliases).
    The alternative is the catalog saved beside the store at ingestion
    (:meth:`~chop_integrations.SignatureCatalog.save`), which works for every store.

    Raises:
        InputError: For a store this function cannot read (save a catalog at ingestion instead).
    """
    return SignatureCatalog.from_metadata(_metadatas(store))


def store_size(store: VectorStore) -> int | None:
    """How many chunks ``store`` holds, when it tells that cheaply (``None`` for other stores).

    ``InMemoryVectorStore``: its ``store`` dict; Chroma: the collection's ``count()``; Qdrant: an exact
    ``count`` of the collection. The retriever reads the catalog again when this changes.
    """
    kind = store_kind(store)
    if kind == "memory":
        return len(store.store)  # type: ignore[attr-defined]
    if kind == "chroma":
        return int(store._collection.count())  # type: ignore[attr-defined]
    if kind == "qdrant":
        return int(store.client.count(store.collection_name, exact=True).count)  # type: ignore[attr-defined]
    return None


def _metadatas(store: VectorStore) -> Iterator[Mapping[str, Any] | None]:
    kind = store_kind(store)
    if kind == "memory":
        yield from (entry.get("metadata") for entry in list(store.store.values()))  # type: ignore[attr-defined]
    elif kind == "chroma":
        offset = 0
        while True:
            page = store.get(include=["metadatas"], limit=_PAGE, offset=offset)  # type: ignore[attr-defined]
            yield from page["metadatas"] or []
            if len(page["ids"]) < _PAGE:
                return
            offset += _PAGE
    elif kind == "qdrant":
        key = store.metadata_payload_key  # type: ignore[attr-defined]
        fields = [f"{key}.{field}" for field in (MODEL_KEY, CATEGORY_KEY, ALIASES_KEY)]
        for point in _scroll(store, None, fields):
            yield (point.payload or {}).get(key)
    else:
        raise InputError(
            f"cannot read signatures back from a {type(store).__name__} (known: InMemoryVectorStore, "
            "QdrantVectorStore, Chroma); save a SignatureCatalog at ingestion and pass catalog= instead"
        )


def _scroll(store: Any, query_filter: Any, fields: list[str] | bool) -> Iterator[Any]:
    return scroll(store.client, store.collection_name, payload=fields, page=_PAGE, scroll_filter=query_filter)


# -- a document's chunks by position ------------------------------------------------------------------


def fetch_positions(store: VectorStore, document: str, first: int, last: int) -> list[Document] | None:
    """The chunks of ``document`` at positions ``first..last`` (``chop_index``), in any order.

    Returns ``None`` for a store this module cannot query by metadata.
    """
    kind = store_kind(store)
    if kind == "memory":
        return [
            Document(page_content=entry["text"], metadata=entry["metadata"], id=entry["id"])
            for entry in list(store.store.values())  # type: ignore[attr-defined]
            if _at(entry["metadata"], document, first, last)
        ]
    if kind == "chroma":
        where = {"$and": [{DOCUMENT_KEY: document}, {INDEX_KEY: {"$gte": first}}, {INDEX_KEY: {"$lte": last}}]}
        found = store.get(where=where, include=["metadatas", "documents"])  # type: ignore[attr-defined]
        return [
            Document(page_content=text or "", metadata=metadata or {}, id=id_)
            for id_, text, metadata in zip(found["ids"], found["documents"], found["metadatas"], strict=True)
        ]
    if kind == "qdrant":
        from qdrant_client import models

        key = store.metadata_payload_key  # type: ignore[attr-defined]
        query_filter = models.Filter(
            must=[
                _qdrant_match(store, DOCUMENT_KEY, document),
                models.FieldCondition(key=f"{key}.{INDEX_KEY}", range=models.Range(gte=first, lte=last)),
            ]
        )
        return [
            Document(
                page_content=(point.payload or {}).get(store.content_payload_key, ""),  # type: ignore[attr-defined]
                metadata=dict((point.payload or {}).get(key) or {}),
                id=str(point.id),
            )
            for point in _scroll(store, query_filter, True)
        ]
    return None


def _at(metadata: Mapping[str, Any] | None, document: str, first: int, last: int) -> bool:
    if not metadata or metadata.get(DOCUMENT_KEY) != document:
        return False
    index = metadata.get(INDEX_KEY)
    return isinstance(index, int) and first <= index <= last


def _qdrant_match(store: Any, key: str, value: Any) -> Any:
    from qdrant_client import models

    return models.FieldCondition(key=f"{store.metadata_payload_key}.{key}", match=models.MatchValue(value=value))


def _chroma_where(conditions: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    clauses: list[Any] = [{key: value} for key, value in conditions.items()]
    if base:
        clauses = [*(base["$and"] if list(base) == ["$and"] else [dict(base)]), *clauses]
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
