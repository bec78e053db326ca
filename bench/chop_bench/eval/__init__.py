"""The retrieval benchmark: chunking strategies, retrievers, metrics and reports.

Run it with ``chop-integrations bench`` or ``chop-bench bench``.
This package imports numpy, bm25s, sentence-transformers, LangChain and chonkie
only inside the functions that need them; the core never imports it.
"""

from __future__ import annotations
