"""The three decisions the engines delegate, as small protocols.

LumberChunker asks a :class:`TopicShiftDecider` where, inside a window of
consecutive units, the topic shifts. CHOP asks a
:class:`ContinuityDecider` whether a chunk continues the one before it, and a
:class:`CNMExtractor` for a fresh signature where it does not. Each decision
has an LLM implementation (``llm_deciders``) and an offline one
(``offline``); the engines cannot tell them apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Protocol, runtime_checkable

from ._types import CNM, Chunk, Unit

#: The caller's identity fields that :attr:`DocContext.hints` shows, in prompt order.
HINT_KEYS = ("title", "source", "category", "model")


def hint_fields(metadata: Mapping[str, Any] | None) -> dict[str, str]:
    """The identity fields of ``metadata`` as prompts show them.

    ``title``, ``source`` (its file name only), ``category`` and ``model``, as text;
    a key that is missing, ``None`` or ``""`` is left out.
    """
    found: dict[str, str] = {}
    for key in HINT_KEYS:
        value = (metadata or {}).get(key)
        if value in (None, ""):
            continue
        text = str(value)
        if key == "source":
            text = PurePath(text).name or text
        found[key] = text
    return found


@dataclass(frozen=True)
class DocContext:
    """What a decider may know about the document a decision belongs to.

    ``metadata`` is the one source of truth about the document's caller-given fields;
    ``hints`` is derived from it at construction and cannot be passed in, so the two
    never disagree. Read an identity field the prompts show (``title``, ``source``,
    ``category``, ``model``) through ``hints``; read any other key, or a raw value
    (the full ``source`` path), from ``metadata``.

    Attributes:
        doc_id: The document's identifier (its ``source`` metadata, file stem or index).
        text: The whole document.
        metadata: The document's metadata as the caller gave it (filled by the engines from
            the caller's ``metadata=``/``metadatas=``).
        hints: The identity fields of ``metadata`` as prompts show them
            (:func:`hint_fields`): text, ``source`` reduced to its file name; any may be missing.
    """

    doc_id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hints", hint_fields(self.metadata))


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
