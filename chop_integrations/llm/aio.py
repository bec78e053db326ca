"""Crossing between sync and async code without leaking threads or hanging at shutdown.

:func:`run_sync` runs a coroutine from sync code (inside Jupyter's running loop too), :func:`gather_limited`
awaits many with a concurrency limit, :func:`acall_in_daemon_thread` gives a sync-only call an async path
that a timeout can abandon. Nothing here knows about models or engines.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TypeVar

from ..errors import ConfigurationError
from .usage import CALLER_THREAD

_T = TypeVar("_T")
_A = TypeVar("_A")


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
    """Await many coroutine factories with at most ``limit`` running at once, keeping order."""
    if limit < 1:
        raise ConfigurationError(f"max_concurrency must be >= 1, got {limit}")
    semaphore = asyncio.Semaphore(limit)

    async def one(factory: Callable[[], Awaitable[_T]]) -> _T:
        async with semaphore:
            return await factory()

    return list(await asyncio.gather(*(one(f) for f in factories)))


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


def map_in_threads(fn: Callable[[_A], _T], items: Sequence[_A], *, workers: int, name: str) -> list[_T]:
    """``[fn(item) for item in items]`` from a pool of ``workers`` threads, in order; the first error cancels the rest.

    Each call runs in a copy of the caller's context, so tracing callbacks see their run.
    """
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        futures = [pool.submit(contextvars.copy_context().run, fn, item) for item in items]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise
