"""Settings every test shares: offline model hub, one torch thread, tiktoken's offline cache, hypothesis profiles."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from chop_integrations.text.tokens import _cached_file

_cl100k = _cached_file("cl100k_base")
if _cl100k is not None:
    # Third-party libraries (LangChain, chonkie) load tiktoken themselves: point them at the offline cache.
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(_cl100k.parent))

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
