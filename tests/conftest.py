"""Settings every test shares: offline model hub, one torch thread, tiktoken's offline cache, hypothesis profiles."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from chop_integrations.testing import share_tiktoken_cache

share_tiktoken_cache()  # LangChain and chonkie load tiktoken themselves: point them at the offline copy

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
