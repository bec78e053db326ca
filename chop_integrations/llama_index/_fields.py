"""Helpers shared by the LlamaIndex components: the LLM setting and its identity.

The IngestionPipeline caches each transformation's output under a hash of the
input nodes and ``transformation.to_dict()``. An LLM object cannot always be
serialised, so the components exclude it from ``to_dict()`` and carry its
identity in a plain string field, ``llm_id``, instead: two components that
differ only in their LLM (or its decoding settings) never share a cache entry.
"""

from __future__ import annotations

from typing import Any

from ..llm import LLM, as_llm

#: ``llm_id`` of a component without an LLM (the offline deciders).
OFFLINE_ID = "offline"


def resolve_llm(llm: Any) -> tuple[LLM | None, str]:
    """Wrap ``llm`` into the engines' protocol and return it with its identity.

    Args:
        llm: ``None``, a LlamaIndex LLM, or any object :func:`chop_integrations.llm.as_llm` accepts.

    Raises:
        ConfigurationError: When ``llm`` is none of these.
    """
    wrapped = as_llm(llm)
    return wrapped, OFFLINE_ID if wrapped is None else wrapped.model_id
