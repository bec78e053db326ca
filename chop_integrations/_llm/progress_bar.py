"""Showing a run's progress: a tqdm bar of its decisions on a terminal, and the meter a caller asked for.

:func:`meter_for` makes the meter a caller asked for (a bar, an ``on_progress`` callback, limits: see
:mod:`~chop_integrations._llm.progress`), or none when nothing was asked; :func:`watched` meters a block with
the adapters' ``show_progress`` bar. A bar draws only where someone looks (:func:`terminal`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

from .progress import Listener, Progress, ProgressMeter, metering

__all__ = ["ProgressBar", "meter_for", "terminal", "watched"]


def terminal() -> bool:
    """True when stderr is a terminal (or a notebook draws the bar): never in logs, pipes or CI."""
    stream = sys.stderr
    try:
        if stream is not None and stream.isatty():
            return True
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return False
    return "ipykernel" in sys.modules


class ProgressBar:
    """A tqdm bar over a run's decisions (on stderr), driven by a meter's :class:`Progress`.

    It shows decisions done of planned, elapsed and time left (tqdm's), calls, retries, fallbacks and
    tokens against the estimate. Use it as a context manager around the run; it draws only on a
    terminal (:func:`terminal`).

    Args:
        description: The bar's label.
    """

    def __init__(self, description: str = "LLM decisions") -> None:
        from tqdm.auto import tqdm

        self.enabled = terminal()
        self.bar: Any = tqdm(
            total=None,
            desc=description,
            unit="decision",
            file=sys.stderr,
            disable=not self.enabled,
            dynamic_ncols=True,
            leave=True,
        )
        self.last = Progress()
        self.closed = False
        self._lock = threading.Lock()

    def __call__(self, progress: Progress) -> None:
        """Show ``progress`` (tqdm redraws at most about ten times a second)."""
        if not self.enabled:
            return
        with self._lock:
            self.last = progress
            planned = progress.planned_decisions  # 0: unknown (paper mode plans nothing): a count without a total
            total = max(planned, progress.decisions) if planned else None
            if total != self.bar.total:
                self.bar.total = total
            self.bar.set_postfix_str(progress.describe(), refresh=False)
            self.bar.update(progress.decisions - self.bar.n)

    def close(self, *, finished: bool = False) -> None:
        """Draw the last counts and end the bar; ``finished``: the run is done, so what it did is the whole (100%)."""
        if self.closed:
            return
        self.closed = True
        if self.enabled:
            with self._lock:
                if finished and self.bar.n:
                    self.bar.total = self.bar.n
                self.bar.set_postfix_str(self.last.describe(), refresh=False)
                self.bar.refresh()
        self.bar.close()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(finished=kind is None)


def meter_for(
    *,
    show: bool = False,
    description: str = "LLM decisions",
    on_progress: Listener | None = None,
    max_calls: int | None = None,
    max_tokens: int | None = None,
) -> tuple[ProgressMeter | None, ProgressBar | None]:
    """A meter for what the caller asked (a bar when ``show`` on a terminal, a callback, a limit), or None."""
    bar = ProgressBar(description) if show and terminal() else None
    listeners = tuple(f for f in (bar, on_progress) if f is not None)
    if not listeners and max_calls is None and max_tokens is None:
        return None, None
    return ProgressMeter(listeners=listeners, max_calls=max_calls, max_tokens=max_tokens), bar


@contextlib.contextmanager
def watched(*, show: bool = False, description: str = "LLM decisions") -> Iterator[ProgressMeter | None]:
    """Meter the block with a bar (closed at the end) when ``show`` on a terminal; nothing otherwise.

    The adapters' ``show_progress`` switches; an engine's ``on_progress`` and limits are its config's
    (:meth:`~chop_integrations._llm.options.EngineConfig.metered`).
    """
    meter, bar = meter_for(show=show, description=description)
    finished = False
    try:
        with metering(meter):
            yield meter
        finished = True
    finally:
        if bar is not None:
            bar.close(finished=finished)
