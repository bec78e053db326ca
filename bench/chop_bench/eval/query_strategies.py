"""CHOP at query time in the benchmark: ``chop+query``, ``chop+query-boost`` and ``chop+query+context``.

Each wraps the run's ``chop`` strategy object and reuses its chunks (no second CHOP pass): the same
pieces, the same embedded texts (prefix and all), so only the ranking differs. The question is read by
``QueryReader.from_catalog(SignatureCatalog.from_chunks(<chop's chunks>))``: the known models are
what CHOP wrote on the chunks, never a list kept by hand.

- ``chop+query``: when the question names a known model, only that model's chunks are ranked (the
  retriever's order among them); otherwise exactly ``chop``'s ranking.
- ``chop+query-boost``: that model's chunks first, then the rest, each part in ``chop``'s order.
- ``chop+query+context``: the filter, then each hit widened to its section run
  (:func:`chop_integrations._query.section_run`) within :data:`CONTEXT_BUDGET` tokens. A widened
  hit is scored on its widened span (a span hit, iou, containment on Emma), hits whose widened span
  an earlier hit already returned are skipped, and nDCG's ideal ranking is drawn from the widened
  spans of every chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chop_integrations._query import QueryReader, SignatureCatalog, section_run
from chop_integrations._query.ranking import merged

from .baselines import timed_pieces
from .metrics import CUTOFF, ChunkRef
from .strategies import Engine, Piece, Strategy, StrategyUnavailable, corpus_key

__all__ = ["CONTEXT_BUDGET", "QUERY_MODES", "QueryStrategy", "query_strategy_parts"]

#: The suffixes a CHOP strategy takes, and the mode each names.
QUERY_MODES: dict[str, str] = {"query": "filter", "query-boost": "boost", "query+context": "context"}
#: Tokens a hit and its section-run neighbours may hold together in ``chop+query+context``. Chosen on the
#: manuals' tune split (147 questions, dense and BM25): budgets 64 to 4096 leave doc@1 and span@1 unchanged;
#: iou@1 reaches its best (0.807 dense, 0.719 BM25) from 128 on, and iou@5 only falls beyond it (0.253 -> 0.247
#: dense, 0.255 -> 0.241 BM25 at 512), so the smallest budget with the best iou@1.
CONTEXT_BUDGET = 128
#: How deep a question that reads no model is searched for ``+context`` (hits are skipped when an earlier
#: hit's section run already holds them, so the top 10 are filled from further down).
_DEEP = 5 * CUTOFF


def query_strategy_parts(name: str) -> tuple[str, str] | None:
    """``(base, mode)`` for ``chop+query`` and its kin (``chop-llm+query-boost``), else None."""
    for suffix, mode in QUERY_MODES.items():
        base = name.removesuffix(f"+{suffix}")
        if base != name and base in ("chop", "chop-llm"):
            return base, mode
    return None


@dataclass
class _Corpus:
    """What the strategy knows of one chunked corpus: each chunk's model and its section run."""

    reader: QueryReader
    models: list[str | None]
    runs: list[ChunkRef]  # each chunk widened to its section run (the chunk itself outside +context)


