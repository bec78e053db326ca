"""Crossing between sync and async code without leaking threads or hanging at shutdown.

:func:`run_sync` runs a coroutine from sync code (inside Jupyter's running loop too) and
:func:`iterate_sync` an async iterator: the sync entry points are these around the async core.
:func:`gather_limited` awaits many with a concurrency limit, :func:`acall_in_daemon_thread` gives
a sync-only call an async path that a timeout can abandon, :func:`aiterate_in_thread` a sync
iterable. Nothing here knows about models or engines.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import TypeVar

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

    def target() -> None:
        try:
            result.append(asyncio.run(_as_coroutine(awaitable, caller)))
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
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def acall_in_daemon_thread(fn: Callable[..., _T], *args: object) -> _T:
    """Await ``fn(*args)`` run in a daemon thread (unlike :func:`asyncio.to_thread`).

    ``asyncio.to_thread`` uses the loop's executor, which ``asyncio.run`` joins
    at shutdown: one hung sync call then hangs the whole run even after its
    timeout fired. A daemon thread is abandoned instead. Use this to give a
    sync-only model an async path.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: object, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def target() -> None:
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

    threading.Thread(target=target, name="chop-llm-call", daemon=True).start()
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
