"""The offline deciders: the default when no LLM is given.

* :class:`OfflineTopicShift` chooses LumberChunker's cuts from structure (headings,
  paragraph and scene breaks) and lexical cohesion.
* :class:`OfflineContinuity` answers CHOP's continuity question from headings and
  word overlap.
* :class:`OfflineCNMExtractor` builds CNM signatures from document hints, cover text,
  model-number patterns, a category :class:`Lexicon` and headings.

All three implement the protocols of :mod:`chop_integrations._deciders` (sync and async)
and name no product, brand or model of any data set.
"""

from __future__ import annotations

from .cnm import OfflineCNMExtractor, document_model, find_model_tokens
from .continuity import OfflineContinuity
from .lexicon import DEFAULT_LEXICON, CategoryEntry, Lexicon
from .signature import clean_file_stem
from .topic import OfflineTopicShift

__all__ = [
    "DEFAULT_LEXICON",
    "CategoryEntry",
    "Lexicon",
    "OfflineCNMExtractor",
    "OfflineContinuity",
    "OfflineTopicShift",
    "clean_file_stem",
    "document_model",
    "find_model_tokens",
]
