"""CHOP's base chunks: the chunker you gave, or the built-in LumberChunker sized by what the prefix will say.

The built-in LumberChunker cuts a document into its sections as they are when the
document's prefix will print its name (small, precise chunks; the name says which
document they are from), and at LumberChunker's own sizes when it will not (see
:data:`~chop_integrations._defaults.BUILTIN_TARGET_TOKENS`). Which documents print their name is the prefix policy's
answer (:meth:`~chop_integrations._chop.prefix.PrefixPolicy.carries_name`), asked before chunking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._deciders import DocContext
from .._llm.usage import UsageReport
from .._offline.signature import document_identity
from .._text.tokens import TokenCounter
from .._types import CNM, Chunk
from .corpus import CorpusState
from .estimate import base_chunks, merge_llm_counts
from .prefix import PrefixPolicy

__all__ = ["BaseChunking", "known_fields"]


class BaseChunking:
    """Which base chunker chunks which document, and the chunking itself.

    Args:
        chunker: The base chunker (yours, or the built-in LumberChunker at section size).
        builtin: Whether ``chunker`` is the built-in one (only then do sizes follow the prefix).
        joining: Builds the built-in LumberChunker at its own sizes (called once, on first need).
        policy: The prefix policy that says which documents print their name.
        count: The token counter of the CHOP run.
    """

    def __init__(
        self,
        chunker: Any,
        *,
        builtin: bool,
        joining: Callable[[], Any],
        policy: PrefixPolicy,
        count: TokenCounter,
    ) -> None:
        self.chunker = chunker
        self.builtin = builtin
        self._make_joining = joining
        self._joining: Any = None
        self.policy = policy
        self.count = count

    def groups(self, docs: Sequence[DocContext], corpus: CorpusState | None) -> list[tuple[Any, list[int]]]:
        """``(chunker, indexes of docs)`` pairs, none empty, in a fixed order (sections first).

        Which documents print their name depends on them and on the names ``corpus`` knows (read only).
        """
        if not self.builtin:
            return [(self.chunker, list(range(len(docs))))]
        named = self.policy.carries_name([document_identity(doc) for doc in docs], corpus)
        groups: list[tuple[Any, list[int]]] = []
        sections = [i for i, flag in enumerate(named) if flag]
        if sections:
            groups.append((self.chunker, sections))
        joined = [i for i, flag in enumerate(named) if not flag]
        if joined:
            if self._joining is None:
                self._joining = self._make_joining()
            groups.append((self._joining, joined))
        return groups

    async def achunk(
        self, docs: Sequence[DocContext], usage: UsageReport, corpus: CorpusState | None
    ) -> tuple[list[list[Chunk]], int]:
        """Every document's base chunks, and the documents' tokens (as the base chunkers counted them)."""
        per_doc: list[list[Chunk]] = [[] for _ in docs]
        document_tokens = 0
        for chunker, indexes in self.groups(docs, corpus):
            chunked = await chunker.achunk_many(
                [docs[i].text for i in indexes], metadatas=[docs[i].metadata for i in indexes]
            )
            report = getattr(chunker, "last_usage", None)
            merge_llm_counts(usage, report)
            if report is not None and getattr(getattr(chunker, "settings", None), "count", None) is self.count:
                document_tokens += int(report.document_tokens)
            else:
                document_tokens += sum(self.count(docs[i].text) for i in indexes)
            for i, chunks in zip(indexes, chunked, strict=True):
                per_doc[i] = chunks
        return per_doc, document_tokens

    def estimate(
        self, docs: Sequence[DocContext], report: UsageReport, corpus: CorpusState | None
    ) -> list[list[Chunk]]:
        """The base chunks of a dry run, each document at the size the run would use."""
        per_doc: list[list[Chunk]] = [[] for _ in docs]
        for chunker, indexes in self.groups(docs, corpus):
            chunked = base_chunks(chunker, [docs[i] for i in indexes], report, count=self.count)
            for i, chunks in zip(indexes, chunked, strict=True):
                per_doc[i] = chunks
        return per_doc


def known_fields(docs: Sequence[DocContext]) -> list[CNM]:
    """What is known of each document before chunking: its name (caller or cover) and the caller's category."""
    return [CNM(model=document_identity(doc), category=doc.hints.get("category") or None) for doc in docs]
