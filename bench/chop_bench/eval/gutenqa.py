"""The GutenQA smoke set: one book, questions, and a hit when a retrieved chunk contains the answer text.

The file (LumberChunker's published "Emma" sample) is a JSON object with
``title``, ``paragraphs`` (``{"chapter", "text"}``) and ``questions``
(``{"question", "answer", "must_contain"}``). The book is the paragraphs joined
by blank lines. Containment is judged on normalised text (NFKC, straight
quotes, one space for any whitespace), because the answer strings were copied
with quotes and line breaks that differ from the book's; questions whose answer
text is not in the book even then are reported and can never hit.
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chop_integrations._errors import InputError

from .bench import BenchConfig, chunk_corpus, per_query_values
from .metrics import CUTOFF, ChunkRef, contains_hit_scores, mean_scores
from .retrievers import Embedder, build_retriever
from .strategies import Strategy, StrategyUnavailable

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "-", "–": "-"})
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Text as containment is judged: NFKC, straight quotes and dashes, whitespace runs as one space, lower case."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip().lower()


def load_gutenqa(path: Path) -> tuple[str, str, list[dict[str, str]]]:
    """Read the smoke set: ``(title, book text, questions)``.

    Raises:
        InputError: When the file does not have the expected shape.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        book = "\n\n".join(p["text"] for p in data["paragraphs"])
        questions = [{"question": q["question"], "must_contain": q["must_contain"]} for q in data["questions"]]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise InputError(
            f"{path}: expected a GutenQA JSON object with 'paragraphs' [{{'text'}}] and "
            f"'questions' [{{'question', 'must_contain'}}] ({err})"
        ) from err
    return str(data.get("title", path.stem)), book, questions


def _plain(plain: dict[ChunkRef, str], book: str, ref: ChunkRef) -> str:
    """The normalised text of a retrieved span (a chunk, or a widened section run), computed once."""
    if ref not in plain:
        plain[ref] = normalize(book[ref.start : ref.end])
    return plain[ref]


def run_gutenqa(path: Path, config: BenchConfig, strategies: Sequence[Strategy], embedder: Embedder) -> dict[str, Any]:
    """Score every strategy (except references) x retriever on the smoke set."""
    title, book, questions = load_gutenqa(path)
    doc_name = path.stem
    needles = [normalize(q["must_contain"]) for q in questions]
    answerable = sum(needle in normalize(book) for needle in needles)
    runs: list[dict[str, Any]] = []
    for strategy in strategies:
        if strategy.reference:
            continue
        try:
            chunked = chunk_corpus(strategy, [(doc_name, book)], cache_dir=config.cache_dir, progress=config.progress)
        except StrategyUnavailable:
            continue
        plain: dict[ChunkRef, str] = {ref: normalize(book[ref.start : ref.end]) for ref in chunked.refs}
        for retriever_name in config.retrievers:
            retriever = build_retriever(retriever_name, embedder=embedder)
            t0 = time.perf_counter()
            retriever.index(chunked.embed_texts, desc=f"gutenqa {strategy.name}: embed chunks")
            ranked = strategy.rank(retriever, [q["question"] for q in questions], chunked.refs)
            per_query = [
                contains_hit_scores([n in _plain(plain, book, ref) for ref in hits[:CUTOFF]])
                for n, hits in zip(needles, ranked, strict=True)
            ]
            runs.append(
                {
                    "strategy": strategy.name,
                    "retriever": retriever_name,
                    "metrics": {k: round(v, 4) for k, v in mean_scores(per_query).items()},
                    "per_query": per_query_values(per_query),
                    **chunked.stats,
                    "chunk_seconds": round(chunked.seconds, 2),
                    "index_search_seconds": round(time.perf_counter() - t0, 2),
                }
            )
    return {"title": title, "questions": len(questions), "answerable": answerable, "runs": runs}
