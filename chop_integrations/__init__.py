"""chop-integrations: LumberChunker and CHOP chunking for RAG pipelines.

Importing this package loads neither LangChain nor LlamaIndex; their adapters
live in :mod:`chop_integrations.langchain` and :mod:`chop_integrations.llama_index`.
"""

from __future__ import annotations

__version__ = "0.1.0"
