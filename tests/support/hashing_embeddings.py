"""A LangChain embedding model for tests: deterministic, offline, and similar texts score higher."""

from __future__ import annotations

import hashlib
import math
import re

from langchain_core.embeddings import Embeddings


class HashingEmbeddings(Embeddings):
    """Words hashed into ``buckets`` buckets, L2-normalised (no model, no download)."""

    def __init__(self, buckets: int = 256) -> None:
        self.buckets = buckets

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        vector = [0.0] * self.buckets
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.buckets] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]
