"""CHOP at query time: which of the store's known signatures a question names, and a hit's section run.

Framework-free. The adapters turn a :class:`QueryReading` into their store's filter or ranking:
:mod:`chop_integrations.langchain` and :mod:`chop_integrations.llama_index`.

- :class:`SignatureCatalog`: the ``chop_model``/``chop_category`` values ingestion emitted, counted,
  saved beside the store or read back from it (never a hand-kept list);
- :class:`QueryReader`: reads a question against those values (offline, optionally with an LLM);
- :func:`section_run`: the neighbours of a hit in its section run, under a token budget;
- :mod:`.ranking`: the metadata test, the named-first partition and the merge of result lists the adapters share.
- :mod:`.qdrant`: paging through a Qdrant collection (the adapters' catalog readers and neighbour fetches).
"""

from __future__ import annotations

from .catalog import SignatureCatalog
from .context import section_run
from .reader import QueryReader, QueryReading

__all__ = ["QueryReader", "QueryReading", "SignatureCatalog", "section_run"]
