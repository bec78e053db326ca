"""The three decisions the engines delegate, as small protocols.

LumberChunker asks a :class:`TopicShiftDecider` where, inside a window of
consecutive units, the topic shifts. CHOP asks a
:class:`ContinuityDecider` whether a chunk continues the one before it, and a
:class:`CNMExtractor` for a fresh signature where it does not. Each decision
has an LLM implementation and an offline one (:mod:`chop_integrations._offline`); the engines
cannot tell them apart. The protocols are async only; a synchronous decider (a plain ``choose``,
``decide`` or ``extract``, as the offline ones have) goes through the one adapter,
:class:`Synchronous` (:func:`as_async`), and the engines' offline paths ask its sync method directly
(:func:`~chop_integrations._llm.engine.sync_method`), with no event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Literal, Protocol, runtime_checkable

from ._errors import ConfigurationError
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
    """Chooses where, in a window, the content shifts to a new topic (async; see :class:`Synchronous`)."""

    async def achoose(self, window: Window) -> list[int]:
        """Return the window-relative indexes where a new chunk begins.

        Each index ``i`` satisfies ``1 <= i < len(window.units)``; the list is sorted and
        free of duplicates; an empty list means no shift inside the window. A decider
        that finds only the first shift (the paper's procedure) returns one index.
        """
        ...


@runtime_checkable
class ContinuityDecider(Protocol):
    """Decides whether ``current`` continues the topic and document of ``previous`` (async)."""

    async def adecide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """Return True when ``current`` should inherit ``previous``'s signature."""
        ...


@runtime_checkable
class CNMExtractor(Protocol):
    """Extracts a fresh CNM signature for a chunk (async)."""

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Return the signature of ``chunk``; ``previous`` is the last signature in this document, if any."""
        ...


#: A decision's synchronous method name, by the async one the protocols ask for.
SYNC_METHODS = {"achoose": "choose", "adecide": "decide", "aextract": "extract"}
Method = Literal["achoose", "adecide", "aextract"]


class Synchronous:
    """The one adapter: a synchronous decider (``choose``, ``decide`` or ``extract``) as an async one.

    Pass a plain object with the synchronous method anywhere a decider goes (``fallback=``,
    ``offline_continuity=``, ``offline_extractor=``); the engines wrap it here. Its work runs on
    the event loop, so it should be quick (CPU only), as the offline deciders are.
    """

    def __init__(self, decider: Any) -> None:
        self.decider = decider

    async def achoose(self, window: Window) -> list[int]:
        """The wrapped decider's ``choose``."""
        return list(self.decider.choose(window))

    async def adecide(self, previous: Chunk, current: Chunk, doc: DocContext) -> bool:
        """The wrapped decider's ``decide``."""
        return bool(self.decider.decide(previous, current, doc))

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """The wrapped decider's ``extract``."""
        return self.decider.extract(chunk, doc, previous)  # type: ignore[no-any-return]


def as_async(decider: Any, method: Method) -> Any:
    """``decider`` where it has the async ``method``, else wrapped in :class:`Synchronous` (it has the sync one).

    Raises:
        ConfigurationError: When it has neither.
    """
    if callable(getattr(decider, method, None)):
        return decider
    sync = SYNC_METHODS[method]
    if callable(getattr(decider, sync, None)):
        return Synchronous(decider)
    raise ConfigurationError(
        f"a decider needs an async {method}() or a sync {sync}() method, got {type(decider).__name__}"
    )
