"""The engine base: a name, a config class, one async core; every entry point derived from them.

An engine subclasses :class:`Engine`, names itself (``name = "lumber"``), names its config class
(``config_class = LumberConfig``, an :class:`~chop_integrations._llm.options.EngineConfig`) and writes one
coroutine, :meth:`Engine._achunk_docs` (checked documents in, chunks per document out). The base gives it
``chunk``, ``achunk``, ``chunk_many``, ``achunk_many``, ``chunk_stream``/``achunk_stream`` (where the engine
streams), ``last_usage`` and the LLM options as attributes. Subclassing with a ``name`` registers the
engine in :data:`ENGINES`, which the command line (``--method`` and its config flags), Ray
(``build_engine("name")``) and the parity tests read: a new engine is one module and its config.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, NamedTuple, Protocol

from .._checks import batch
from .._deciders import SYNC_METHODS, DocContext, Method, as_async
from .._errors import ConfigurationError
from .._types import Chunk
from .aio import aiterate_in_thread, iterate_sync, run_sync
from .options import EngineConfig, LLMConfigMixin
from .protocol import as_llm
from .usage import ReportsUsage, UsageReport, UsageSlot

__all__ = ["ENGINES", "Engine", "Stream", "Streamed", "sync_method"]

#: Every engine by its name, filled as engine classes are defined (:meth:`Engine.__init_subclass__`).
ENGINES: dict[str, type[Engine]] = {}


class Stream(Protocol):
    """One document's stream: ``run(pieces)`` offline, in turn with no loop; ``arun(pieces)`` on a loop."""

    def run(self, pieces: Iterable[str]) -> Iterator[Chunk]:
        """The chunks of ``"".join(pieces)``, each once final."""
        ...

    def arun(self, pieces: AsyncIterable[str]) -> AsyncIterator[Chunk]:
        """Async :meth:`run`."""
        ...


class Streamed(NamedTuple):
    """A :class:`Stream` made of two functions."""

    run: Callable[[Iterable[str]], Iterator[Chunk]]
    arun: Callable[[AsyncIterable[str]], AsyncIterator[Chunk]]