class QueryStrategy(Strategy):
    """A CHOP strategy whose ranking is filtered, boosted or widened by the model the question names.

    Args:
        base: The run's ``chop`` (or ``chop-llm``) strategy object, whose chunks are reused.
        mode: ``"filter"``, ``"boost"`` or ``"context"``.
        budget: Section-run budget in tokens (``context`` only).

    Raises:
        StrategyUnavailable: When ``base`` is not a CHOP engine strategy.
        ValueError: For an unknown mode.
    """

    def __init__(self, base: Strategy, mode: str, *, budget: int = CONTEXT_BUDGET) -> None:
        super().__init__()
        self.base: Engine
        if not isinstance(base, Engine) or base.kind != "chop":
            raise StrategyUnavailable(f"the query strategies read CHOP's chunks, not {base.name!r}'s")
        if mode not in QUERY_MODES.values():
            raise ValueError(f"unknown query mode {mode!r}: choose from {sorted(QUERY_MODES.values())}")
        self.base, self.mode, self.budget = base, mode, budget
        suffix = {v: k for k, v in QUERY_MODES.items()}[mode]
        self.name = f"{base.name}+{suffix}"
        what = {
            "filter": "only the chunks of the model the question names (QueryReader over CHOP's signatures)",
            "boost": "the chunks of the model the question names first, then the rest",
            "context": f"the filter, each hit widened to its section run (<= {budget} tokens)",
        }[mode]
        self.description = f"{base.description}; {what}"
        self.readings: dict[str, int] = {}
        self._corpora: dict[tuple[ChunkRef, ...], _Corpus] = {}

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Chunk one document (as the base does)."""
        return self.chunk_corpus([(doc_name, text)], progress=False)[0]

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        """The base's pieces (chunked once per corpus, its time counted in), with this corpus's catalog read."""
        return timed_pieces(self, docs, progress=progress)[0]

    def derive(self, docs: Sequence[tuple[str, str]], per_doc: Sequence[Sequence[Piece]]) -> list[list[Piece]]:
        """The base's pieces unchanged; the catalog, each chunk's model and section run of its chunks kept."""
        chunks = self.base.chunks[corpus_key(docs)]
        refs, models, runs = [], [], []
        for (name, _), pieces, doc_chunks in zip(docs, per_doc, chunks, strict=True):
            continues = [c.continues_previous for c in doc_chunks]
            tokens = [c.token_count for c in doc_chunks]
            for index, ((start, end, _), chunk) in enumerate(zip(pieces, doc_chunks, strict=True)):
                refs.append(ChunkRef(name, start, end))
                models.append(None if chunk.cnm is None else chunk.cnm.model)
                span = section_run(continues, tokens, index, self.budget) if self.mode == "context" else None
                runs.append(ChunkRef(name, pieces[span[0]][0], pieces[span[-1]][1]) if span else refs[-1])
        reader = QueryReader.from_catalog(SignatureCatalog.from_chunks(c for doc in chunks for c in doc))
        self._corpora[tuple(refs)] = _Corpus(reader, models, runs)
        return [list(pieces) for pieces in per_doc]

    def _corpus(self, refs: Sequence[ChunkRef]) -> _Corpus:
        corpus = self._corpora.get(tuple(refs))
        if corpus is None:
            raise KeyError(f"{self.name}: rank() called on chunks this strategy did not chunk")
        return corpus

    def rank(self, retriever: Any, queries: Sequence[str], refs: Sequence[ChunkRef]) -> list[list[ChunkRef]]:
        """Read each question; filter, boost or widen the retriever's ranking for those that name a model."""
        corpus = self._corpus(refs)
        readings = [corpus.reader.read(q).model for q in queries]
        self.readings = {"questions": len(queries), "read": sum(m is not None for m in readings)}
        shallow = retriever.search(queries, k=_DEEP if self.mode == "context" else CUTOFF)
        named = [i for i, model in enumerate(readings) if model is not None]
        deep = dict(
            zip(named, retriever.search([queries[i] for i in named], k=len(refs)) if named else [], strict=True)
        )
        ranked = []
        for number, model in enumerate(readings):
            ids = [int(i) for i in (deep[number] if model is not None else shallow[number])]
            if model is not None:
                ours = [i for i in ids if corpus.models[i] == model]
                ids = ours if self.mode != "boost" else ours + [i for i in ids if corpus.models[i] != model]
            ranked.append(self._widened(ids, corpus) if self.mode == "context" else [refs[i] for i in ids[:CUTOFF]])
        return ranked

    @staticmethod
    def _widened(ids: Sequence[int], corpus: _Corpus) -> list[ChunkRef]:
        """Each hit's section run, skipping runs already returned, until there are :data:`CUTOFF`."""
        return merged([(corpus.runs[i] for i in ids)], lambda run: run, CUTOFF)

    def pool(self, refs: Sequence[ChunkRef]) -> Sequence[ChunkRef]:
        """The widened span of every chunk, each once (``+context``), else the chunks."""
        return list(dict.fromkeys(self._corpus(refs).runs)) if self.mode == "context" else refs
