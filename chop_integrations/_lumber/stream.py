"""Default-mode LumberChunker driven incrementally: text pieces in, final chunks out.

The offline batch run is :meth:`WindowStream.run` fed one piece, so the two cannot drift. Every stage
runs left to right and needs only a bounded look-ahead:

* **segmentation**: :class:`~chop_integrations._text.stream.UnitStream` (units are final
  at a safe paragraph gap);
* **tiling**: :class:`~.plans.WindowPlan` resumed at the next window start over the
  units known so far (plus the context units before it); every window but the plan's
  last is final, because only the last one can still grow;
* **answers**: a window is asked as soon as it is final, up to ``max_concurrency`` at
  once with an LLM; a window names starts only among its own numbered units, so once
  the windows up to ``k`` are answered, the starts before window ``k``'s end are known;
* **cuts**: :func:`~.plans.balanced_cuts` splits the stretch between two starts, which
  is known once the later start is;
* **joining**: :func:`~.plans.pack_starts` walks the sections with the chunk being
  grown and one section of look-ahead, and after it opens a chunk its state is what
  it starts with, so it resumes there;
* **building**: :class:`~.build.ChunkBuilder` keeps the heading stack and the chunk index.

Memory is bounded by the windows in flight plus the longest stretch between two chunk
starts that the answers name (a window that names no start leaves its stretch open
until a later window names one) and the longest block segmentation must hold (a
paragraph, a fenced block, a list).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator

from .._deciders import DocContext
from .._errors import InputError
from .._llm.aio import cancel_and_wait
from .._llm.usage import UsageReport
from .._text.cuts import keep_with_body
from .._text.embedding_limit import warn_if_truncated
from .._text.run_memo import TextMemo
from .._text.stream import UnitStream
from .._text.tokens import TokenCounter, counter_name
from .._types import Chunk, Unit
from .build import ChunkBuilder
from .config import LumberSettings
from .plans import CONTEXT_UNITS, WindowPlan, balanced_cuts, pack_starts
from .prompts import LumberWindow, clean_shifts

__all__ = ["QUEUED_PER_SLOT", "WindowStream", "afinish_stream", "finish_stream"]

Answer = Callable[[LumberWindow], list[int]]
AsyncAnswer = Callable[[LumberWindow], Awaitable[list[int]]]
#: Default mode, async: windows queued (asked or waiting for a slot) per unit of ``max_concurrency``
#: before more text is read (a stream) or the next document is segmented (``achunk_many``); bounds
#: memory on huge inputs without starving the calls.
QUEUED_PER_SLOT = 4


class WindowStream:
    """One document's default-mode run, fed text pieces, yielding chunks once no later text can change them.

    Args:
        settings: The engine's settings (:class:`~.config.LumberSettings`).
        doc: The document's context (its ``text`` is not read: the text arrives in pieces).
        usage: The run's usage report.
        fixed: True when the answers come from an LLM: the sections they name are kept as they are.
        count_tokens: Add the units' tokens to the report's document tokens (a batch run
            counts the whole text itself instead).
        count: The counter that segments and builds (a batch run's own; default: the settings').
        memo: A batch run's memory of the blocks it split (see :func:`~chop_integrations._text.segmentation.units_of`).

    Attributes:
        peak_units: The most units held at once (memory instrumentation).
        peak_buffer_chars: The most characters the segmentation buffer held at once.
    """

    def __init__(
        self,
        settings: LumberSettings,
        doc: DocContext,
        usage: UsageReport,
        *,
        fixed: bool = False,
        count_tokens: bool = True,
        count: TokenCounter | None = None,
        memo: TextMemo | None = None,
    ) -> None:
        self.settings = settings
        self.fixed = fixed
        self.count_tokens = count_tokens
        self.doc = doc
        self.usage = usage
        count = settings.count if count is None else count
        self.segments = UnitStream(max_tokens=settings.max_tokens, token_counter=count, memo=memo)
        self.builder = ChunkBuilder(doc, max_tokens=settings.max_tokens, count=count)
        self.units: list[Unit] = []
        self.cum = [0]  # cum[i] - cum[j]: tokens of units base+j .. base+i
        self.base = 0  # absolute index of units[0]
        self.done = False
        self.resume = 0  # absolute index where the next window starts
        self.open = 0  # the last start named so far; its stretch's end is not known yet
        self.starts: list[int] = []  # starts of closed stretches (balanced cuts included), from the last open chunk
        self.found: set[int] = set()
        self.peak_units = 0
        self.peak_buffer_chars = 0

    # -- driving ----------------------------------------------------------------------------------

    def run(self, pieces: Iterable[str], answer: Answer) -> Iterator[Chunk]:
        """Chunks of ``"".join(pieces)``, each window answered in turn by ``answer`` (the offline decider's path).

        Raises:
            InputError: When a piece is not a string.
        """
        source = iter(pieces)
        while windows := self._next_windows(source):
            for window, lo in windows:
                self._apply(window, lo, answer(window))
                yield from self._settle()
        yield from self._settle(final=True)

    async def arun(self, pieces: AsyncIterable[str], answer: AsyncAnswer, *, workers: int = 1) -> AsyncIterator[Chunk]:
        """Chunks of the pieces, windows asked as tasks: ``workers`` at once, ``QUEUED_PER_SLOT`` times that queued.

        Every streamed LLM run takes this path (the sync :meth:`~.chunker.LumberChunker.chunk_stream` iterates it).

        Raises:
            InputError: When a piece is not a string.
        """
        source = aiter(pieces)
        slots = asyncio.Semaphore(workers)
        queue: deque[tuple[LumberWindow, int, asyncio.Task[list[int]]]] = deque()

        async def ask(window: LumberWindow) -> list[int]:
            async with slots:
                return await answer(window)

        try:
            while True:
                while queue and queue[0][2].done():  # answers already in: their chunks go out first
                    window, lo, task = queue.popleft()
                    self._apply(window, lo, task.result())
                    for chunk in self._settle():
                        yield chunk
                if len(queue) < QUEUED_PER_SLOT * workers:
                    if windows := self._ready_windows():
                        queue.extend((w, lo, asyncio.ensure_future(ask(w))) for w, lo in windows)
                        continue
                    if not self.done:
                        await self._apull(source)
                        continue
                if not queue:
                    break
                await asyncio.wait([queue[0][2]])
        finally:
            await cancel_and_wait(task for _, _, task in queue)
        for chunk in self._settle(final=True):
            yield chunk

    @property
    def _known(self) -> int:
        return self.base + len(self.units)

    def _pull(self, source: Iterator[str]) -> None:
        """Feed pieces until segmentation gives new units or the text ends."""
        for piece in source:
            if self._feed(piece):
                return
        self._end()

    async def _apull(self, source: AsyncIterator[str]) -> None:
        """Async :meth:`_pull`."""
        async for piece in source:
            if self._feed(piece):
                return
        self._end()

    def _feed(self, piece: str) -> bool:
        if not isinstance(piece, str):
            raise InputError(f"chunk_stream takes pieces of text (str), got {type(piece).__name__}")
        units = self.segments.feed(piece)
        self._add(units)
        return bool(units)

    def _end(self) -> None:
        self._add(self.segments.close())
        self.done = True

    def _add(self, units: list[Unit]) -> None:
        if self.count_tokens:
            self.usage.add(document_tokens=sum(u.tokens for u in units))
        self.units.extend(units)
        sums = itertools.accumulate([u.tokens for u in units], initial=self.cum[-1])
        self.cum.extend(itertools.islice(sums, 1, None))  # (the initial sum is there already)
        self.peak_units = max(self.peak_units, len(self.units))
        self.peak_buffer_chars = max(self.peak_buffer_chars, self.segments.peak_buffer_chars)

    def _tokens(self, a: int, b: int) -> int:
        return self.cum[b - self.base] - self.cum[a - self.base]

    # -- windows ----------------------------------------------------------------------------------

    def _next_windows(self, source: Iterator[str]) -> list[tuple[LumberWindow, int]]:
        """The next final windows, reading pieces until there are some; ``[]`` at the end."""
        while not (windows := self._ready_windows()) and not self.done:
            self._pull(source)
        return windows

    def _ready_windows(self) -> list[tuple[LumberWindow, int]]:
        """The windows the units known so far make final, with the absolute index of their plan's first unit."""
        if self.resume >= self._known:
            return []
        enough = (
            self._known - self.resume >= 2 and self._tokens(self.resume, self._known) > 2 * self.settings.window_tokens
        )
        if not (self.done or enough):
            return []
        lo = self._context_floor(self.resume)
        plan = WindowPlan(
            self.doc,
            self.units[lo - self.base :],
            max_tokens=self.settings.max_tokens,
            window_tokens=self.settings.window_tokens,
            context_tokens=self.settings.context_tokens,
            start=self.resume - lo,
        )
        windows = plan.windows if self.done else plan.windows[:-1]  # only the last can still grow
        if windows:
            last = windows[-1]
            self.resume = lo + last.first_index + len(last.units)
        return [(window, lo) for window in windows]

    def _context_floor(self, first: int) -> int:
        """The earliest unit a window starting at ``first`` can show as context (as :class:`WindowPlan` picks it)."""
        context = max(self.base, first - CONTEXT_UNITS)
        while context > self.base and self._tokens(context, first) < self.settings.context_tokens:
            context -= 1
        return context

    def _apply(self, window: LumberWindow, lo: int, shifts: list[int]) -> None:
        """Take one window's answer: every start it names closes the stretch before it."""
        named = sorted(
            self.base + keep_with_body(self.units, lo + window.first_index + i - self.base, self.settings.max_tokens)
            for i in clean_shifts(shifts, window, "default")
        )
        self.found.update(named)
        for start in named:
            if start > self.open:
                self._close(start)

    def _close(self, end: int) -> None:
        """The stretch from the open start to ``end`` is complete: cut it to ``max_tokens``."""
        a = self.open
        rel = a - self.base
        self.starts.append(a)
        cuts = balanced_cuts(self.units, self.cum, rel, end - self.base, self.settings.max_tokens)
        self.starts.extend(self.base + c for c in cuts)
        self.open = end

    # -- chunks -----------------------------------------------------------------------------------

    def _settle(self, *, final: bool = False) -> Iterator[Chunk]:
        """Build the chunks no later answer can change, then drop the units nobody needs any more."""
        if final:
            if not self.units:
                return
            self._close(self._known)
            bounds = [*self._packed(self.starts, self._known), self._known]
            self.starts = []
        else:
            known = [*self.starts, self.open]
            if len(known) < 2:
                return
            if self._packing:
                bounds = [s for s in self._packed(known, self._known) if s != self.open]
            else:
                bounds = known
            self.starts = [s for s in self.starts if s >= bounds[-1]]
        for a, b in itertools.pairwise(bounds):
            yield from self.builder.build(self.units, self.base, a, b)
        if not final:
            self._trim(min(bounds[-1], self._context_floor(self.resume)))

    @property
    def _packing(self) -> bool:
        return bool(self.settings.target_tokens or self.settings.min_tokens)

    def _packed(self, starts: list[int], end: int) -> list[int]:
        """:func:`pack_starts` over ``starts`` (the last section ends at ``end``), in absolute indexes."""
        if not self._packing:
            return starts
        base = starts[0]
        a, b = base - self.base, end - self.base
        fixed = frozenset(s - base for s in self.found if s >= base) if self.fixed else frozenset()
        out = pack_starts(
            self.units[a:b],
            self.cum[a : b + 1],
            [s - base for s in starts],
            max_tokens=self.settings.max_tokens,
            target_tokens=self.settings.target_tokens,
            min_tokens=self.settings.min_tokens,
            fixed=fixed,
        )
        return [base + s for s in out]

    def _trim(self, keep: int) -> None:
        """Forget the units before ``keep`` (absolute)."""
        drop = keep - self.base
        if drop <= 0:
            return
        del self.units[:drop]
        del self.cum[:drop]
        self.base = keep
        self.found = {s for s in self.found if s >= keep}


class _Tally:
    """Counts the chunks of a stream; completes the usage report once they are all out."""

    def __init__(self, settings: LumberSettings, usage: UsageReport) -> None:
        self.settings, self.usage = settings, usage
        self.started, self.count, self.largest = time.perf_counter(), 0, 0

    def add(self, chunk: Chunk) -> Chunk:
        self.count += 1
        self.largest = max(self.largest, chunk.token_count)
        return chunk

    def close(self) -> None:
        if self.settings.embed_cap is not None:
            warn_if_truncated([self.largest], self.settings.embed_cap)
        self.usage.add(chunks=self.count, wall_s=time.perf_counter() - self.started)
        self.usage.token_counter = counter_name(self.settings.count)


def finish_stream(settings: LumberSettings, chunks: Iterator[Chunk], usage: UsageReport) -> Iterator[Chunk]:
    """Pass ``chunks`` through; once they are all out, complete ``usage`` (chunks, wall time, counter)."""
    tally = _Tally(settings, usage)
    for chunk in chunks:
        yield tally.add(chunk)
    tally.close()


async def afinish_stream(
    settings: LumberSettings, chunks: AsyncIterator[Chunk], usage: UsageReport
) -> AsyncIterator[Chunk]:
    """Async :func:`finish_stream`."""
    tally = _Tally(settings, usage)
    async for chunk in chunks:
        yield tally.add(chunk)
    tally.close()
