"""What watching a run costs: CHOP on three manuals with a simulated model, unwatched and watched.

``python benchmarks/progress/overhead.py MANUALS_DIR [REPEATS]`` (the evaluation data's ``manuals`` folder)
prints the median seconds of each and their ratio, measured in the same run, with no latency (CPU only) and
20 ms per call: unwatched; with an ``on_progress`` callback (which makes the engine count its plan, as a dry
run does, before its first call); with ``max_calls`` only (every call reserved and released, no plan).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from chop_integrations import CHOPChunker
from chop_integrations.testing import SimulatedLLM


def seconds(manuals: list[Path], repeats: int, latency_ms: float, **options: object) -> float:
    """Median wall seconds of ``chunk_many`` over the manuals, pair decisions (one call per chunk)."""
    texts = [p.read_text(encoding="utf-8") for p in manuals]
    metas = [{"source": p.name} for p in manuals]
    times = []
    for _ in range(repeats):
        chop = CHOPChunker(SimulatedLLM(latency_ms=latency_ms), decisions="pair", **options)
        start = time.perf_counter()
        chop.chunk_many(texts, metadatas=metas)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


if __name__ == "__main__":
    manuals = sorted(Path(sys.argv[1]).glob("*.txt"))[:3]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    seen: list[object] = []
    for latency in (0.0, 20.0):
        plain = seconds(manuals, repeats, latency)
        watched = seconds(manuals, repeats, latency, on_progress=seen.append)
        limited = seconds(manuals, repeats, latency, max_calls=10**9)
        print(
            f"{len(manuals)} manuals, {latency:g} ms per call, median of {repeats}: unwatched {plain:.3f} s; "
            f"on_progress {watched:.3f} s ({watched / plain:.2f}x); max_calls only {limited:.3f} s "
            f"({limited / plain:.2f}x)"
        )
