"""LangChain components for LumberChunker and CHOP.

* :class:`LumberChunkerTextSplitter`: a ``TextSplitter`` whose boundaries an LLM
  (any ``BaseChatModel``) or the offline decider chooses.
* :class:`CHOPDocumentTransformer`: a ``BaseDocumentTransformer`` that adds CHOP
  signatures (``chop_category``, ``chop_nouns``, ``chop_model``, ``chop_prefix``,
  ``chop_continues``) to documents' metadata, optionally to their text.
* :class:`CHOPRetriever`: a ``BaseRetriever`` over any vector store that filters (or boosts) by the
  model a question names, read offline against the store's own signatures; optionally returns each
  hit with its section run.
* :class:`CHOPDocumentCompressor`: a ``BaseDocumentCompressor`` for ``ContextualCompressionRetriever`` that
  filters or boosts any retriever's results (BM25, an ensemble) by the model a question names.
* :func:`chop_query_constructor`: a ``QueryReader`` as ``SelfQueryRetriever``'s query constructor (no LLM).
* :func:`catalog_from_vectorstore`: the signatures a store holds, read back from its metadata.
* :class:`LangChainLLM`: turns any chat model into the engines' LLM protocol.
* :func:`load_jsonl`: the CLI's JSON lines (``chop-integrations chunk``) as documents ready for a store.

Requires the ``langchain`` extra: ``pip install 'chop-integrations[langchain]'``.
"""

from __future__ import annotations

try:
    import langchain_core  # noqa: F401
    import langchain_text_splitters  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "chop_integrations.langchain needs langchain-core and langchain-text-splitters; "
        "install them with: pip install 'chop-integrations[langchain]'"
    ) from err

from typing import TYPE_CHECKING, Any

from ._llm import LangChainLLM

if TYPE_CHECKING:
    from ._compressor import CHOPDocumentCompressor
    from ._jsonl import load_jsonl
    from ._retriever import CHOPRetriever
    from ._self_query import chop_query_constructor
    from ._splitter import LumberChunkerTextSplitter
    from ._stores import catalog_from_vectorstore
    from ._transformer import CHOPDocumentTransformer

__all__ = [
    "CHOPDocumentCompressor",
    "CHOPDocumentTransformer",
    "CHOPRetriever",
    "LangChainLLM",
    "LumberChunkerTextSplitter",
    "catalog_from_vectorstore",
    "chop_query_constructor",
    "load_jsonl",
]

_LAZY = {
    "LumberChunkerTextSplitter": "._splitter",
    "CHOPDocumentTransformer": "._transformer",
    "CHOPRetriever": "._retriever",
    "CHOPDocumentCompressor": "._compressor",
    "catalog_from_vectorstore": "._stores",
    "load_jsonl": "._jsonl",
    "chop_query_constructor": "._self_query",
}


def __getattr__(name: str) -> Any:
    """Import the splitter, the transformer and the retriever on first use (``as_llm`` needs only the LLM wrapper)."""
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
