"""One contract for ``CHOPRetriever`` over four stores, every ``search_type`` and the ``search_kwargs`` that shape it.

The stores: ``InMemoryVectorStore`` (a callable filter), Chroma (an ephemeral client; LangChain's Chroma
translator), Qdrant's in-memory mode (LangChain's Qdrant translator) and FAISS (no translator: filtered on the
client, searching deeper). They hold the three Frostvale demo manuals, 18 chunks per model, embedded by a
deterministic offline hashing embedder (unit vectors, so relevance scores lie in [0, 1]). For each store and
search type: ``k`` is honoured; the caller's filter and the named model's hold together; never fewer than ``k``
when the store holds ``k`` (also from a ``fetch_k`` of 1, which makes the client-side search go deeper); the
similarity types return what the store's own unfiltered ranking says, filtered, with its scores; sync equals async.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.structured_query import Comparator, Comparison, Operation, Operator
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from chop_integrations import SignatureCatalog
from chop_integrations._demo import load_samples
from chop_integrations._errors import ConfigurationError
from chop_integrations.langchain import CHOPDocumentTransformer, CHOPRetriever, LumberChunkerTextSplitter
from tests.support.hashing_embeddings import HashingEmbeddings

pytest.importorskip("faiss")

MODELS = ("Frostvale FV-225B", "Frostvale FV-310B", "Frostvale FV-410X")
NAMED = MODELS[1]
QUESTION = f"How do I clean the air filter of the {NAMED}?"
PLAIN = "How do I clean the air filter?"
PER_MODEL = 18
STORES = ("memory", "chroma", "qdrant", "faiss")
SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold")
#: A caller's own filter, for every store: the model's chunks from the fourth on (14 of the 18).
OWN = Comparison(comparator=Comparator.GTE, attribute="chop_index", value=4)
#: The manuals' signatures (filled by ``signed``).
CATALOG = SignatureCatalog()


@pytest.fixture(scope="module")
def signed() -> list[Document]:
    docs = [Document(s.text, metadata=s.metadata) for s in load_samples()]
    chunks = LumberChunkerTextSplitter(max_tokens=50, add_start_index=True).split_documents(docs)
    out = list(CHOPDocumentTransformer().transform_documents(chunks))
    assert [sum(d.metadata["chop_model"] == m for d in out) for m in MODELS] == [PER_MODEL] * 3
    for doc in out:
        CATALOG.add(doc.metadata)
    return out


def _chop(store: VectorStore, **fields: Any) -> CHOPRetriever:
    """A retriever over ``store`` with the manuals' catalog (FAISS cannot be read back)."""
    return CHOPRetriever(vectorstore=store, catalog=CATALOG, **fields)


def _open(kind: str, docs: list[Document]) -> Iterator[VectorStore]:
    if kind == "memory":
        memory = InMemoryVectorStore(HashingEmbeddings(128))
        memory.add_documents(docs)
        yield memory
    elif kind == "chroma":
        import chromadb
        from langchain_chroma import Chroma

        client = chromadb.EphemeralClient(settings=chromadb.Settings(anonymized_telemetry=False))
        name = f"contract-{uuid.uuid4().hex[:8]}"
        chroma = Chroma(name, HashingEmbeddings(128), client=client, collection_metadata={"hnsw:space": "cosine"})
        chroma.add_documents(docs)
        yield chroma
        client.delete_collection(name)
    elif kind == "qdrant":
        from langchain_qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient, models

        qdrant_client = QdrantClient(location=":memory:")
        qdrant_client.create_collection(
            "contract", vectors_config=models.VectorParams(size=128, distance=models.Distance.COSINE)
        )
        qdrant = QdrantVectorStore(qdrant_client, "contract", HashingEmbeddings(128))
        qdrant.add_documents(docs)
        yield qdrant
        qdrant_client.close()
    else:
        from langchain_community.vectorstores import FAISS
        from langchain_community.vectorstores.utils import DistanceStrategy

        yield FAISS.from_documents(docs, HashingEmbeddings(128), distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT)


@pytest.fixture(scope="module", params=STORES)
def store(request: pytest.FixtureRequest, signed: list[Document]) -> Iterator[VectorStore]:
    yield from _open(request.param, signed)


def _kwargs(search_type: str, **more: Any) -> dict[str, Any]:
    """``search_kwargs`` for ``search_type``: a threshold of 0 keeps every hit (all scores are >= 0 here)."""
    return {"score_threshold": 0.0, **more} if search_type == "similarity_score_threshold" else dict(more)


