"""LumberChunker: LLM-chosen chunk boundaries, the paper's procedure and a cheaper, faster default.

How the two modes work is told in :mod:`chop_integrations._lumber`.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .._checks import batch, doc_context
from .._deciders import DocContext, Synchronous, as_async
from .._defaults import DEFAULT_MAX_TOKENS
from .._errors import ConfigurationError
from .._llm import progress
from .._llm.aio import cancel_and_wait, gather_limited, run_sync
from .._llm.engine import Engine, Streamed
from .._llm.usage import UsageReport
from .._text.embedding_limit import warn_if_truncated
from .._text.run_memo import TextMemo, run_counter
from .._text.token_sums import joined_count, sums_at_lines
from .._text.tokens import PIECE_CHARS, TokenCounter, counter_name
from .._types import Chunk, Unit
from .config import LumberConfig, LumberSettings
from .plans import PaperPlan, WindowPlan, build_chunks, longest_first
from .prompts import CleanedDecider, EstimatingDecider, LLMTopicShift, LumberWindow
from .stream import QUEUED_PER_SLOT, Answer, AsyncAnswer, WindowStream, afinish_stream, finish_stream

__all__ = ["DEFAULT_MAX_TOKENS", "LumberChunker", "LumberConfig"]


class LumberChunker(Engine):
    """Chunks documents at topic shifts chosen by an LLM (or the offline decider).

    Args:
        llm: Any LLM :func:`~chop_integrations.as_llm` accepts (a callable, a LangChain
            chat model, a LlamaIndex LLM, an object with ``complete``/``acomplete``), or
            ``None`` for the offline decider (no calls, no network).
        config: A :class:`~chop_integrations.LumberConfig` (every option, its
            description and default), or ``None`` for the defaults.
        **options: :class:`~chop_integrations.LumberConfig` fields by name
            (``max_tokens=200``, ``mode="paper"``, ``cache=...``): they build the config, or
            override the given one's fields.

    The chunker holds the config as :attr:`config` and what it implies, computed once, as
    :attr:`settings` (a :class:`~chop_integrations._lumber.config.LumberSettings`: ``max_tokens`` capped
    by the embedder's limit, ``window_tokens``, ``target_tokens`` and ``min_tokens`` with their defaults
    resolved, the token counter). With an LLM the windows are asked
    concurrently, up to ``max_concurrency`` at once, a sync-only model from worker threads. The chunks do
    not depend on the order answers arrive in, but a scripted fake that answers from a list (not from the
    prompt) hands its answers out in that order: use ``max_concurrency=1`` for such a script. An invalid value
    or an unknown option raises ``ConfigurationError``, naming the valid ones.
    """

    name = "lumber"
    config_class = LumberConfig
    config: LumberConfig

    def __init__(self, llm: Any = None, config: LumberConfig | None = None, **options: Any) -> None:
        super().__init__(llm, config, **options)
        self.settings = LumberSettings.of(self.config)

    @property
    def streams(self) -> bool:
        """Offline in default mode: the stream is the batch run itself, chunk for chunk."""
        return self._in_turn

    @property
    def _in_turn(self) -> bool:
        """True for the offline default mode: nothing to wait for, so windows are answered in turn, with no loop."""
        return self.llm is None and self.config.mode == "default"

    def _open_stream(self, metadata: dict[str, Any] | None) -> Streamed:
        """One document's :class:`~.stream.WindowStream` and its decider (default mode only).

        Raises:
            ConfigurationError: In paper mode (its groups follow the answers, one at a time).
        """
        if self.config.mode != "default":
            raise ConfigurationError("chunk_stream needs mode='default'; paper mode reads the whole document")
        settings, doc, usage = self.settings, doc_context("", metadata, 0), UsageReport(documents=1)
        self.last_usage = usage
        count, fixed = run_counter(settings.count), self.llm is not None  # the stream's own counter and memory
        stream = WindowStream(settings, doc, usage, fixed=fixed, count=count, memo=TextMemo())
        decider = self._decider(usage)
        runner = getattr(decider, "runner", None)
        if runner is not None:  # the config's callback and limits watch the stream's calls (no context carries them)
            meter = self.config.meter()
            runner.meters = () if meter is None else (meter,)
        return Streamed(
            run=lambda pieces: finish_stream(settings, stream.run(pieces, decider.choose), usage),
            arun=lambda pieces: afinish_stream(
                settings, stream.arun(pieces, as_async(decider, "achoose").achoose, workers=self.max_concurrency), usage
            ),
        )

    def estimate(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None = None) -> UsageReport:
        """Predict calls and prompt tokens without calling the LLM (a dry run).

        Every prompt the run would send is rendered and counted. In default mode
        the windows do not depend on the answers, so calls and prompt tokens are
        exact (for answers valid at the first try); chunks follow the offline
        decider's answers, and completion tokens are a rough guess. In paper
        mode, where the cost depends on where the model cuts, the simulated
        answer is the group's last offline boundary (the model is asked to avoid
        tiny groups), which comes close to the original's measured
        amplification of about 1.45.
        """
        usage, started = UsageReport(estimated=True), time.perf_counter()
        settings, mode = self.settings, self.config.mode
        decider = EstimatingDecider(
            settings.fallback,
            mode=mode,
            usage=usage,
            max_tokens=settings.max_tokens,
            context_tokens=settings.context_tokens,
            count=settings.count,
        )
        docs = batch(texts, metadatas)
        if mode == "paper":
            results = run_sync(self._apaper(docs, Synchronous(decider).achoose, usage))
        else:
            results = [self._windows_in_turn(doc, decider.choose, usage) for doc in docs]
        usage.add(chunks=sum(len(r) for r in results), wall_s=time.perf_counter() - started)
        usage.token_counter = counter_name(settings.count)
        return usage

    # -- running ------------------------------------------------------------------------------

    def _chunk_docs(self, docs: list[DocContext]) -> list[list[Chunk]]:
        """Offline in default mode, the windows in turn with no loop (nothing to wait for); else the core."""
        if self._in_turn:
            usage, started = UsageReport(), time.perf_counter()
            self.last_usage = usage
            choose, run = self._decider(usage).choose, (run_counter(self.settings.count), TextMemo())
            return self._finish([self._windows_in_turn(doc, choose, usage, run) for doc in docs], usage, started)
        return super()._chunk_docs(docs)

    async def _achunk_docs(self, docs: list[DocContext]) -> list[list[Chunk]]:
        """Every run's path: paper-mode groups, or default-mode windows asked concurrently (offline: in turn)."""
        if self._in_turn:
            return self._chunk_docs(docs)
        usage, started = UsageReport(), time.perf_counter()
        self.last_usage, decider = usage, as_async(self._decider(usage), "achoose")
        run = self._apaper if self.config.mode == "paper" else self._awindows
        with self.config.metered():
            return self._finish(await run(docs, decider.achoose, usage), usage, started)

    def _windows_in_turn(
        self, doc: DocContext, choose: Answer, usage: UsageReport, run: tuple[TokenCounter, TextMemo] | None = None
    ) -> list[Chunk]:
        """Default mode, one window after another: the stream fed the text in pieces of ``PIECE_CHARS``.

        Pieces keep the units the stream holds bounded (fed whole, a large document's units were all held
        and sliced again at every settled chunk); the chunks are the same, as for any pieces. ``run`` is
        the batch run's counter and memory of blocks (:mod:`~chop_integrations._text.run_memo`: a text that
        comes back in a later document is read once); without it, the chunker's counter.
        """
        text = doc.text
        pieces = (text[i : i + PIECE_CHARS] for i in range(0, len(text), PIECE_CHARS))
        count, memo = run if run is not None else (None, None)
        fixed = self.llm is not None  # an estimate of an LLM run keeps the sections its answers name
        stream = WindowStream(self.settings, doc, usage, fixed=fixed, count_tokens=False, count=count, memo=memo)
        chunks = list(stream.run(pieces, choose))
        parts = [(c.text, c.token_count) for c in chunks]
        usage.add(documents=1, document_tokens=self._document_tokens(text, parts, count))
        return chunks

    async def _apaper(self, docs: list[DocContext], ask: AsyncAnswer, usage: UsageReport) -> list[list[Chunk]]:
        """Paper mode: sequential within a document, documents concurrently, longest first."""

        async def one(doc: DocContext) -> list[Chunk]:
            units = self._units(doc, usage)
            config = self.config
            plan = PaperPlan(
                doc,
                units,
                max_tokens=self.settings.max_tokens,
                theta=config.theta,
                restart=config.paper_restart,
                count=self.settings.count,
            )
            while (window := plan.next_window()) is not None:
                plan.apply(await ask(window))
            return self._build(doc, plan.units, plan.starts)

        order = longest_first(docs)
        factories: list[Callable[[], Awaitable[list[Chunk]]]] = [functools.partial(one, docs[i]) for i in order]
        done = await gather_limited(factories, self.max_concurrency)
        results: list[list[Chunk]] = [[] for _ in docs]
        for index, chunks in zip(order, done, strict=True):
            results[index] = chunks
        return results

    async def _awindows(self, docs: list[DocContext], ask: AsyncAnswer, usage: UsageReport) -> list[list[Chunk]]:
        """Default mode: every window of every document asked concurrently, then merged per document.

        Documents are segmented longest first, each one's windows launched as
        soon as it is segmented, so calls overlap the CPU work of the next
        documents; at most ``QUEUED_PER_SLOT * max_concurrency`` windows wait at
        a time. Segmentation and chunk building (token counting) run in worker
        threads, so the event loop keeps answering calls meanwhile. Under
        ``on_llm_error="raise"`` the first error cancels the rest.
        """
        slots = asyncio.Semaphore(self.max_concurrency)
        results: list[list[Chunk]] = [[] for _ in docs]
        tasks: list[asyncio.Future[Any]] = []
        queued: set[asyncio.Future[Any]] = set()

        async def limited(window: LumberWindow) -> list[int]:
            async with slots:
                return await ask(window)

        async def finish(index: int, plan: WindowPlan, asks: Sequence[asyncio.Future[list[int]]]) -> None:
            answers = await asyncio.gather(*asks)
            results[index] = await asyncio.to_thread(self._build, plan.doc, plan.units, plan.merge(answers))

        try:
            for index in longest_first(docs):
                while len(queued) >= QUEUED_PER_SLOT * self.max_concurrency:
                    done, _ = await asyncio.wait(queued, return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        task.result()  # an error under "raise" stops the run here
                plan = await asyncio.to_thread(self._window_plan, docs[index], usage)
                progress.plan(decisions=len(plan.windows))  # one decision per window, known before any call
                asks = [asyncio.ensure_future(limited(window)) for window in plan.windows]
                for task in asks:
                    queued.add(task)
                    task.add_done_callback(queued.discard)
                tasks.extend(asks)
                tasks.append(asyncio.ensure_future(finish(index, plan, asks)))
                await asyncio.sleep(0)  # let the new windows take free slots before the next document
            await asyncio.gather(*tasks)
        except BaseException:
            await cancel_and_wait(tasks)
            raise
        return results

    def _finish(self, results: list[list[Chunk]], usage: UsageReport, started: float) -> list[list[Chunk]]:
        if self.settings.embed_cap is not None:
            warn_if_truncated((c.token_count for chunks in results for c in chunks), self.settings.embed_cap)
        usage.add(chunks=sum(len(r) for r in results), wall_s=time.perf_counter() - started)
        usage.token_counter = counter_name(self.settings.count)
        self.last_usage = usage
        return results

    # -- parts ----------------------------------------------------------------------------------

    def _decider(self, usage: UsageReport) -> Any:
        """The run's decider: the offline one, answers cleaned (sync), or the LLM's (async)."""
        settings, mode = self.settings, self.config.mode
        if self.llm is None:
            return CleanedDecider(settings.fallback, mode)
        runner = self.config.runner(self.llm, usage=usage, token_counter=settings.count)
        return LLMTopicShift(
            runner,
            mode=mode,
            on_llm_error=self.on_llm_error,
            fallback=settings.fallback,
            max_tokens=settings.max_tokens,
            context_tokens=settings.context_tokens,
        )

    def _units(self, doc: DocContext, usage: UsageReport) -> list[Unit]:
        from .._text.segmentation import split_units

        units = split_units(doc.text, max_tokens=self.settings.max_tokens, token_counter=self.settings.count)
        usage.add(documents=1, document_tokens=self._document_tokens(doc.text, [(u.text, u.tokens) for u in units]))
        return units

    def _document_tokens(self, text: str, parts: list[tuple[str, int]], count: TokenCounter | None = None) -> int:
        """Tokens of ``text``, which ``parts`` (units' or chunks' texts and counts) cover in order.

        A sum of the parts' counts where the counter allows (:func:`joined_count`), else ``text`` counted;
        ``count``: the run's counter (default: the chunker's).
        """
        count = self.settings.count if count is None else count
        if not text:
            return 0
        if not sums_at_lines(count):
            return count(text)
        return joined_count(count, [p[0] for p in parts], [p[1] for p in parts])

    def _window_plan(self, doc: DocContext, usage: UsageReport) -> WindowPlan:
        return WindowPlan(
            doc,
            self._units(doc, usage),
            max_tokens=self.settings.max_tokens,
            window_tokens=self.settings.window_tokens,
            context_tokens=self.settings.context_tokens,
            target_tokens=self.settings.target_tokens,
            min_tokens=self.settings.min_tokens,
            answers_fixed=self.llm is not None,
        )

    def _build(self, doc: DocContext, units: list[Unit], starts: Sequence[int]) -> list[Chunk]:
        """Chunks with exact offsets from chunk starts (see :func:`~.plans.build_chunks`)."""
        return build_chunks(doc, units, starts, max_tokens=self.settings.max_tokens, count=self.settings.count)
