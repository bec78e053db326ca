"""The signature values a LlamaIndex index holds, read back from its nodes' metadata.

Two ways to know which models a store holds, both from what ingestion emitted:

* save a :class:`~chop_integrations.SignatureCatalog` beside the store at ingestion
  (``SignatureCatalog.from_metadata(node.metadata for node in nodes)`` over the pipeline's output, then
  ``save(path)``); loading it costs nothing however large the store;
* or read the values back from the store itself with :func:`catalog_from_index`: the docstore's nodes (a
  ``VectorStoreIndex`` over the default ``SimpleVectorStore`` keeps them there), the ``SimpleVectorStore``'s
  own metadata, a Qdrant collection's payloads (paged, only the signature keys), or any vector store's
  ``get_nodes()``. This reads every node once: fine for thousands, slow for millions.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any

from llama_index.core.indices.base import BaseIndex
from llama_index.core.storage.docstore.types import BaseDocumentStore
from llama_index.core.vector_stores.simple import SimpleVectorStore

from .._errors import ConfigurationError, InputError
from .._query import QueryReader, SignatureCatalog
from .._query.catalog import ALIASES_KEY, CATEGORY_KEY, MODEL_KEY
from .._query.live import DEFAULT_REFRESH, LiveReader
from .._query.qdrant import scroll

__all__ = ["catalog_from_index", "resolve_reader", "store_mark"]

#: Points per page when a Qdrant collection's payloads are read.
QDRANT_PAGE = 512


def catalog_from_index(source: Any) -> SignatureCatalog:
    """The ``chop_model``/``chop_category`` values the nodes of ``source`` carry, counted.

    Args:
        source: A LlamaIndex index (its docstore when that holds nodes, else its vector store), a docstore,
            or a vector store (``SimpleVectorStore``, ``QdrantVectorStore``, or any store with ``get_nodes()``).

    Raises:
        InputError: When ``source`` is none of these, or its vector store cannot list its nodes (then save a
            catalog at ingestion instead).
    """
    return SignatureCatalog.from_metadata(_metadatas(source))


def resolve_reader(
    source: Any,
    reader: QueryReader | None,
    catalog: SignatureCatalog | None,
    *,
    refresh: float | None = DEFAULT_REFRESH,
) -> LiveReader:
    """The reader a component uses: ``reader``, else one over ``catalog``, else one over ``source``'s values.

    Only the values read back from ``source`` are read again, when ``source`` may have changed
    (:func:`store_mark`; ``refresh`` seconds for a source without one; ``None``: never). An empty catalog
    logs one warning.

    Raises:
        ConfigurationError: When both ``reader`` and ``catalog`` are given, neither and ``source`` is None,
            or ``refresh`` is negative.
        InputError: When ``source``'s values cannot be read (see :func:`catalog_from_index`).
    """
    if reader is not None and catalog is not None:
        raise ConfigurationError("pass reader= or catalog=, not both (a reader already holds its known values)")
    if refresh is not None and refresh < 0:
        raise ConfigurationError(f"catalog_refresh must be >= 0 seconds or None, got {refresh}")
    if reader is None and catalog is None and source is None:
        raise ConfigurationError("pass reader=, catalog= or an index to read the known values back from")
    return LiveReader.of(
        reader,
        catalog,
        lambda: catalog_from_index(source),
        mark=lambda: store_mark(source),
        every=refresh,
        where=f"the {type(source).__name__}",
    )


def store_mark(source: Any) -> Hashable | None:
    """A cheap value that changes when nodes are added to or removed from ``source`` (``None``: none cheap).

    An index: the number of nodes its index struct lists and its vector store's mark; a ``SimpleVectorStore``:
    its number of embeddings; a Qdrant collection: its exact point count. A docstore or another store has none.
    """
    if isinstance(source, BaseIndex):
        listed = getattr(source.index_struct, "nodes_dict", None)
        vector_store = getattr(source, "vector_store", None)
        parts = (len(listed) if isinstance(listed, dict) else None, store_mark(vector_store))
        return None if parts == (None, None) else parts
    if isinstance(source, SimpleVectorStore):
        return len(source.data.embedding_dict)
    if hasattr(source, "collection_name") and hasattr(source, "client"):
        client, collection = source.client, source.collection_name
        return int(client.count(collection, exact=True).count) if client.collection_exists(collection) else 0
    return None


def _metadatas(source: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(source, BaseIndex):
        docstore = source.docstore
        if docstore.docs:
            yield from _metadatas(docstore)
            return
        vector_store = getattr(source, "vector_store", None)
        if vector_store is None:
            return
        source = vector_store
    if isinstance(source, BaseDocumentStore):
        yield from (node.metadata for node in source.docs.values())
    elif isinstance(source, SimpleVectorStore):
        yield from (metadata for metadata in (source.data.metadata_dict or {}).values() if metadata)
    elif hasattr(source, "collection_name") and hasattr(source, "client"):
        yield from _qdrant_payloads(source)
    elif callable(getattr(source, "get_nodes", None)):
        try:
            nodes = source.get_nodes()
        except NotImplementedError as exc:
            raise InputError(
                f"{type(source).__name__} cannot list its nodes: save a SignatureCatalog beside it at ingestion"
            ) from exc
        yield from (node.metadata for node in nodes)
    else:
        raise InputError(f"cannot read signature values from a {type(source).__name__}")


def _qdrant_payloads(store: Any) -> Iterator[Mapping[str, Any]]:
    """The signature keys (model, category, aliases) of every point of a ``QdrantVectorStore``'s collection, paged."""
    client, collection = store.client, store.collection_name
    if not client.collection_exists(collection):
        return
    for point in scroll(client, collection, payload=[MODEL_KEY, CATEGORY_KEY, ALIASES_KEY], page=QDRANT_PAGE):
        yield point.payload or {}