async def _both(retriever: CHOPRetriever, question: str, **kwargs: Any) -> list[Document]:
    """``invoke``'s documents, checked equal to ``ainvoke``'s (hits of one score in any order: stores break ties
    their own way, Qdrant's local mode differently sync and async)."""
    found = retriever.invoke(question, **kwargs)
    again = await retriever.ainvoke(question, **kwargs)
    if retriever.search_type == "mmr":  # no scores: that float noise may reorder MMR's late picks
        assert _ranked(again)[:10] == _ranked(found)[:10] and sorted(_ranked(again)) == sorted(_ranked(found))
    else:
        assert _ranked(again) == _ranked(found)
    return found


def _ranked(docs: list[Document]) -> list[tuple[float | None, list[str]]]:
    """Documents grouped by score, in order, each group's contents sorted."""
    groups: list[tuple[float | None, list[str]]] = []
    for doc in docs:
        score = doc.metadata.get("score")
        key = None if score is None else round(score, 6)  # Qdrant's local mode: float noise between sync and async
        text = repr(sorted((k, str(v)) for k, v in doc.metadata.items() if k != "score")) + doc.page_content
        if groups and key is not None and groups[-1][0] == key:
            groups[-1][1].append(text)
            groups[-1][1].sort()
        else:
            groups.append((key, [text]))
    return groups


def _reference(store: VectorStore, question: str, keep: Any, k: int) -> list[tuple[int, float]]:
    """The store's own ranking of every chunk, with its relevance scores, kept on the client: what must come back."""
    if isinstance(store, InMemoryVectorStore):  # no relevance function: its score is the cosine similarity
        ranked = store.similarity_search_with_score(question, k=3 * PER_MODEL)
    else:
        ranked = store.similarity_search_with_relevance_scores(question, k=3 * PER_MODEL)
    return [(d.metadata["chop_index"], s) for d, s in ranked if keep(d)][:k]


@pytest.mark.parametrize("search_type", SEARCH_TYPES)
@pytest.mark.parametrize("k", [1, 4, PER_MODEL, PER_MODEL + 3])
async def test_k_the_named_model_and_never_fewer(store: VectorStore, search_type: str, k: int) -> None:
    for fetch_k in (1, 50):
        retriever = _chop(store, search_type=search_type, search_kwargs=_kwargs(search_type, k=k))
        found = await _both(retriever, QUESTION, fetch_k=fetch_k)
        assert len(found) == min(k, PER_MODEL)
        assert {d.metadata["chop_model"] for d in found} == {NAMED}
        assert len({d.metadata["chop_index"] for d in found}) == len(found)
        boosted = await _both(
            _chop(
                store,
                search_type=search_type,
                mode="boost",
                k=k,
                fetch_k=fetch_k,
                search_kwargs=_kwargs(search_type),
            ),
            QUESTION,
        )
        assert len(boosted) == k
        assert [d.metadata["chop_model"] for d in boosted[: min(k, PER_MODEL)]] == [NAMED] * min(k, PER_MODEL)
        plain = await _both(retriever, PLAIN, fetch_k=fetch_k)
        assert len(plain) == k


@pytest.mark.parametrize("search_type", SEARCH_TYPES)
@pytest.mark.parametrize("own", ["comparison", "operation"])
async def test_the_callers_filter_and_the_model_filter_hold_together(
    store: VectorStore, search_type: str, own: str
) -> None:
    mine: Any = OWN
    if own == "operation":  # chunks 4..30 of any model: the same 14 of the named one
        upper = Comparison(comparator=Comparator.LTE, attribute="chop_index", value=30)
        mine = Operation(operator=Operator.AND, arguments=[OWN, upper])
    retriever = _chop(store, search_type=search_type, search_kwargs=_kwargs(search_type, k=20))
    for where in ("search_kwargs", "invoke"):
        if where == "search_kwargs":
            found = await _both(
                _chop(
                    store,
                    search_type=search_type,
                    fetch_k=1,
                    search_kwargs=_kwargs(search_type, k=20, filter=mine),
                ),
                QUESTION,
            )
        else:
            found = await _both(retriever, QUESTION, filter=mine, fetch_k=1)
        assert sorted(d.metadata["chop_index"] for d in found) == list(range(4, PER_MODEL))
        assert {d.metadata["chop_model"] for d in found} == {NAMED}
    few = await _both(retriever, QUESTION, filter=mine, k=3)
    assert len(few) == 3 and all(d.metadata["chop_index"] >= 4 for d in few)
    plain = await _both(retriever, PLAIN, filter=mine, k=3 * PER_MODEL)
    assert len(plain) == 3 * (PER_MODEL - 4)


