"""``chunk_dataset(..., show_progress=True)`` on a local Ray, simulated model: the actors' bars as the driver shows.

Run it from the repository root; ``ray.txt`` holds its output.
"""

import ray

from chop_integrations.ray import chunk_dataset
from chop_integrations.testing import SimulatedLLM

ray.init(num_cpus=2, include_dashboard=False)
texts = {
    f"nimbus_ac-{i}.txt": "\n\n".join(f"{j}. Part {j}\n\nRinse the AC-{i} filter in warm water." for j in range(30))
    for i in range(2)
}
docs = ray.data.from_items([{"source": name, "text": text} for name, text in texts.items()])
rows = chunk_dataset(
    docs,
    engine="chop",
    workers=2,
    batch_size=1,
    llm_factory=lambda: SimulatedLLM(latency_ms=30),
    decisions="pair",
    max_tokens=30,
    prefix="fixed",
    show_progress=True,
)
print("rows", rows.count())
ray.shutdown()
