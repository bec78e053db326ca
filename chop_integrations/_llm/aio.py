"""Crossing between sync and async code without leaking threads or hanging at shutdown.

:func:`run_sync` runs a coroutine from sync code (inside Jupyter's running loop too) and
:func:`iterate_sync` an async iterator: the sync entry points are these around the async core.
:func:`gather_limited` awaits many with a concurrency limit, :func:`acall_in_daemon_thread` gives
a sync-only call an async path that a timeout can abandon (on a process-wide pool of at most
:data:`MAX_CALL_THREADS` daemon threads), :func:`aiterate_in_thread` a sync iterable. Nothing here
knows about models or engines.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import queue
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from .._errors import ConfigurationError
from .usage import CALLER_THREAD

_T = TypeVar("_T")


def run_sync(awaitable: Awaitable[_T]) -> _T:
    """Run an awaitable to completion from sync code, even inside a running loop (Jupyter).

    With no running loop this is ``asyncio.run``; inside one, the coroutine runs
    on a fresh loop in a worker thread, so sync entry points work in notebooks.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_as_coroutine(awaitable))
    result: list[_T] = []
    error: list[BaseException] = []
    caller = CALLER_THREAD.get() or threading.get_ident()
    context = contextvars.copy_context()  # the caller's context goes along (a progress meter watching the run)

    def target() -> None:
        try:
            result.append(context.run(asyncio.run, _as_coroutine(awaitable, caller)))
        except BaseException as exc:
            error.append(exc)

    thread = threading.Thread(target=target, name="chop-run-sync")
    thread.start()
    thread.join()
    if error:
        raise error[0]
    return result[0]


#: True inside the short-lived event loop :func:`run_sync` creates. Wrappers of clients that
#: cache loop-bound async connections (``ChatOpenAI``'s shared httpx client) use their sync
#: client in worker threads there, because the loop is gone before the next call.
IN_RUN_SYNC: ContextVar[bool] = ContextVar("chop_in_run_sync", default=False)


async def _as_coroutine(awaitable: Awaitable[_T], caller: int | None = None) -> _T:
    IN_RUN_SYNC.set(True)
    if caller is not None:  # the run's usage report belongs to the thread that called the sync entry point
        CALLER_THREAD.set(caller)
    return await awaitable


async def gather_limited(factories: Sequence[Callable[[], Awaitable[_T]]], limit: int) -> list[_T]:
    """Await many coroutine factories with at most ``limit`` running at once, keeping order.

    The first error (or a cancellation of the caller) cancels every one still pending or
    running, and they have ended before it propagates: once this raised, none of them starts
    anything more (no model call after ``on_llm_error="raise"`` fired).
    """
    if limit < 1:
        raise ConfigurationError(f"max_concurrency must be >= 1, got {limit}")
    semaphore = asyncio.Semaphore(limit)

    async def one(factory: Callable[[], Awaitable[_T]]) -> _T:
        async with semaphore:
            return await factory()

    tasks = [asyncio.ensure_future(one(f)) for f in factories]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        await cancel_and_wait(tasks)
        raise


