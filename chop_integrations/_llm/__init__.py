"""Everything about talking to a model, below the engines and above the text layer.

:mod:`.protocol` (the LLM protocol, ``as_llm``), :mod:`.runner` (one call: cache,
retries, timeout, usage), :mod:`.policy` (one decision: parse, corrective retry, fallback or raise),
:mod:`.retry`, :mod:`.cache`, :mod:`.parsing`, :mod:`.usage` and :mod:`.config` (building a model from
``--llm`` strings). Nothing here imports an engine or a framework adapter.
"""

from .aio import gather_limited, run_sync
from .protocol import LLM, CallableLLM, StructuredLLM, as_llm, supports_structured

__all__ = [
    "LLM",
    "CallableLLM",
    "StructuredLLM",
    "as_llm",
    "gather_limited",
    "run_sync",
    "supports_structured",
]
