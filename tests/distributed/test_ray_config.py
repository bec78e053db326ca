"""The engine an actor builds (:func:`chop_integrations.ray.build_engine`) from a whole config.

That every config field reaches it by name is checked with the other surfaces in ``tests/test_surface_parity.py``.
"""

from __future__ import annotations

from chop_integrations import CHOPConfig
from chop_integrations.ray import build_engine


def test_a_whole_config_is_accepted_and_keywords_override_it() -> None:
    config = CHOPConfig(decisions="pair", max_tokens=300)
    built = build_engine("chop", config=config, prefix="fixed", max_tokens=200)
    assert (built.config.decisions, built.config.max_tokens, built.config.prefix) == ("pair", 200, "fixed")
