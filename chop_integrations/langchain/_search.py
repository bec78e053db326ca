"""One search of ``CHOPRetriever``'s plan, run as ``VectorStoreRetriever`` would run it, scores kept.

``search_type`` and ``search_kwargs`` mean what they mean to LangChain's ``VectorStoreRetriever``:
``"similarity"`` (``k``), ``"similarity_score_threshold"`` (``score_threshold``, a relevance score in [0, 1]) and
``"mmr"`` (``fetch_k`` candidates, ``lambda_mult``). A hit's relevance score goes into ``metadata["score"]`` (the
key LangChain's own guide to scores uses); MMR gives none. Hits a store cannot filter are filtered on the client,
searching deeper until ``k`` are kept (:class:`~chop_integrations._query.fetching.Deepening`); MMR then runs on
the ``fetch_k`` kept candidates, embedded again with the store's embeddings (a store hands out no vectors), so an
MMR search filtered on the client costs one embedding call of ``fetch_k`` texts.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from langchain_core.documents import Document
from langchain_core.vectorstores import VectorStore

from .._errors import ConfigurationError, InputError
from .._query.fetching import Deepening
from ._filters import Search
from ._stores import store_kind

__all__ = ["SCORE_KEY", "SEARCH_TYPES", "Options", "asearch", "options_of", "search"]

#: Metadata key of a hit's relevance score (``similarity_search_with_relevance_scores``: higher is nearer).
SCORE_KEY = "score"
SEARCH_TYPES = ("similarity", "similarity_score_threshold", "mmr")
#: ``lambda_mult``'s default, as LangChain's.
LAMBDA_MULT = 0.5
_Scored = tuple[Document, float | None]


@dataclass(frozen=True)
class Options:
    """One call's search options, checked: ``search_kwargs`` and ``invoke``'s keywords merged."""

    search_type: str
    k: int
    fetch_k: int
    lambda_mult: float = LAMBDA_MULT
    score_threshold: float | None = None
    filter: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def options_of(search_type: str, defaults: Mapping[str, Any], given: Mapping[str, Any]) -> Options:
    """``given`` merged over ``defaults`` (``k``, ``fetch_k``, ``search_kwargs``) and checked.

    ``verbose`` (``invoke``'s callback option) is dropped; keys other than ``k``, ``fetch_k``, ``lambda_mult``,
    ``score_threshold`` and ``filter`` go to the store's search as they are.

    Raises:
        InputError: ``k`` or ``fetch_k`` not a positive integer.
        ConfigurationError: An unknown ``search_type``; ``similarity_score_threshold`` without a ``score_threshold``;
            a ``score_threshold`` or ``lambda_mult`` that is not a number in [0, 1], or given where the search type
            cannot honour it (``score_threshold`` with ``mmr``, ``lambda_mult`` without it).
    """
    if search_type not in SEARCH_TYPES:
        raise ConfigurationError(f"search_type must be one of {', '.join(SEARCH_TYPES)}, got {search_type!r}")
    merged = {**defaults, **given}
    merged.pop("verbose", None)
    k, fetch_k = merged.pop("k"), merged.pop("fetch_k")
    for name, value in (("k", k), ("fetch_k", fetch_k)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value!r}")
    threshold, mult = merged.pop("score_threshold", None), merged.pop("lambda_mult", None)
    for name, value in (("score_threshold", threshold), ("lambda_mult", mult)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, Real) or not 0 <= float(value) <= 1):
            raise ConfigurationError(f"{name} must be a number in [0, 1], got {value!r}")
    if search_type == "similarity_score_threshold" and threshold is None:
        raise ConfigurationError("search_type='similarity_score_threshold' needs a score_threshold in search_kwargs")
    if search_type == "mmr" and threshold is not None:
        raise ConfigurationError("score_threshold does not apply to search_type='mmr' (MMR gives no scores)")
    if search_type != "mmr" and mult is not None:
        raise ConfigurationError(f"lambda_mult applies to search_type='mmr' only, not {search_type!r}")
    lambda_mult = LAMBDA_MULT if mult is None else float(mult)
    score = None if threshold is None else float(threshold)
    own = merged.pop("filter", None)
    return Options(search_type, k, fetch_k, lambda_mult, score, own, merged)


def search(store: VectorStore, query: str, options: Options, plan: Search, k: int) -> list[Document]:
    """The ``k`` hits of one search (fewer only when the store holds fewer that meet the filters)."""
    kwargs = {**options.extra, **plan.store_kwargs}
    if options.search_type == "mmr" and plan.keep is None:
        fetch_k = max(options.fetch_k, k)
        found = store.max_marginal_relevance_search(
            query, k=k, fetch_k=fetch_k, lambda_mult=options.lambda_mult, **kwargs
        )
        return list(found)
    if options.search_type == "mmr":
        pool = _deep(
            lambda depth: [(d, None) for d in store.similarity_search(query, k=depth, **kwargs)],
            plan,
            max(options.fetch_k, k),
            options.fetch_k,
        )
        embeddings = _embeddings(store)
        vectors = embeddings.embed_documents([d.page_content for d, _ in pool]) if pool else []
        return _mmr(embeddings.embed_query(query), vectors, pool, k, options.lambda_mult)
    scored = _Scores(store, options)
    hits = _deep(lambda depth: scored.run(query, depth, kwargs), plan, k, options.fetch_k)
    return [_with_score(d, s) for d, s in hits]


async def asearch(store: VectorStore, query: str, options: Options, plan: Search, k: int) -> list[Document]:
    """:func:`search`, through the store's async methods."""
    kwargs = {**options.extra, **plan.store_kwargs}
    if options.search_type == "mmr" and plan.keep is None:
        fetch_k = max(options.fetch_k, k)
        found = await store.amax_marginal_relevance_search(
            query, k=k, fetch_k=fetch_k, lambda_mult=options.lambda_mult, **kwargs
        )
        return list(found)
    if options.search_type == "mmr":

        async def candidates(depth: int) -> list[_Scored]:
            return [(d, None) for d in await store.asimilarity_search(query, k=depth, **kwargs)]

        pool = await _adeep(candidates, plan, max(options.fetch_k, k), options.fetch_k)
        embeddings = _embeddings(store)
        vectors = await embeddings.aembed_documents([d.page_content for d, _ in pool]) if pool else []
        return _mmr(await embeddings.aembed_query(query), vectors, pool, k, options.lambda_mult)
    scored = _Scores(store, options)
    hits = await _adeep(lambda depth: scored.arun(query, depth, kwargs), plan, k, options.fetch_k)
    return [_with_score(d, s) for d, s in hits]


class _Scores:
    """Similarity search with relevance scores; plain similarity search where the store gives none.

    Without a threshold the store's ``_similarity_search_with_relevance_scores`` is asked, the public method's
    body less its warning about scores outside [0, 1] (a plain search must not warn where LangChain's does not);
    with one, the public method, as ``VectorStoreRetriever`` asks it. ``InMemoryVectorStore`` has no relevance
    function: its own score, the cosine similarity, is taken.
    """

    def __init__(self, store: VectorStore, options: Options) -> None:
        self.store, self.threshold = store, options.score_threshold
        self.memory = store_kind(store) == "memory"

    def _above(self, found: list[tuple[Document, float]]) -> list[_Scored]:
        """``InMemoryVectorStore``'s hits (its score is the cosine similarity: no relevance function), thresholded."""
        return [(d, s) for d, s in found if self.threshold is None or s >= self.threshold]

    def run(self, query: str, depth: int, kwargs: dict[str, Any]) -> list[_Scored]:
        store = self.store
        if self.memory:
            return self._above(store.similarity_search_with_score(query, k=depth, **kwargs))
        try:
            if self.threshold is None:
                return list(store._similarity_search_with_relevance_scores(query, k=depth, **kwargs))
            found = store.similarity_search_with_relevance_scores(
                query, k=depth, score_threshold=self.threshold, **kwargs
            )
            return list(found)
        except NotImplementedError:
            self._unscored()
            return [(d, None) for d in self.store.similarity_search(query, k=depth, **kwargs)]

    async def arun(self, query: str, depth: int, kwargs: dict[str, Any]) -> list[_Scored]:
        store = self.store
        if self.memory:
            return self._above(await store.asimilarity_search_with_score(query, k=depth, **kwargs))
        try:
            if self.threshold is None:
                return list(await store._asimilarity_search_with_relevance_scores(query, k=depth, **kwargs))
            found = await store.asimilarity_search_with_relevance_scores(
                query, k=depth, score_threshold=self.threshold, **kwargs
            )
            return list(found)
        except NotImplementedError:
            self._unscored()
            return [(d, None) for d in await self.store.asimilarity_search(query, k=depth, **kwargs)]

    def _unscored(self) -> None:
        if self.threshold is not None:
            raise ConfigurationError(
                f"{type(self.store).__name__} gives no relevance scores: score_threshold cannot be honoured"
            )


def _deepening(plan: Search, k: int, fetch_k: int) -> Deepening[_Scored] | None:
    keep = plan.keep
    return None if keep is None else Deepening(k, fetch_k, lambda hit: keep(hit[0]))


def _deep(run: Callable[[int], list[_Scored]], plan: Search, k: int, fetch_k: int) -> list[_Scored]:
    """``run(k)``'s hits when the store filtered them; else searched deeper until ``k`` are kept."""
    deepening = _deepening(plan, k, fetch_k)
    if deepening is None:
        return list(run(k))
    while (kept := deepening.take(run(deepening.depth))) is None:
        pass
    return kept


async def _adeep(run: Callable[[int], Awaitable[list[_Scored]]], plan: Search, k: int, fetch_k: int) -> list[_Scored]:
    """Async :func:`_deep`."""
    deepening = _deepening(plan, k, fetch_k)
    if deepening is None:
        return list(await run(k))
    while (kept := deepening.take(await run(deepening.depth))) is None:
        pass
    return kept


def _embeddings(store: VectorStore) -> Any:
    if store.embeddings is None:
        raise ConfigurationError(
            f"search_type='mmr' filtered on the client needs the embeddings of the {type(store).__name__} "
            "(its .embeddings is None)"
        )
    return store.embeddings


def _mmr(
    query: Sequence[float], vectors: Sequence[Sequence[float]], pool: list[_Scored], k: int, mult: float
) -> list[Document]:
    """LangChain's maximal marginal relevance over the kept candidates."""
    if not pool:
        return []
    import numpy as np
    from langchain_core.vectorstores.utils import maximal_marginal_relevance

    chosen = maximal_marginal_relevance(
        np.array(query), [list(v) for v in vectors], lambda_mult=mult, k=min(k, len(pool))
    )
    return [pool[i][0] for i in chosen]


def _with_score(document: Document, score: float | None) -> Document:
    """A copy of ``document`` with its relevance score in its metadata (as it is when there is none)."""
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return document
    return Document(
        page_content=document.page_content, metadata={**document.metadata, SCORE_KEY: float(score)}, id=document.id
    )