@pytest.mark.parametrize("search_type", SEARCH_TYPES)
async def test_a_filter_the_stores_translator_refuses_runs_on_the_client(store: VectorStore, search_type: str) -> None:
    not_first = Comparison(comparator=Comparator.NE, attribute="chop_index", value=0)  # Qdrant's translator has no ne
    retriever = _chop(store, search_type=search_type, fetch_k=1, search_kwargs=_kwargs(search_type, k=PER_MODEL))
    found = await _both(retriever, QUESTION, filter=not_first)
    assert sorted(d.metadata["chop_index"] for d in found) == list(range(1, PER_MODEL))
    assert {d.metadata["chop_model"] for d in found} == {NAMED}


@pytest.mark.parametrize("search_type", ["similarity", "similarity_score_threshold"])
async def test_similarity_is_the_stores_own_ranking_filtered_with_its_scores(
    store: VectorStore, search_type: str
) -> None:
    retriever = _chop(store, search_type=search_type, search_kwargs=_kwargs(search_type, k=6))
    found = await _both(retriever, QUESTION, fetch_k=2)
    expected = _reference(store, QUESTION, lambda d: d.metadata["chop_model"] == NAMED, 6)
    assert [d.metadata["chop_index"] for d in found] == [i for i, _ in expected]
    assert [d.metadata["score"] for d in found] == pytest.approx([s for _, s in expected], abs=1e-6)
    assert all(0.0 <= d.metadata["score"] <= 1.0 for d in found)


async def test_a_score_threshold_keeps_only_hits_above_it(store: VectorStore) -> None:
    scores = [s for _, s in _reference(store, QUESTION, lambda d: d.metadata["chop_model"] == NAMED, PER_MODEL)]
    threshold = round(scores[4], 6)  # five of the model's chunks score at least this
    retriever = _chop(
        store,
        search_type="similarity_score_threshold",
        search_kwargs={"score_threshold": threshold, "k": 10},
    )
    found = await _both(retriever, QUESTION)
    assert len(found) == min(10, sum(s >= threshold for s in scores))
    assert all(d.metadata["score"] >= threshold and d.metadata["chop_model"] == NAMED for d in found)


async def test_mmr_differs_from_similarity_and_gives_no_scores(store: VectorStore) -> None:
    similar = await _both(_chop(store, k=5), QUESTION)
    diverse = await _both(
        _chop(store, search_type="mmr", search_kwargs={"k": 5, "lambda_mult": 0.0, "fetch_k": 18}),
        QUESTION,
    )
    assert {d.metadata["chop_model"] for d in diverse} == {NAMED}
    assert "score" not in diverse[0].metadata and "score" in similar[0].metadata
    assert similar[0].metadata["chop_index"] == diverse[0].metadata["chop_index"]  # MMR starts at the nearest
    own_similar = [d.id for d in store.similarity_search(QUESTION, k=5)]
    own_diverse = [d.id for d in store.max_marginal_relevance_search(QUESTION, k=5, fetch_k=54, lambda_mult=0.0)]
    if own_diverse != own_similar:  # Qdrant's local mode is no MMR: the same list (lambda_mult reaches it all the same)
        assert [d.metadata["chop_index"] for d in diverse] != [d.metadata["chop_index"] for d in similar]


@pytest.mark.parametrize("search_type", SEARCH_TYPES)
async def test_built_from_the_stores_retriever(store: VectorStore, search_type: str) -> None:
    base = store.as_retriever(search_type=search_type, search_kwargs=_kwargs(search_type, k=2), tags=["mine"])
    for retriever in (
        CHOPRetriever.from_retriever(base, catalog=CATALOG),
        CHOPRetriever(retriever=base, mode="boost", catalog=CATALOG),
    ):
        assert retriever.search_type == search_type and retriever.vectorstore is store and retriever.tags == ["mine"]
        found = await _both(retriever, QUESTION)
        assert [d.metadata["chop_model"] for d in found] == [NAMED, NAMED]


def test_options_it_cannot_honour_are_refused(store: VectorStore) -> None:
    with pytest.raises(ConfigurationError, match="search_type"):
        _chop(store, search_type="hybrid")
    with pytest.raises(ConfigurationError, match="score_threshold"):
        _chop(store, search_type="similarity_score_threshold")
    with pytest.raises(ConfigurationError, match="mmr"):
        _chop(store, search_type="mmr", search_kwargs={"score_threshold": 0.5})
    with pytest.raises(ConfigurationError, match="lambda_mult"):
        _chop(store).invoke(QUESTION, lambda_mult=0.3)
    with pytest.raises(ConfigurationError, match=r"\[0, 1\]"):
        _chop(store, search_type="mmr", search_kwargs={"lambda_mult": 2})
    with pytest.raises(ConfigurationError, match="VectorStoreRetriever"):
        CHOPRetriever(retriever=_chop(store))
    with pytest.raises(ConfigurationError, match="not both"):
        CHOPRetriever(retriever=store.as_retriever(), vectorstore=store)