class Engine(LLMConfigMixin, ReportsUsage):
    """The base of every engine: ``Engine(llm, config, **options)``.

    Args:
        llm: Any model :func:`~chop_integrations.as_llm` accepts, or ``None`` for the engine's offline deciders.
        config: An instance of :attr:`config_class`, or ``None`` for the defaults.
        **options: :attr:`config_class` fields by name: they build the config, or override the given one's.

    Attributes:
        name: The engine's name in :data:`ENGINES` (a class without its own is not registered).
        config_class: Its config (an :class:`~chop_integrations._llm.options.EngineConfig`).
        config: The validated, frozen config: the engine's whole state of options.
        settings: What the config implies (sizes resolved, the token counter...), computed once, or None.
        llm: The model (:func:`~chop_integrations.as_llm`), or None.

    Raises:
        ConfigurationError: On an invalid value or an unknown option (the message names the valid ones).
    """

    name: ClassVar[str]
    config_class: ClassVar[type[EngineConfig]] = EngineConfig
    config: EngineConfig
    #: What the config implies, computed once when the engine is built (a frozen object the runs read), or
    #: None for an engine that reads its config alone.
    settings: Any = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if isinstance(name, str):
            ENGINES[name] = cls  # a later class of the same name replaces the earlier one

    def __init__(self, llm: Any = None, config: EngineConfig | None = None, **options: Any) -> None:
        self.config = self.config_class.of(config, options)
        self.llm = as_llm(llm)
        self._usage = UsageSlot()

    # -- the core an engine writes -----------------------------------------------------------------

    async def _achunk_docs(self, docs: list[DocContext]) -> list[list[Chunk]]:
        """Chunks of each checked document (the one path every entry point takes)."""
        raise NotImplementedError

    def _chunk_docs(self, docs: list[DocContext]) -> list[list[Chunk]]:
        """The sync entry points' path: the core on a private loop (an engine with a loop-free path overrides it)."""
        return run_sync(self._arun(docs))

    async def _arun(self, docs: list[DocContext]) -> list[list[Chunk]]:
        """The core, with a usage report of documents, chunks and time where the engine keeps none of its own."""
        usage, started = UsageReport(), time.perf_counter()
        self.last_usage = usage  # an engine that reports its run replaces it
        chunked = await self._achunk_docs(docs)
        if self.last_usage is usage:
            usage.add(documents=len(docs), chunks=sum(len(c) for c in chunked), wall_s=time.perf_counter() - started)
        return chunked

    def _docs(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[DocContext]:
        """The checked documents (:func:`~chop_integrations._checks.batch`)."""
        return batch(texts, metadatas)

    def _open_stream(self, metadata: dict[str, Any] | None) -> Stream:
        """The engine's :class:`Stream` for one document.

        Raises:
            ConfigurationError: Here, for an engine that does not stream.
        """
        raise ConfigurationError(f"{type(self).__name__} does not stream: call chunk() on the whole text")

    # -- what the base derives ----------------------------------------------------------------------

    @property
    def streams(self) -> bool:
        """True when :meth:`chunk_stream` gives exactly :meth:`chunk`'s chunks (the CLI streams long files then)."""
        return False

    def chunk(self, text: str, *, metadata: dict[str, Any] | None = None) -> list[Chunk]:
        """Chunk one document; ``last_usage`` holds the run's usage report.

        Raises:
            InputError: When ``text`` is not a string or the metadata not a dict.
            LLMError: Under ``on_llm_error="raise"`` when a decision failed.
        """
        return self._chunk_docs(self._docs([text], [metadata]))[0]

    async def achunk(self, text: str, *, metadata: dict[str, Any] | None = None) -> list[Chunk]:
        """Async :meth:`chunk`."""
        return (await self._arun(self._docs([text], [metadata])))[0]

    def chunk_many(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[list[Chunk]]:
        """Chunk many documents, up to ``max_concurrency`` calls at once; one list of chunks per text.

        Raises:
            InputError: On a text that is not a str, metadata that is not a dict, or lengths that differ.
            LLMError: Under ``on_llm_error="raise"`` when a decision failed.
        """
        return self._chunk_docs(self._docs(texts, metadatas))

    async def achunk_many(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[list[Chunk]]:
        """Async :meth:`chunk_many`."""
        return await self._arun(self._docs(texts, metadatas))

    def chunk_stream(self, pieces: Iterable[str], *, metadata: dict[str, Any] | None = None) -> Iterator[Chunk]:
        """Chunk one document that arrives in pieces; yield each chunk as soon as no later text can change it.

        Offline the stream runs in turn, with no event loop; with an LLM this iterates :meth:`achunk_stream`
        (:func:`~chop_integrations._llm.aio.iterate_sync`).

        Raises:
            ConfigurationError: When the engine (or its mode) does not stream.
            InputError: When a piece is not a string or the metadata not a dict.
        """
        stream = self._open_stream(metadata)
        if self.llm is None:
            return stream.run(pieces)
        return iterate_sync(stream.arun(aiterate_in_thread(pieces)))

    def achunk_stream(
        self, pieces: AsyncIterable[str], *, metadata: dict[str, Any] | None = None
    ) -> AsyncIterator[Chunk]:
        """Async :meth:`chunk_stream` over an async iterable of pieces."""
        return self._open_stream(metadata).arun(pieces)


def sync_method(decider: Any, method: Method) -> Callable[..., Any]:
    """The decider's synchronous method (an engine's offline path asks it in turn, with no event loop).

    An async-only decider is run to its end per call (:func:`~chop_integrations._llm.aio.run_sync`): correct,
    but slower than a synchronous one.

    Raises:
        ConfigurationError: When it has neither the sync nor the async ``method``.
    """
    sync = getattr(decider, SYNC_METHODS[method], None)
    if callable(sync):
        return sync  # type: ignore[no-any-return]
    ask = getattr(as_async(decider, method), method)
    return lambda *args: run_sync(ask(*args))
