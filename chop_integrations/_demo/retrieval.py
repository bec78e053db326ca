"""A tiny, dependency-free lexical retriever for the demo: Okapi BM25 in plain Python.

The demo must run in seconds with no model and no network, so it ranks chunks
with BM25 (the classic lexical ranking function behind most search engines)
over lower-cased words, minus a few English function words. It is a stand-in
for an embedding model: it shows *why* CHOP prefixes help (the model name in
the prefix is a rare, decisive term), not how much they help a real retriever;
the ``bench`` command measures that with MiniLM and BM25 over real manuals.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+")
#: Function words that carry no topic; dropping them keeps a 24-chunk index from matching on "does" or "the".
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it its me my of on or should so than that the "
    "their then there this to was what when where which who why will with you your".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased runs of letters and digits, minus :data:`STOPWORDS` (``"FV-310B"`` gives ``["fv", "310b"]``)."""
    return [word for word in (w.lower() for w in _WORD.findall(text)) if word not in STOPWORDS]


class BM25Index:
    """Ranks a fixed list of texts against a query with Okapi BM25.

    Args:
        texts: The texts to index, e.g. the chunks' stored text or their ``embed_text``.
        k1: Term-frequency saturation.
        b: Length normalisation (0 none, 1 full).
    """

    def __init__(self, texts: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        self._counts = [Counter(tokenize(text)) for text in texts]
        self._lengths = [sum(count.values()) for count in self._counts]
        self._average = (sum(self._lengths) / len(self._lengths)) if self._lengths else 0.0
        document_frequency: Counter[str] = Counter()
        for count in self._counts:
            document_frequency.update(count.keys())
        total = len(self._counts)
        self._idf = {t: math.log((total - n + 0.5) / (n + 0.5) + 1.0) for t, n in document_frequency.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> list[float]:
        """The BM25 score of ``query`` against every indexed text, in index order."""
        terms = set(tokenize(query))
        results = []
        for count, length in zip(self._counts, self._lengths, strict=True):
            norm = self.k1 * (1.0 - self.b + self.b * length / self._average) if self._average else self.k1
            score = 0.0
            for term in terms:
                frequency = count.get(term, 0)
                if frequency:
                    score += self._idf[term] * frequency * (self.k1 + 1.0) / (frequency + norm)
            results.append(score)
        return results

    def search(self, query: str, *, k: int = 1) -> list[tuple[int, float]]:
        """The ``k`` best ``(index, score)`` pairs, best first; ties keep index order."""
        ranked = sorted(enumerate(self.scores(query)), key=lambda pair: (-pair[1], pair[0]))
        return ranked[:k]
