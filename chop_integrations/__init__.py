"""chop-integrations: LumberChunker and CHOP chunking for RAG pipelines.

Importing this package loads neither LangChain nor LlamaIndex; their adapters
live in :mod:`chop_integrations.langchain` and :mod:`chop_integrations.llama_index`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import (
    ChopError,
    ConfigurationError,
    InputError,
    LLMAnswerError,
    LLMCallError,
    LLMError,
    LLMTimeoutError,
)
from .llm import LLM, CallableLLM, ScriptedLLM, StructuredLLM, as_llm
from .retry import RetryPolicy
from .types import CNM, Chunk, Unit
from .usage import UsageReport

__all__ = [
    "CNM",
    "LLM",
    "CallableLLM",
    "ChopError",
    "Chunk",
    "ConfigurationError",
    "InputError",
    "LLMAnswerError",
    "LLMCallError",
    "LLMError",
    "LLMTimeoutError",
    "RetryPolicy",
    "ScriptedLLM",
    "StructuredLLM",
    "Unit",
    "UsageReport",
    "__version__",
    "as_llm",
]