async def cancel_and_wait(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel every task and wait until all have ended, their errors dropped: after an error nothing runs on."""
    pending = list(tasks)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


#: Most threads that run sync model calls at once in the whole process (:class:`CallThreads`). A hung
#: sync model can hold a thread for good (Python cannot stop one); this bounds how many it can hold.
MAX_CALL_THREADS = 64
#: Seconds an idle thread of the pool waits for work before it ends.
IDLE_THREAD_SECONDS = 30.0

logger = logging.getLogger("chop_integrations")


class CallThreads:
    """A process-wide pool of at most ``cap`` daemon threads for sync calls (:func:`acall_in_daemon_thread`).

    Daemon threads, unlike :func:`asyncio.to_thread`'s executor, which ``asyncio.run`` joins at
    shutdown (one hung call would then hold the run long after its timeout). Threads start on
    demand, up to ``cap``, and end after :data:`IDLE_THREAD_SECONDS` without work. When every
    thread is busy (hung calls included), new jobs wait in a queue: a caller's timeout then fires
    as usual, and the job it abandoned is dropped unrun. So timed-out calls to a hung model cost
    at most ``cap`` threads, run after run, never one more per call.

    Args:
        cap: Most threads at once.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._threads = 0
        self._busy = 0
        self._queued = 0
        self._warned = False

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job`` on a thread of the pool, starting one if none is free and the cap allows."""
        with self._lock:
            self._queued += 1
            start = self._threads - self._busy < self._queued and self._threads < self.cap
            if start:
                self._threads += 1
            full = self._threads >= self.cap and self._busy >= self._threads
            warn, self._warned = full and not self._warned, self._warned or full
        if warn:
            logger.warning(
                "all %d threads for sync LLM calls are busy (calls still running after their timeout?); "
                "new calls wait for a free one",
                self.cap,
            )
        self._jobs.put(job)
        if start:
            threading.Thread(target=self._work, name="chop-llm-call", daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=IDLE_THREAD_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._queued == 0:
                        self._threads -= 1
                        return
                continue
            with self._lock:
                self._queued -= 1
                self._busy += 1
            try:
                job()
            finally:
                with self._lock:
                    self._busy -= 1
                    self._warned = self._warned and self._busy >= self._threads


#: The process's pool for sync calls.
CALL_THREADS = CallThreads(MAX_CALL_THREADS)


async def acall_in_daemon_thread(fn: Callable[..., _T], *args: object) -> _T:
    """Await ``fn(*args)`` run on a daemon thread of :data:`CALL_THREADS` (bounded, never joined at shutdown).

    Use this to give a sync-only model an async path: a timeout can abandon the call. A call
    abandoned (cancelled) before a thread took it is never made.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()
    context = contextvars.copy_context()
    abandoned = threading.Event()
    future.add_done_callback(lambda done: abandoned.set() if done.cancelled() else None)

    def settle(value: object, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def job() -> None:
        if abandoned.is_set():
            return
        value: object = None
        error: BaseException | None = None
        try:
            value = context.run(fn, *args)
        except BaseException as exc:
            error = exc
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop is closed: nobody waits for this answer any more
            pass

    CALL_THREADS.submit(job)
    return await future


def iterate_sync(items: AsyncIterator[_T]) -> Iterator[_T]:
    """Iterate an async iterator from sync code (inside a running loop too, as in Jupyter).

    The iterator runs on a private event loop in a worker thread for the whole iteration, so
    what it started (calls in flight) goes on while the caller handles an item; it is advanced
    only when the caller asks for the next item. Closing the generator early closes the
    iterator and cancels what it left running. As in :func:`run_sync`, ``IN_RUN_SYNC`` is set
    there and the run's usage report belongs to the calling thread.
    """
    caller = CALLER_THREAD.get() or threading.get_ident()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="chop-iterate-sync", daemon=True)
    thread.start()
    end = object()

    async def step() -> object:
        IN_RUN_SYNC.set(True)
        CALLER_THREAD.set(caller)
        return await anext(items, end)

    try:
        while (item := asyncio.run_coroutine_threadsafe(step(), loop).result()) is not end:
            yield item  # type: ignore[misc]
    finally:
        asyncio.run_coroutine_threadsafe(_close(items), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


async def _close(items: AsyncIterator[object]) -> None:
    """Cancel the tasks left on the running loop, close ``items``, then the loop's generators and executor."""
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not current]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
    close = getattr(items, "aclose", None)
    if close is not None:
        await close()
    loop = asyncio.get_running_loop()
    await loop.shutdown_asyncgens()
    await loop.shutdown_default_executor()


async def aiterate_in_thread(items: Iterable[_T]) -> AsyncIterator[_T]:
    """A sync iterable as an async iterator: each item is read in a worker thread, never blocking the loop."""
    source = iter(items)
    end = object()
    while (item := await asyncio.to_thread(next, source, end)) is not end:
        yield item  # type: ignore[misc]
