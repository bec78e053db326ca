"""A tiny, dependency-free lexical retriever for the demo: TF-IDF with cosine similarity.

The demo must run in seconds with no model and no network, so it ranks chunks
with classic TF-IDF (sublinear term frequency, smoothed inverse document
frequency, L2-normalised vectors) written in plain Python. It is a stand-in for
an embedding model: it shows *why* CHOP prefixes help (the model name in the
prefix is a rare, decisive term), not how much they help a real retriever; the
``bench`` command measures that with MiniLM and BM25.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased runs of letters and digits (``"FV-310B"`` gives ``["fv", "310b"]``)."""
    return [word.lower() for word in _WORD.findall(text)]


class TfidfIndex:
    """Ranks a fixed list of texts against a query by TF-IDF cosine similarity.

    Args:
        texts: The texts to index, e.g. the chunks' stored text or their ``embed_text``.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        counts = [Counter(tokenize(text)) for text in texts]
        document_frequency: Counter[str] = Counter()
        for count in counts:
            document_frequency.update(count.keys())
        total = len(counts)
        self._idf = {term: math.log((1 + total) / (1 + df)) + 1.0 for term, df in document_frequency.items()}
        self._vectors = [self._vector(count) for count in counts]

    def _vector(self, count: Counter[str]) -> dict[str, float]:
        weights = {t: (1.0 + math.log(n)) * self._idf[t] for t, n in count.items() if t in self._idf}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        return {t: w / norm for t, w in weights.items()} if norm else {}

    def scores(self, query: str) -> list[float]:
        """Cosine similarity of ``query`` with every indexed text, in index order."""
        query_vector = self._vector(Counter(tokenize(query)))
        return [sum(w * vector.get(t, 0.0) for t, w in query_vector.items()) for vector in self._vectors]

    def search(self, query: str, *, k: int = 1) -> list[tuple[int, float]]:
        """The ``k`` best ``(index, score)`` pairs, best first; ties go to the earlier text."""
        ranked = sorted(enumerate(self.scores(query)), key=lambda pair: (-pair[1], pair[0]))
        return ranked[:k]
