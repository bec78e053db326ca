"""LangChain's BM25 through ``CHOPDocumentCompressor`` against the bench's ``chop+query`` BM25 row, held-out manuals.

Both rank the very chunks of the benchmark's ``chop`` strategy (one offline CHOP pass over the 30 manuals; the
prefix and text each chunk is indexed by). The bench row: its own BM25 (``bm25s``) ranks every chunk and
``chop+query`` keeps the named model's (:class:`~chop_bench.eval.query_strategies.QueryStrategy`). Ours:
``ContextualCompressionRetriever(base_compressor=CHOPDocumentCompressor(documents=chunks, top_n=10),
base_retriever=BM25Retriever.from_documents(chunks, k=<all>))``, LangChain's BM25 (``rank_bm25``, words
lower-cased), the catalog read from the chunks' metadata. doc@1 and span@1 are the bench's own metrics over the
held-out questions. Offline, no embedding model; about a minute on one core.

    python scripts/bm25_compressor_check.py --corpus ../shared/data
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def measure(corpus_dir: Path) -> dict[str, float]:
    """doc@1 and span@1 of the bench's ``chop+query`` BM25 row and of LangChain's BM25 through the compressor."""
    from langchain_classic.retrievers import ContextualCompressionRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.documents import Document

    from chop_bench.eval.bench import chunk_corpus, score_ranked
    from chop_bench.eval.corpus import load_corpus
    from chop_bench.eval.metrics import ChunkRef
    from chop_bench.eval.query_strategies import QueryStrategy
    from chop_bench.eval.retrievers import build_retriever
    from chop_bench.eval.splits import in_view
    from chop_bench.eval.strategies import build_strategy, corpus_key
    from chop_integrations.langchain import CHOPDocumentCompressor

    corpus = load_corpus(corpus_dir, corpus_dir / "queries-dev.jsonl")
    base = build_strategy("chop", embedder=None)  # type: ignore[arg-type]
    query = QueryStrategy(base, "filter")
    cache = Path("/nonexistent-chunk-cache")  # chop's chunks are never cached: the engine's signatures are needed
    chunked = chunk_corpus(query, corpus.docs, cache_dir=cache, progress=False)
    questions = [q.text for q in corpus.queries]
    held = [in_view(q.qid, "heldout") for q in corpus.queries]

    bm25s = build_retriever("bm25", embedder=None)
    bm25s.index(chunked.embed_texts)
    bench = score_ranked(query.pool(chunked.refs), corpus, query.rank(bm25s, questions, chunked.refs))

    models = [c.cnm.model if c.cnm is not None else "" for doc in base.chunks[corpus_key(corpus.docs)] for c in doc]
    chunks = [
        Document(text, metadata={"chop_model": model, "ref": number})
        for number, (text, model) in enumerate(zip(chunked.embed_texts, models, strict=True))
    ]
    compressor = CHOPDocumentCompressor(documents=chunks, top_n=10)
    bm25 = BM25Retriever.from_documents(chunks, k=len(chunks), preprocess_func=_words)
    retriever = ContextualCompressionRetriever(base_compressor=compressor, base_retriever=bm25)
    ranked: list[list[ChunkRef]] = []
    plain: list[list[ChunkRef]] = []
    for question, wanted in zip(questions, held, strict=True):
        if not wanted:
            ranked.append([])
            plain.append([])
            continue
        hits = retriever.invoke(question)
        ranked.append([chunked.refs[d.metadata["ref"]] for d in hits])
        plain.append([chunked.refs[d.metadata["ref"]] for d in bm25.invoke(question)[:10]])
    ours = score_ranked(chunked.refs, corpus, ranked)
    alone = score_ranked(chunked.refs, corpus, plain)

    def mean(rows: list[dict[str, Any]], metric: str) -> float:
        chosen = [row[metric] for row, wanted in zip(rows, held, strict=True) if wanted]
        return sum(chosen) / len(chosen)

    return {
        "questions": float(sum(held)),
        "bench chop+query doc@1": mean(bench, "doc@1"),
        "compressor doc@1": mean(ours, "doc@1"),
        "bench chop+query span@1": mean(bench, "span@1"),
        "compressor span@1": mean(ours, "span@1"),
        "langchain bm25 alone doc@1": mean(alone, "doc@1"),
    }


def main(argv: list[str] | None = None) -> int:
    """Print both rows' figures; exit 1 when the compressor's doc@1 is more than 0.005 from the bench's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data"))
    figures = measure(parser.parse_args(argv).corpus)
    for name, value in figures.items():
        print(f"{name:32} {value:.3f}" if name != "questions" else f"{name:32} {int(value)}")
    gap = abs(figures["compressor doc@1"] - figures["bench chop+query doc@1"])
    print(f"{'doc@1 gap':32} {gap:.3f} ({'within' if gap <= 0.005 else 'NOT within'} 0.005)")
    return 0 if gap <= 0.005 else 1


if __name__ == "__main__":
    sys.exit(main())
