"""An actor's LLM progress, drawn the way Ray Data draws its own: a ``tqdm_ray`` bar the driver shows.

With ``chunk_dataset(..., show_progress=True)`` each actor meters every batch it chunks (the same counts as
``on_progress`` gets: :mod:`chop_integrations._llm.progress`) and reports them through
``ray.experimental.tqdm_ray``, the distributed tqdm Ray Data's own bars use: the driver draws one line per
actor (its decisions done of planned, calls and tokens), however many processes and machines run them.
"""

from __future__ import annotations

from typing import Any

from .._llm.progress import Progress, ProgressMeter

__all__ = ["ActorProgress"]


class ActorProgress:
    """A meter for one actor's batches whose counts go to a Ray progress bar (``tqdm_ray``).

    Counts add up over the actor's batches; the bar's total grows with each batch's plan.

    Args:
        description: The bar's label (the engine's name).
        bar: The bar to draw on; None: a new ``ray.experimental.tqdm_ray.tqdm``.
    """

    def __init__(self, description: str, bar: Any = None) -> None:
        if bar is None:
            from ray.experimental import tqdm_ray

            bar = tqdm_ray.tqdm(desc=description, total=0, unit="decision")
        self.description = description
        self.bar = bar
        self.meter = ProgressMeter(listeners=(self.show,))

    def flush(self) -> None:
        """Send the counts now (at a batch's end): ``tqdm_ray`` sends at most one update a second otherwise."""
        dump = getattr(self.bar, "_dump_state", None)  # tqdm_ray's own forced send (what its close() calls)
        if callable(dump):
            dump(force_flush=True)
        else:
            self.bar.refresh()

    def show(self, progress: Progress) -> None:
        """Report ``progress`` on the bar (``tqdm_ray`` sends at most one update a second to the driver)."""
        self.bar.total = max(progress.planned_decisions, progress.decisions)
        self.bar.set_description(f"{self.description}: {progress.describe()}")
        self.bar.update(progress.decisions - self.bar.n)
