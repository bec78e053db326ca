"""The three decisions the engines delegate, as small protocols.

LumberChunker asks a :class:`TopicShiftDecider` where, inside a window of
consecutive units, the topic shifts. CHOP asks a
:class:`ContinuityDecider` whether a chunk continues the one before it, and a
:class:`CNMExtractor` for a fresh signature where it does not. Each decision
has an LLM implementation (``llm_deciders``) and an offline one
(``offline``); the engines cannot tell them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .types import CNM, Chunk, Unit


@dataclass(frozen=True)
class DocContext:
    """What a decider may know about the document a decision belongs to.

    Attributes:
        doc_id: The document's identifier (its ``source`` metadata, file stem or index).
        text: The whole document.
        metadata: The document's metadata as the caller gave it.
        hints: Hints for CNM extraction taken from the metadata: ``title``,
            ``source`` (file name), ``category``, ``model``; any may be missing.
    """

    doc_id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Window:
    """A LumberChunker window: consecutive units, the first one opening the current chunk.

    Attributes:
        units: The units shown to the decider; ``units[0]`` starts the chunk being built.
        first_index: Index of ``units[0]`` among all the document's units.
        doc: The document the window belongs to.
        is_last: True when the window reaches the document's end.
    """

    units: Sequence[Unit]
    first_index: int
    doc: DocContext
    is_last: bool = False

    @property
    def start(self) -> int:
        """Character offset where the window starts."""
        return self.units[0].start


@runtime_checkable
class TopicShiftDecider(Protocol):
    """Chooses where, in a window, the content shifts to a new topic."""

    def choose(self, window: Window) -> list[int]:
        """Return the window-relative indexes where a new chunk begins.

        Each index ``i`` satisfies ``1 <= i < len(window.units)``; the list is sorted and
        free of duplicates; an empty list means no shift inside the window. A decider
        that finds only the first shift (the paper's procedure) returns one index.
        """
        ...

    async def achoose(self, window: Window) -> list[int]:
        """Async :meth:`choose`."""
        ...


@runtime_checkable
class ContinuityDecider(Protocol):
    """Decides whether ``current`` continues the topic and document of ``previous``."""

    def decide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """Return True when ``current`` should inherit ``previous``'s signature."""
        ...

    async def adecide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """Async :meth:`decide`."""
        ...


@runtime_checkable
class CNMExtractor(Protocol):
    """Extracts a fresh CNM signature for a chunk."""

    def extract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Return the signature of ``chunk``; ``previous`` is the last signature in this document, if any."""
        ...

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Async :meth:`extract`."""
        ...
