"""Every engine config field reaches the engine an actor builds (:func:`chop_integrations.ray.build_engine`).

The fields are read from the configs, so a field added later is walked here too (and fails until
``CHANGED`` gives it a value).
"""

from __future__ import annotations

from typing import Any

import pytest

from chop_integrations import (
    InMemoryCache,
    OfflineCNMExtractor,
    OfflineContinuity,
    OfflineTopicShift,
    PromptBudget,
    RetryPolicy,
)
from chop_integrations._engines import CONFIGS
from chop_integrations.ray import ChunkBatches, build_engine

#: A value other than the default for every field of both configs.
CHANGED: dict[str, Any] = {
    "on_llm_error": "raise",
    "max_concurrency": 3,
    "cache": InMemoryCache(),
    "retry": RetryPolicy(max_attempts=2),
    "timeout": 7.5,
    "mode": "paper",
    "max_tokens": 300,
    "theta": 400,
    "token_counter": "chars",
    "paper_restart": "answer+1",
    "window_tokens": 900,
    "context_tokens": 32,
    "fallback": OfflineTopicShift(),
    "target_tokens": 50,
    "min_tokens": 10,
    "embedding": 256,
    "embedding_reserve": 16,
    "chunker": str.splitlines,
    "prefix": "fixed",
    "source_key": "title",
    "decisions": "pair",
    "llm_boundaries": True,
    "budget": PromptBudget(tail_tokens=10),
    "offline_continuity": OfflineContinuity(),
    "offline_extractor": OfflineCNMExtractor(),
    "new_document_resets": True,  # False is refused under Ray (test_ray_rows); the default, given explicitly
}
FIELDS = [(engine, name) for engine, config in CONFIGS.items() for name in config.model_fields]


@pytest.mark.parametrize(("engine", "name"), FIELDS, ids=[f"{e}.{n}" for e, n in FIELDS])
def test_every_field_reaches_the_engine_an_actor_builds(engine: str, name: str) -> None:
    built = build_engine(engine, defer_prefix=True, **{name: CHANGED[name]})
    assert getattr(built.config, name) == CHANGED[name]
    assert (
        getattr(ChunkBatches(engine, defer_prefix=True, **{name: CHANGED[name]}).engine.config, name) == (CHANGED[name])
    )


def test_a_whole_config_is_accepted_and_keywords_override_it() -> None:
    config = CONFIGS["chop"](decisions="pair", max_tokens=300)
    built = build_engine("chop", config=config, prefix="fixed", max_tokens=200)
    assert (built.config.decisions, built.config.max_tokens, built.config.prefix) == ("pair", 200, "fixed")
