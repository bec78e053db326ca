"""The named model's condition as the store's own filter, through LangChain's self-query translators.

A reading's conditions become ``Comparison(EQ, "chop_model", ...)`` (AND-ed with a filter of the caller's given as
a ``langchain_core.structured_query`` expression) and the store's translator (the one ``SelfQueryRetriever`` uses:
Chroma, Qdrant, Pinecone, PGVector, Milvus, Weaviate, Elasticsearch... some twenty stores) turns them into its native
filter. ``InMemoryVectorStore`` (no translator) gets a callable; a caller's filter in the store's own form is
combined by hand for Qdrant and Chroma (:mod:`._stores`); any other case is filtered on the client (:class:`Search`).
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, cast

from langchain_core.documents import Document
from langchain_core.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)
from langchain_core.vectorstores import VectorStore

from .._errors import ConfigurationError
from ._stores import matches, native_filter, store_kind

__all__ = ["Search", "holds", "plan_search", "translator_for"]

logger = logging.getLogger("chop_integrations")

Predicate = Callable[[Document], bool]


@dataclass(frozen=True)
class Search:
    """One search of a plan: arguments for the store, and a test its hits must pass on the client (or none).

    Attributes:
        store_kwargs: Added to the store's search call (``filter=`` in its own form, or what a translator returns).
        keep: The hits to keep, on the client; ``None`` when the store filtered everything itself.
    """

    store_kwargs: dict[str, Any] = field(default_factory=dict)
    keep: Predicate | None = None


def translator_for(store: VectorStore) -> Visitor | None:
    """LangChain's structured-query translator for ``store`` (``None`` when it has none or none is installed).

    The one ``SelfQueryRetriever`` picks for it, from ``langchain_community.query_constructors`` (which must be
    installed); the store is known by its class (:data:`_TRANSLATORS`).
    ``InMemoryVectorStore`` has none. Looked up once per retriever.
    """
    if store_kind(store) == "memory":
        return None
    with warnings.catch_warnings():  # the import is ours, not the caller's: its deprecation notices are not theirs
        warnings.simplefilter("ignore", DeprecationWarning)
        return _builtin_translator(store)


#: Store class name -> (module of ``langchain_community.query_constructors``, translator class): the stores
#: ``SelfQueryRetriever`` translates for (its ``_get_builtin_translator``, which cannot be called here: with
#: langchain-community 0.4 it fails on an import of a store that package no longer has).
_TRANSLATORS: dict[str, tuple[str, str]] = {
    "Chroma": ("chroma", "ChromaTranslator"),
    "Pinecone": ("pinecone", "PineconeTranslator"),
    "PineconeVectorStore": ("pinecone", "PineconeTranslator"),
    "Milvus": ("milvus", "MilvusTranslator"),
    "ElasticsearchStore": ("elasticsearch", "ElasticsearchTranslator"),
    "MongoDBAtlasVectorSearch": ("mongodb_atlas", "MongoDBAtlasTranslator"),
    "Weaviate": ("weaviate", "WeaviateTranslator"),
    "WeaviateVectorStore": ("weaviate", "WeaviateTranslator"),
    "Neo4jVector": ("neo4j", "Neo4jTranslator"),
    "OpenSearchVectorSearch": ("opensearch", "OpenSearchTranslator"),
    "PGVector": ("pgvector", "PGVectorTranslator"),
    "SupabaseVectorStore": ("supabase", "SupabaseVectorTranslator"),
    "TimescaleVector": ("timescalevector", "TimescaleVectorTranslator"),
    "AstraDB": ("astradb", "AstraDBTranslator"),
    "AstraDBVectorStore": ("astradb", "AstraDBTranslator"),
    "DeepLake": ("deeplake", "DeepLakeTranslator"),
    "DashVector": ("dashvector", "DashvectorTranslator"),
    "Dingo": ("dingo", "DingoDBTranslator"),
    "Vectara": ("vectara", "VectaraTranslator"),
    "HanaDB": ("hanavector", "HanaTranslator"),
    "DatabricksVectorSearch": ("databricks_vector_search", "DatabricksVectorSearchTranslator"),
}
#: Stores whose translator needs the name of the payload key that holds the metadata.
_KEYED = {"Qdrant": "metadata_payload_key", "QdrantVectorStore": "metadata_payload_key"}


def _builtin_translator(store: VectorStore) -> Visitor | None:
    """The translator of the first class of ``store``'s MRO (a LangChain package's) that has one."""
    for cls in type(store).__mro__:
        if not cls.__module__.startswith("langchain"):
            continue
        name = cls.__name__
        try:
            if name == "PGVector" and cls.__module__.startswith("langchain_postgres"):
                from langchain_postgres import PGVectorTranslator  # type: ignore[import-not-found]

                return cast(Visitor, PGVectorTranslator())
            if name in _KEYED:
                from langchain_community.query_constructors.qdrant import QdrantTranslator

                return QdrantTranslator(metadata_key=getattr(store, _KEYED[name]))
            if name in _TRANSLATORS:
                module, translator = _TRANSLATORS[name]
                found = import_module(f"langchain_community.query_constructors.{module}")
                return cast(Visitor, getattr(found, translator)())
        except (ImportError, AttributeError):  # langchain-community (or the store's package) missing
            return None
    return None


def model_directive(conditions: Mapping[str, Any], own: FilterDirective | None = None) -> FilterDirective:
    """``conditions`` as equality comparisons, AND-ed with ``own`` (a caller's structured filter) when given."""
    parts: list[FilterDirective] = [
        Comparison(comparator=Comparator("eq"), attribute=k, value=v) for k, v in conditions.items()
    ]
    if own is not None:
        parts.insert(0, own)
    return parts[0] if len(parts) == 1 else Operation(operator=Operator("and"), arguments=parts)


def translated(translator: Visitor, directive: FilterDirective) -> dict[str, Any]:
    """The search arguments ``translator`` makes of ``directive`` (``{"filter": ...}`` for most stores).

    Raises:
        ConfigurationError: When the store's translator refuses a comparator or operator of ``directive``.
    """
    try:
        _, kwargs = translator.visit_structured_query(StructuredQuery(query="", filter=directive, limit=None))
    except ValueError as err:
        raise ConfigurationError(f"the store's filter translator ({type(translator).__name__}) refused: {err}") from err
    return dict(kwargs)


def plan_search(store: VectorStore, translator: Visitor | None, conditions: Mapping[str, Any], own: Any) -> Search:
    """How to search ``store`` for hits meeting ``conditions`` (``{}``: none) and the caller's filter ``own``.

    ``own`` is ``None``, a ``langchain_core.structured_query`` expression (translated, or tested on the client where
    the store has no translator or its translator refuses the expression) or a filter in the store's own form (passed
    to the store as it is).

    Raises:
        ConfigurationError: A structured filter with an operator or comparator ``langchain_core`` does not have.
        InputError: A filter ``InMemoryVectorStore`` cannot run (not a callable).
    """
    structured = own if isinstance(own, FilterDirective) else None
    if not conditions and own is None:
        return Search()
    if store_kind(store) == "memory":
        mine: Any = (lambda doc: holds(structured, doc.metadata)) if structured is not None else own
        return Search({"filter": native_filter(store, conditions, mine)})
    if translator is not None and (own is None or structured is not None):
        directive = model_directive(conditions, structured) if conditions else structured
        assert directive is not None  # conditions or a structured filter: the empty case returned above
        try:
            return Search(translated(translator, directive))
        except ConfigurationError as err:  # a comparator the store cannot run: the client runs the whole filter
            logger.debug("%s; filtering on the client", err)
    if structured is None and conditions and store_kind(store) in ("qdrant", "chroma"):
        return Search({"filter": native_filter(store, conditions, own)})
    # the client decides what the store cannot: the conditions, and a structured filter without a translator
    store_kwargs = {} if own is None or structured is not None else {"filter": own}
    model = matches(conditions)
    if structured is None:
        return Search(store_kwargs, model if conditions else None)
    return Search(store_kwargs, lambda doc: model(doc) and holds(structured, doc.metadata))


def holds(directive: FilterDirective | None, metadata: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` meets a structured filter (every comparator and operator of ``langchain_core``).

    Raises:
        ConfigurationError: For an operator or comparator it does not know.
    """
    if directive is None:
        return True
    if isinstance(directive, Operation):
        results = (holds(argument, metadata) for argument in directive.arguments)
        if directive.operator is Operator.AND:
            return all(results)
        if directive.operator is Operator.OR:
            return any(results)
        if directive.operator is Operator.NOT:
            return not any(results)
        raise ConfigurationError(f"unknown operator {directive.operator!r}")
    if not isinstance(directive, Comparison):
        raise ConfigurationError(f"a structured filter must be a Comparison or an Operation, got {type(directive)}")
    return _compares(directive.comparator, metadata.get(directive.attribute), directive.value)


def _compares(comparator: Comparator, actual: Any, value: Any) -> bool:
    if comparator is Comparator.EQ:
        return bool(actual == value)
    if comparator is Comparator.NE:
        return bool(actual != value)
    if comparator is Comparator.IN:
        return actual in value
    if comparator is Comparator.NIN:
        return actual not in value
    if comparator is Comparator.CONTAIN:
        return actual is not None and value in actual
    if comparator is Comparator.LIKE:
        return isinstance(actual, str) and re.search(re.escape(str(value)), actual, re.IGNORECASE) is not None
    order = {Comparator.GT: "__gt__", Comparator.GTE: "__ge__", Comparator.LT: "__lt__", Comparator.LTE: "__le__"}
    if comparator in order:
        try:
            return actual is not None and bool(getattr(actual, order[comparator])(value) is True)
        except TypeError:
            return False
    raise ConfigurationError(f"unknown comparator {comparator!r}")
