"""Sizing chunks to the embedding model's input limit.

An embedder reads a bounded number of its own tokens (all-MiniLM-L6-v2: 256
word pieces) and silently drops the rest, so a chunk longer than that is
retrieved by its beginning only. :func:`resolve_embedding_limit` reads the
limit, and where it can the model's own tokenizer, from what a user already
has: a number, a sentence-transformers model (``max_seq_length`` and its
``tokenizer``), a LangChain ``HuggingFaceEmbeddings``-like object (its
sentence-transformers ``client``), or a LlamaIndex embedding (``max_length``,
its ``_model``). Nothing here imports a framework: the objects are duck-typed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigurationError
from .tokens import TokenCounter

__all__ = ["EmbeddingLimit", "combined_counter", "resolve_embedding_limit", "warn_if_truncated"]

logger = logging.getLogger("chop_integrations")

#: Attributes under which wrappers keep a sentence-transformers model (LangChain: ``client`` /
#: ``_client``; LlamaIndex: ``_model``).
_WRAPPED_MODEL = ("client", "_client", "_model", "model")


@dataclass(frozen=True)
class EmbeddingLimit:
    """The most tokens an embedder reads, and how to count them.

    Attributes:
        max_tokens: Tokens of text the embedder reads (special tokens already taken off).
        counter: Counts the embedder's own tokens; ``None`` when only a number was given
            (the chunker's counter is used).
    """

    max_tokens: int
    counter: TokenCounter | None = None


def resolve_embedding_limit(embedding: Any) -> EmbeddingLimit | None:
    """The input limit of ``embedding``: ``None``, a number, an :class:`EmbeddingLimit` or an embedder.

    Raises:
        ConfigurationError: When the number is not a positive int, or no limit can be read
            from the object (then pass the number).
    """
    if embedding is None or isinstance(embedding, EmbeddingLimit):
        return embedding
    if isinstance(embedding, int) and not isinstance(embedding, bool):
        if embedding < 1:
            raise ConfigurationError(f"embedding limit must be an integer >= 1, got {embedding!r}")
        return EmbeddingLimit(embedding)
    for candidate in (embedding, *(getattr(embedding, name, None) for name in _WRAPPED_MODEL)):
        found = _from_sentence_transformer(candidate)
        if found is not None:
            return found
    length = getattr(embedding, "max_length", None)  # LlamaIndex HuggingFaceEmbedding and similar
    if isinstance(length, int) and not isinstance(length, bool) and length > 0:
        return EmbeddingLimit(length)
    raise ConfigurationError(
        f"cannot read an input limit from {type(embedding).__name__}; pass the number of tokens it reads, "
        "e.g. embedding=256"
    )


def _from_sentence_transformer(model: Any) -> EmbeddingLimit | None:
    length = getattr(model, "max_seq_length", None)
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        return None
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        return EmbeddingLimit(length)
    special = int(getattr(tokenizer, "num_special_tokens_to_add", lambda: 0)())
    return EmbeddingLimit(max(1, length - special), _tokenizer_counter(tokenizer))


def _tokenizer_counter(tokenizer: Any) -> TokenCounter:
    """Count a Hugging Face tokenizer's tokens (no special tokens, no length warning)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        return lambda text: len(backend.encode(text, add_special_tokens=False).ids)
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False))


def combined_counter(base: TokenCounter, limit: EmbeddingLimit | None) -> TokenCounter:
    """``base``, or the larger of ``base`` and the embedder's count, so one bound holds for both."""
    embed = None if limit is None else limit.counter
    if embed is None:
        return base
    return lambda text: max(base(text), embed(text))


def warn_if_truncated(sizes: Iterable[int], limit: int, *, what: str = "chunks") -> int:
    """Log a WARNING when any size is over ``limit`` (the embedder will cut those); return how many."""
    sizes = list(sizes)
    over = sum(1 for size in sizes if size > limit)
    if over:
        logger.warning(
            "%d of %d %s are over the embedder's input limit of %d tokens and will be truncated before embedding",
            over,
            len(sizes),
            what,
            limit,
        )
    return over
