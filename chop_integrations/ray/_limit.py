"""One limit on LLM calls in flight across every actor of a Ray cluster.

Each engine bounds its own calls (``max_concurrency``), per actor; W actors would send up to W times that.
:class:`LLMLimit` starts one small async Ray actor holding a semaphore; :meth:`LLMLimit.wrap` turns a model
into one whose every call first takes a slot there (like :class:`~chop_integrations._llm.config.BoundedLLM`,
but for the whole cluster). The wrapper keeps the model's identity, so cache keys do not change.

A slot is returned when the call ends, however it ends. A caller cancelled while it waits (the engine's
``timeout``) hands back the slot as soon as it is granted, so cancelled waits never leak slots. An actor that
dies mid-call loses its slots: the limit is a cap, and a restart of the run starts a fresh one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ray

from .._errors import ConfigurationError

__all__ = ["LLMLimit", "RayBoundedLLM"]


class _Slots:
    """The slots, held by one async actor (its methods run on one event loop: no locks needed)."""

    def __init__(self, limit: int) -> None:
        self._semaphore = asyncio.Semaphore(limit)
        self.limit = limit
        self.in_flight = 0
        self.peak = 0
        self.granted = 0

    async def acquire(self) -> bool:
        await self._semaphore.acquire()
        self.in_flight += 1
        self.granted += 1
        self.peak = max(self.peak, self.in_flight)
        return True

    async def release(self, _granted: Any = None) -> None:
        # Passed the ObjectRef of an abandoned acquire, Ray calls this only once that acquire was granted.
        self.in_flight -= 1
        self._semaphore.release()

    async def stats(self) -> dict[str, int]:
        return {"limit": self.limit, "in_flight": self.in_flight, "peak": self.peak, "granted": self.granted}


#: The slots as a Ray actor class (no CPU: it only counts; enough concurrency for every waiting caller).
_remote: Any = ray.remote
_Semaphore: Any = _remote(num_cpus=0, max_concurrency=100_000)(_Slots)


class LLMLimit:
    """A cluster-wide limit on LLM calls in flight, shared by every actor that holds (a copy of) it.

    Create it in the driver after ``ray.init()`` and pass it to :func:`~chop_integrations.ray.chunk_dataset`
    (``llm_limit=``) or :class:`~chop_integrations.ray.ChunkBatches`; it pickles as a handle to its actor.

    Args:
        limit: Calls in flight at most, over all actors.
        name: Give the actor a name to share one limit between jobs (``get_if_exists``); ``None``: private.
        namespace: The Ray namespace of a named limit.

    Raises:
        ConfigurationError: When ``limit`` is not a positive int.
    """

    def __init__(self, limit: int, *, name: str | None = None, namespace: str | None = None) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigurationError(f"limit must be a positive int (calls in flight), got {limit!r}")
        self.limit = limit
        options: dict[str, Any] = {}
        if name is not None:
            options.update(name=name, namespace=namespace, get_if_exists=True)
        self.handle = _Semaphore.options(**options).remote(limit)

    def wrap(self, llm: Any) -> RayBoundedLLM:
        """``llm`` (an LLM-protocol object) with every call going through this limit."""
        return RayBoundedLLM(llm, self.handle)

    def stats(self) -> dict[str, int]:
        """``limit``, ``in_flight`` now, the ``peak`` in flight so far, and slots ``granted`` so far."""
        return dict(ray.get(self.handle.stats.remote()))


class RayBoundedLLM:
    """An LLM whose every call holds a slot of a cluster-wide :class:`LLMLimit` (built by :meth:`LLMLimit.wrap`).

    Structured output (``complete_json``), ``retries_itself`` and ``retry_attempts`` of the wrapped model pass
    through, so the engines ask it exactly as they would ask the model.

    Args:
        llm: The model (an LLM-protocol object).
        handle: The limit's actor.
    """

    def __init__(self, llm: Any, handle: Any) -> None:
        self.llm = llm
        self.handle = handle
        self.model_id: str = llm.model_id
        for name in ("retries_itself", "retry_attempts"):
            if hasattr(llm, name):
                setattr(self, name, getattr(llm, name))
        if callable(getattr(llm, "complete_json", None)) and callable(getattr(llm, "acomplete_json", None)):
            self.complete_json = self._complete_json
            self.acomplete_json = self._acomplete_json

    def complete(self, prompt: str) -> str:
        """Answer ``prompt`` once a slot is free."""
        ray.get(self.handle.acquire.remote())
        try:
            return str(self.llm.complete(prompt))
        finally:
            self.handle.release.remote()

    async def acomplete(self, prompt: str) -> str:
        """Answer ``prompt`` asynchronously once a slot is free."""
        await self._acquire()
        try:
            return str(await self.llm.acomplete(prompt))
        finally:
            self.handle.release.remote()

    def _complete_json(self, prompt: str, schema: Any) -> Any:
        ray.get(self.handle.acquire.remote())
        try:
            return self.llm.complete_json(prompt, schema)
        finally:
            self.handle.release.remote()

    async def _acomplete_json(self, prompt: str, schema: Any) -> Any:
        await self._acquire()
        try:
            return await self.llm.acomplete_json(prompt, schema)
        finally:
            self.handle.release.remote()

    async def _acquire(self) -> None:
        granted = self.handle.acquire.remote()
        try:
            await granted
        except asyncio.CancelledError:
            self.handle.release.remote(granted)  # runs once the slot is granted: nothing leaks
            raise

    def __repr__(self) -> str:
        return f"RayBoundedLLM({self.llm!r})"
