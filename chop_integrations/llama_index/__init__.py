"""LlamaIndex components: LumberChunker as a NodeParser, CHOP as a metadata extractor.

Install with ``pip install 'chop-integrations[llama-index]'``.

* :class:`LumberChunkerNodeParser`: LLM-chosen chunk boundaries, exact offsets,
  prev/next and source relations, a real async path.
* :class:`CHOPExtractor`: CHOP signatures (``chop_*`` metadata) shown in the
  embedding text, hidden from the LLM as configured.
* :class:`LlamaIndexLLM`: any LlamaIndex LLM as the engines' LLM protocol.
* :class:`CHOPRetriever`: retrieves with a ``chop_model`` filter read offline from the question.
* :class:`CHOPBoostPostprocessor`: the named model's nodes first, for a retriever of your own.
* :class:`CHOPContextPostprocessor`: each hit widened to its section run, under a token budget.
* :func:`catalog_from_index`: the signature values an index, docstore or vector store holds.
* :func:`load_jsonl`: the CLI's JSON lines (``chop-integrations chunk``) as nodes ready for an index.
"""

from __future__ import annotations

try:
    import llama_index.core  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "chop_integrations.llama_index needs llama-index-core: pip install 'chop-integrations[llama-index]'"
    ) from err

from ._catalog import catalog_from_index
from ._extractor import CHOPExtractor
from ._jsonl import load_jsonl
from ._llm import LlamaIndexLLM
from ._node_parser import LumberChunkerNodeParser
from ._postprocessor import CHOPBoostPostprocessor, CHOPContextPostprocessor
from ._retriever import CHOPRetriever

__all__ = [
    "CHOPBoostPostprocessor",
    "CHOPContextPostprocessor",
    "CHOPExtractor",
    "CHOPRetriever",
    "LlamaIndexLLM",
    "LumberChunkerNodeParser",
    "catalog_from_index",
    "load_jsonl",
]
