"""The benchmark harness: chunk the corpus with each strategy, index, retrieve, score.

For every strategy the whole corpus is chunked once; every retriever then
indexes all chunks of all documents together (so near-identical manuals compete
with each other, as they would in a real index) and answers every query with
its top 10 chunks, which :mod:`.metrics` scores.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from chop_integrations._errors import InputError
from chop_integrations._text.tokens import default_counter

from .baselines import PREFIX_KINDS, LlamaIndexDefault, Prefixed, timed_pieces
from .corpus import Corpus
from .metrics import CUTOFF, ChunkRef, ideal_grades, mean_scores, score_query
from .query_strategies import QueryStrategy, query_strategy_parts
from .retrievers import Embedder, build_retriever
from .splits import View, in_view
from .strategies import Piece, Strategy, StrategyUnavailable, build_strategy

logger = logging.getLogger("chop_integrations.eval")


@dataclass
class BenchConfig:
    """What to run (the command line's options, parsed)."""

    strategies: list[str]
    retrievers: list[str]
    out: Path
    cache_dir: Path
    llm: Any = None
    max_concurrency: int = 8
    threads: int = 1
    progress: bool = True
    splits: list[View] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Chunked:
    """One strategy's chunks of the whole corpus, flattened, with how long chunking took."""

    refs: list[ChunkRef]
    embed_texts: list[str]
    seconds: float
    from_cache: bool
    stats: dict[str, Any]
    cpu_seconds: float | None = None  # None when the chunks came from the on-disk cache


#: The metrics kept per query in ``results.json``: what the must-show checks compare, pairwise, with a
#: bootstrap confidence interval (:func:`~chop_bench.eval.mustshow.paired_difference`).
PAIRED_METRICS = ("doc@1", "span@1", "hit@1")


def check_pieces(doc_name: str, text: str, pieces: Sequence[Piece], strategy: str) -> None:
    """Fail loudly when a strategy's chunks lost their offsets.

    Each piece must have ``0 <= start < end <= len(text)`` and an embed text
    ending with ``text[start:end]`` (the stored text, after any prefix).

    Raises:
        InputError: Naming the strategy, document and first bad piece.
    """
    for number, (start, end, embed_text) in enumerate(pieces):
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
            raise InputError(f"{strategy}: chunk {number} of {doc_name} has invalid offsets {start}-{end}")
        if not embed_text.endswith(text[start:end]):
            raise InputError(
                f"{strategy}: chunk {number} of {doc_name} does not end with text[{start}:{end}]; offsets are wrong"
            )


def _chunk_cache_file(cache_dir: Path, cache_id: str, text: str) -> Path:
    digest = hashlib.sha256(f"{cache_id}\x00{text}".encode()).hexdigest()[:32]
    return cache_dir / "chunks" / f"{digest}.json"


def chunk_corpus(strategy: Strategy, docs: Sequence[tuple[str, str]], *, cache_dir: Path, progress: bool) -> Chunked:
    """Chunk every document, through the on-disk chunk cache where the strategy asks for one.

    A cached run reports the chunking time of the run that filled the cache. Within a run, a base
    strategy chunks each corpus once however many ``+name``/``+header`` variants use it
    (:func:`.baselines.timed_pieces`).
    """
    per_doc: list[list[Piece]] | None = None
    from_cache = False
    seconds, cpu_seconds = 0.0, None
    if strategy.cache_id is not None:
        files = [_chunk_cache_file(cache_dir, strategy.cache_id, text) for _, text in docs]
        if all(f.is_file() for f in files):
            loaded = [json.loads(f.read_text(encoding="utf-8")) for f in files]
            per_doc = [[(int(s), int(e), str(t)) for s, e, t in item["pieces"]] for item in loaded]
            seconds = sum(float(item["seconds"]) for item in loaded)
            from_cache = True
    if per_doc is None:
        per_doc, seconds, cpu_seconds = timed_pieces(strategy, docs, progress=progress)
        if strategy.cache_id is not None:
            total = sum(len(t) for _, t in docs) or 1
            for (_, text), pieces in zip(docs, per_doc, strict=True):
                target = _chunk_cache_file(cache_dir, strategy.cache_id, text)
                target.parent.mkdir(parents=True, exist_ok=True)
                share = seconds * len(text) / total
                target.write_text(json.dumps({"pieces": pieces, "seconds": share}), encoding="utf-8")
    refs: list[ChunkRef] = []
    texts: list[str] = []
    for (name, text), pieces in zip(docs, per_doc, strict=True):
        check_pieces(name, text, pieces, strategy.name)
        refs.extend(ChunkRef(name, s, e) for s, e, _ in pieces)
        texts.extend(t for _, _, t in pieces)
    return Chunked(refs, texts, seconds, from_cache, _stats(docs, per_doc), cpu_seconds)


def _stats(docs: Sequence[tuple[str, str]], per_doc: Sequence[Sequence[Piece]]) -> dict[str, Any]:
    count = default_counter()
    sizes: list[int] = []
    prefixes: list[int] = []
    for (_, text), pieces in zip(docs, per_doc, strict=True):
        for start, end, embed_text in pieces:
            sizes.append(count(text[start:end]))
            prefix = embed_text[: len(embed_text) - (end - start)]
            prefixes.append(count(prefix) if prefix else 0)
    n = len(sizes) or 1
    return {
        "chunks": len(sizes),
        "mean_tokens": round(sum(sizes) / n, 1),
        "max_tokens": max(sizes, default=0),
        "mean_prefix_tokens": round(sum(prefixes) / n, 1),
    }


def score_queries(chunked: Chunked, corpus: Corpus, ranked_ids: Sequence[Sequence[int]]) -> list[dict[str, float]]:
    """Every metric for every query of the corpus, for one strategy and retriever."""
    return score_ranked(chunked.refs, corpus, [[chunked.refs[i] for i in ids] for ids in ranked_ids])


def score_ranked(
    pool: Sequence[ChunkRef], corpus: Corpus, ranked: Sequence[Sequence[ChunkRef]]
) -> list[dict[str, float]]:
    """Every metric for every query, given the retrieved spans per query and the pool nDCG's ideal is drawn from."""
    by_doc: dict[str, list[ChunkRef]] = {}
    for ref in pool:
        by_doc.setdefault(ref.doc, []).append(ref)
    return [
        score_query(hits[:CUTOFF], query.gold, ideal_grades(by_doc.get(query.gold.doc, []), query.gold))
        for query, hits in zip(corpus.queries, ranked, strict=True)
    ]


def score_run(chunked: Chunked, corpus: Corpus, ranked_ids: Sequence[Sequence[int]]) -> dict[str, float]:
    """Mean metrics over the corpus's queries for one strategy and retriever."""
    return _mean(score_queries(chunked, corpus, ranked_ids))


def _mean(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    return {name: round(value, 4) for name, value in mean_scores(per_query).items()}


def per_query_values(per_query: Sequence[dict[str, float]]) -> dict[str, list[float]]:
    """The :data:`PAIRED_METRICS` of every query, in query order (for paired confidence intervals)."""
    return {m: [round(q[m], 4) for q in per_query] for m in PAIRED_METRICS if per_query and m in per_query[0]}


def split_scores(corpus: Corpus, per_query: Sequence[dict[str, float]], splits: Sequence[View]) -> dict[str, Any]:
    """Mean metrics per split (or question style) of :mod:`.splits`, with the number of queries in each."""
    out: dict[str, Any] = {}
    for split in splits:
        chosen = [scores for query, scores in zip(corpus.queries, per_query, strict=True) if in_view(query.qid, split)]
        out[split] = {"queries": len(chosen), "metrics": _mean(chosen), "per_query": per_query_values(chosen)}
    return out


def build_strategies(config: BenchConfig, corpus: Corpus, embedder: Embedder) -> tuple[list[Strategy], dict[str, str]]:
    """Build the requested strategies; those that cannot run here are skipped with the reason.

    ``<base>+name``, ``<base>+header`` and ``<base>+header-ours`` wrap the base strategy's object, one per
    base, so the base chunks each corpus once (:mod:`.baselines`); ``llamaindex`` is LlamaIndex's default.
    """
    built: list[Strategy] = []
    skipped: dict[str, str] = {}
    bases: dict[str, Strategy] = {}

    def base(name: str) -> Strategy:
        if name not in bases:
            bases[name] = build_strategy(
                name,
                embedder=embedder,
                sections=corpus.sections,
                llm=config.llm,
                max_concurrency=config.max_concurrency,
            )
        return bases[name]

    for name in config.strategies:
        try:
            head, _, kind = name.rpartition("+")
            query = query_strategy_parts(name)
            if name == "llamaindex":
                built.append(bases.setdefault(name, LlamaIndexDefault()))
            elif query is not None:
                built.append(QueryStrategy(base(query[0]), query[1]))
            elif head and kind in PREFIX_KINDS:
                built.append(Prefixed(base(head), kind))
            else:
                built.append(base(name))
        except StrategyUnavailable as reason:
            logger.warning("skipping strategy %s: %s", name, reason)
            skipped[name] = str(reason)
    return built, skipped


def make_embedder(config: BenchConfig) -> Embedder:
    """The run's dense model, with its embedding cache under ``<cache_dir>/embeddings``."""
    return Embedder(cache_dir=config.cache_dir / "embeddings", threads=config.threads, progress=config.progress)


def run_benchmark(
    config: BenchConfig, corpus: Corpus, strategies: Sequence[Strategy], embedder: Embedder
) -> dict[str, Any]:
    """Run every strategy x retriever on ``corpus`` and return the results (as ``results.json`` holds them).

    Args:
        config: The run's options.
        corpus: Documents and queries.
        strategies: Built strategies (see :func:`build_strategies`).
        embedder: The dense model shared by the dense retriever and the semantic chunkers.
    """
    began = time.perf_counter()
    skipped: dict[str, str] = {}
    queries = [q.text for q in corpus.queries]
    runs: list[dict[str, Any]] = []
    for strategy in strategies:
        try:
            chunked = chunk_corpus(strategy, corpus.docs, cache_dir=config.cache_dir, progress=config.progress)
        except StrategyUnavailable as reason:
            logger.warning("skipping strategy %s: %s", strategy.name, reason)
            skipped[strategy.name] = str(reason)
            continue
        for retriever_name in config.retrievers:
            retriever = build_retriever(retriever_name, embedder=embedder)
            t0 = time.perf_counter()
            retriever.index(chunked.embed_texts, desc=f"{strategy.name}: embed chunks")
            ranked = strategy.rank(retriever, queries, chunked.refs)
            per_query = score_ranked(strategy.pool(chunked.refs), corpus, ranked)
            runs.append(
                {
                    "strategy": strategy.name,
                    "retriever": retriever_name,
                    "reference": strategy.reference,
                    "description": strategy.description,
                    "metrics": _mean(per_query),
                    "per_query": per_query_values(per_query),
                    **({"splits": split_scores(corpus, per_query, config.splits)} if config.splits else {}),
                    **chunked.stats,
                    "chunk_seconds": round(chunked.seconds, 2),
                    "chunk_cpu_seconds": None if chunked.cpu_seconds is None else round(chunked.cpu_seconds, 2),
                    "chunks_from_cache": chunked.from_cache,
                    "index_search_seconds": round(time.perf_counter() - t0, 2),
                    "usage": None if strategy.usage is None else usage_dict(strategy.usage),
                    **({"readings": dict(strategy.readings)} if isinstance(strategy, QueryStrategy) else {}),
                }
            )
            logger.info("%s / %s: %s", strategy.name, retriever_name, runs[-1]["metrics"])
    return {
        "corpus": {"documents": len(corpus.docs), "queries": len(corpus.queries), "characters": corpus.characters},
        "config": {
            "strategies": config.strategies,
            "retrievers": config.retrievers,
            "dense_model": embedder.model_id,
            "torch_threads": config.threads,
            "llm": None if config.llm is None else getattr(config.llm, "model_id", str(config.llm)),
            **config.extra,
        },
        "runs": runs,
        "skipped": skipped,
        "embedded_texts": embedder.embedded,
        "seconds": round(time.perf_counter() - began, 1),
    }


def usage_dict(usage: Any) -> dict[str, Any]:
    """A usage report's counters as a dict (read field by field: ``asdict`` would deep-copy its lock)."""
    data = {f.name: getattr(usage, f.name) for f in fields(usage) if not f.name.startswith("_")}
    data["amplification"] = round(usage.amplification, 4)
    return data
