"""The reader of a catalog read back from a store, read again when the store may have changed.

A retriever built without ``reader=`` or ``catalog=`` reads the store's ``chop_model`` values back when it
is built. Chunks ingested later would never be read; :class:`LiveReader` reads the store again before a
query when it may have changed: when its size (a cheap *mark*, such as its number of chunks) differs
from the one taken at the last reading, or, for a store whose size cannot be told cheaply, when
``every`` seconds have passed. A reader or catalog the caller gave is never read again
(:meth:`LiveReader.fixed`). Framework-free: the adapters pass the two functions that read their store.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Hashable

from .catalog import SignatureCatalog
from .reader import QueryReader

__all__ = ["DEFAULT_REFRESH", "LiveReader", "warn_if_empty"]

logger = logging.getLogger("chop_integrations")

#: Seconds after which a store whose size cannot be told cheaply is read again (``None``: never).
DEFAULT_REFRESH = 60.0

#: The advice of the warning that a catalog holds no model.
_ADVICE = (
    ": no question will name a model and every query gets the plain search. Ingest the documents through "
    "CHOPDocumentTransformer (LangChain) or CHOPExtractor (LlamaIndex) first, or pass catalog= (a SignatureCatalog "
    "saved at ingestion, or SignatureCatalog.from_metadata over the chunks' metadata)."
)


def warn_if_empty(catalog: SignatureCatalog, where: str, after: str = "") -> bool:
    """Log the one warning that ``catalog``, read from ``where`` (words), holds no model; True when it did."""
    if len(catalog):
        return False
    logger.warning("no chunk in %s carries chop_model%s%s", where, _ADVICE, after)
    return True


class LiveReader:
    """A :class:`QueryReader` over a store's catalog, built again when the store may have changed. Thread-safe.

    The store is read once here. Before each query, :meth:`reader` takes its ``mark``: when the mark
    differs from the one taken before the last reading, the store is read again; when the store gives no
    mark (``None``), it is read again once ``every`` seconds have passed since the last reading. A reading
    that fails keeps the reader it had (logged at warning level) and is tried again when next due.

    Args:
        read: Reads the store's catalog (every chunk's metadata).
        reader: Instead of ``read``: the reader to keep, never read again (one the caller gave, or one
            over a catalog the caller gave).
        mark: A cheap value that changes when chunks are added or removed (their number), or ``None`` when
            the store cannot tell it cheaply. An error is taken as ``None``.
        every: Seconds between readings of a store without a mark; ``None``: the store is never read again.
        where: The store, in words, for the one warning logged when it holds no model (not per query).
        clock: Seconds, monotonic (a test's own clock).

    Raises:
        ValueError: When both or neither of ``read`` and ``reader`` are given.
        Exception: What ``read`` raises the first time (the store cannot be read back).
    """

    def __init__(
        self,
        read: Callable[[], SignatureCatalog] | None = None,
        *,
        reader: QueryReader | None = None,
        mark: Callable[[], Hashable | None] | None = None,
        every: float | None = DEFAULT_REFRESH,
        where: str = "the store",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if (read is None) == (reader is None):
            raise ValueError("pass read= or reader=, one of them")
        self._read, self._mark_of, self._clock, self._where = read, mark, clock, where
        self._every = None if read is None else every
        self._lock = threading.Lock()
        self._mark = self._marked()
        self._at = clock()
        if reader is not None:
            self._current = reader
            return
        assert read is not None
        catalog = read()
        self._current = QueryReader.from_catalog(catalog)
        warn_if_empty(catalog, where, "" if every is None else " It is read again when it changes (catalog_refresh).")

    @classmethod
    def fixed(cls, reader: QueryReader) -> LiveReader:
        """A reader never read again: one the caller gave, or one over a catalog the caller gave."""
        return cls(reader=reader)

    @classmethod
    def of(
        cls,
        reader: QueryReader | None,
        catalog: SignatureCatalog | None,
        read: Callable[[], SignatureCatalog],
        *,
        mark: Callable[[], Hashable | None] | None,
        every: float | None,
        where: str,
    ) -> LiveReader:
        """The reader a retriever uses: ``reader`` as given, else one over ``catalog``, else the store's.

        An empty ``catalog`` warns once; the store's values (``read``) are read again as it changes (``mark``,
        ``every``). Both adapters' retrievers ask this.
        """
        if reader is not None:
            return cls.fixed(reader)
        if catalog is not None:
            warn_if_empty(catalog, "the catalog given (catalog=)")
            return cls.fixed(QueryReader.from_catalog(catalog))
        return cls(read, mark=mark, every=every, where=where)

    @property
    def refreshing(self) -> bool:
        """Whether the store may be read again."""
        return self._every is not None

    @property
    def current(self) -> QueryReader:
        """The reader as of the last reading (reads nothing)."""
        return self._current

    def reader(self) -> QueryReader:
        """The reader to read a question with: the store read again first when it may have changed."""
        if self._every is None:
            return self._current
        with self._lock:
            mark = self._marked()
            if self._due(mark):
                self._reread(mark)
            return self._current

    async def areader(self) -> QueryReader:
        """:meth:`reader`, with a reading of the store (when one is due) in a worker thread.

        The event loop never waits on the lock: the check here is unlocked, and :meth:`reader` checks again.
        """
        if self._every is None or not self._due(self._marked()):
            return self._current
        return await asyncio.to_thread(self.reader)

    # -- inside --------------------------------------------------------------------------------------

    def _marked(self) -> Hashable | None:
        if self._mark_of is None:
            return None
        try:
            return self._mark_of()
        except Exception:  # a mark only saves readings: without one the clock decides
            return None

    def _due(self, mark: Hashable | None) -> bool:
        if mark is not None:
            return mark != self._mark
        assert self._every is not None
        return self._clock() - self._at >= self._every

    def _reread(self, mark: Hashable | None) -> None:
        """Read the store again (the mark is taken before, so chunks written meanwhile are read next time)."""
        assert self._read is not None  # a fixed reader is never due
        self._mark, self._at = mark, self._clock()
        try:
            catalog = self._read()
        except Exception as exc:  # the query still runs, with the values known so far
            logger.warning(
                "could not read %s again (%s: %s); kept its known models", self._where, type(exc).__name__, exc
            )
            return
        self._current = QueryReader.from_catalog(catalog)
        if len(catalog):
            logger.debug("read %s again: %d models", self._where, len(catalog))
