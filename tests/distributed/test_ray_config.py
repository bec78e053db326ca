"""Every engine config field reaches the engine an actor builds (:func:`chop_integrations.ray.build_engine`).

The fields are read from the configs, so a field added later is walked here too (and fails until
``tests/support/config_samples.SAMPLES`` gives it a value).
"""

from __future__ import annotations

from typing import Any

import pytest

from chop_integrations._engines import ENGINES
from chop_integrations.ray import ChunkBatches, build_engine
from tests.support.config_samples import SAMPLES

#: The shipped engines' configs, by name (an engine a test defines later is not walked here).
CONFIGS = {name: engine.config_class for name, engine in ENGINES.items()}

#: A value other than the default for every field of both configs, but ``new_document_resets``: False is
#: refused under Ray (test_ray_rows), so the default is given explicitly.
CHANGED: dict[str, Any] = {name: make() for name, make in SAMPLES.items()} | {"new_document_resets": True}
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
