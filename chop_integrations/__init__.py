"""chop-integrations: LumberChunker and CHOP chunking for RAG pipelines.

Importing this package loads neither LangChain nor LlamaIndex; their adapters
live in :mod:`chop_integrations.langchain` and :mod:`chop_integrations.llama_index`.

The layers, lowest first (a module imports only its own layer or lower ones; ``tests/test_layers.py``):

* :mod:`._errors`, :mod:`._types`: the exceptions; units, chunks, CNM signatures and their prefix;
* :mod:`._text`: token counters, segmentation into units, document structure;
* :mod:`._deciders`, :mod:`._checks`: the three decision protocols (async) and the one sync adapter; checks;
* :mod:`._llm`: the model protocol, calls (runner, retries, cache, usage), one decision's policy, the engine base;
* :mod:`._offline`: the offline deciders (no model);
* :mod:`._lumber`, :mod:`._chop`: the two engines (CHOP uses LumberChunker as its base chunker);
* :mod:`._query`: CHOP at query time (the signature catalog, the query reader, section runs);
* :mod:`.testing`: the fake LLMs (scripted, simulated, faulty);
* this facade; then :mod:`.langchain`, :mod:`.llama_index` and :mod:`.ray`;
* :mod:`._demo` (the offline demo) and :mod:`._cli`, which the library never imports. The benchmark is a
  package of its own beside the library (``bench/``, ``chop_bench``), outside the wheel.
"""

from __future__ import annotations

__version__ = "0.1.0"

from ._chop.chunker import CHOPChunker
from ._chop.config import CHOPConfig
from ._chop.corpus import CorpusState
from ._chop.excerpts import PromptBudget
from ._errors import (
    AnswerParseError,
    BudgetExceededError,
    ChopError,
    ConfigurationError,
    InputError,
    LLMAnswerError,
    LLMCallError,
    LLMError,
    LLMResponseError,
    LLMTimeoutError,
)
from ._llm.cache import InMemoryCache
from ._llm.options import LLMConfig
from ._llm.progress import Progress
from ._llm.protocol import LLM, CallableLLM, StructuredLLM, as_llm
from ._llm.retry import RetryPolicy
from ._llm.sqlite_cache import SQLiteCache
from ._llm.usage import UsageReport
from ._lumber.chunker import LumberChunker
from ._lumber.config import LumberConfig
from ._offline import Lexicon, OfflineCNMExtractor, OfflineContinuity, OfflineTopicShift
from ._query import QueryReader, QueryReading, SignatureCatalog, section_run
from ._text.segmentation import split_units
from ._types import CNM, Chunk, Unit
from .testing import ScriptedLLM

__all__ = [
    "CNM",
    "LLM",
    "AnswerParseError",
    "BudgetExceededError",
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
    "Progress",
    "PromptBudget",
    "QueryReader",
    "QueryReading",
    "RetryPolicy",
    "SQLiteCache",
    "ScriptedLLM",
    "SignatureCatalog",
    "StructuredLLM",
    "Unit",
    "UsageReport",
    "__version__",
    "as_llm",
    "section_run",
    "split_units",
]
