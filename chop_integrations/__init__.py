"""chop-integrations: LumberChunker and CHOP chunking for RAG pipelines.

Importing this package loads neither LangChain nor LlamaIndex; their adapters
live in :mod:`chop_integrations.langchain` and :mod:`chop_integrations.llama_index`.

The layers, lowest first (a module imports only its own layer or lower ones; ``tests/test_layers.py``):

* :mod:`.errors`, :mod:`.types`: the exceptions; units, chunks, CNM signatures and their prefix;
* :mod:`.text`: token counters, segmentation into units, document structure;
* :mod:`.deciders`, :mod:`.checks`: the three decision protocols; document and option checks;
* :mod:`.llm`: the model protocol, calls (runner, retries, cache, usage) and one decision's policy;
* :mod:`.offline`: the offline deciders (no model);
* :mod:`.lumber`, :mod:`.chop`: the two engines (CHOP uses LumberChunker as its base chunker);
* :mod:`.testing`: the fake LLMs (scripted, simulated, faulty);
* this facade; then :mod:`.langchain`, :mod:`.llama_index` and :mod:`.ray`;
* :mod:`.bench` (benchmarks, stress runs, the demo) and :mod:`.cli`, which the library never imports.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .chop.chunker import CHOPChunker
from .chop.config import CHOPConfig
from .chop.corpus import CorpusState
from .chop.excerpts import PromptBudget
from .errors import (
    AnswerParseError,
    ChopError,
    ConfigurationError,
    InputError,
    LLMAnswerError,
    LLMCallError,
    LLMError,
    LLMResponseError,
    LLMTimeoutError,
)
from .llm.cache import InMemoryCache
from .llm.options import LLMConfig
from .llm.protocol import LLM, CallableLLM, StructuredLLM, as_llm
from .llm.retry import RetryPolicy
from .llm.sqlite_cache import SQLiteCache
from .llm.usage import UsageReport
from .lumber.chunker import LumberChunker
from .lumber.config import LumberConfig
from .offline import Lexicon, OfflineCNMExtractor, OfflineContinuity, OfflineTopicShift
from .testing import ScriptedLLM
from .text.segmentation import split_units
from .types import CNM, Chunk, Unit

__all__ = [
    "CNM",
    "LLM",
    "AnswerParseError",
    "CHOPChunker",
    "CHOPConfig",
    "CallableLLM",
    "ChopError",
    "Chunk",
    "ConfigurationError",
    "CorpusState",
    "InMemoryCache",
    "InputError",
    "LLMAnswerError",
    "LLMCallError",
    "LLMConfig",
    "LLMError",
    "LLMResponseError",
    "LLMTimeoutError",
    "Lexicon",
    "LumberChunker",
    "LumberConfig",
    "OfflineCNMExtractor",
    "OfflineContinuity",
    "OfflineTopicShift",
    "PromptBudget",
    "RetryPolicy",
    "SQLiteCache",
    "ScriptedLLM",
    "StructuredLLM",
    "Unit",
    "UsageReport",
    "__version__",
    "as_llm",
    "split_units",
]
