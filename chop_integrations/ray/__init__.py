"""Ray Data for every registered engine: documents in, chunk rows out, on a pool of actors.

Install with ``pip install 'chop-integrations[ray]'``.

* :func:`chunk_dataset`: the one call. ``chunk_dataset(ray.data.from_items(docs), engine="chop")`` gives the
  same rows as one process running ``CHOPChunker().chunk_many`` over all the documents, the adaptive prefix
  included (fitted on the whole corpus, see :mod:`chop_integrations.ray._rows`).
* :class:`ChunkBatches`: the ``map_batches`` callable class underneath (the engine built once per actor).
* :class:`LLMLimit`: one limit on LLM calls in flight across all actors.
* :class:`RayActorCache`: an answer cache shared by every actor on every node (a path is enough on one node).

The core never imports this package; importing it without Ray raises an ImportError naming the extra.
"""

from __future__ import annotations

try:
    import pyarrow  # noqa: F401
    import ray  # noqa: F401
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError("chop_integrations.ray needs Ray Data: pip install 'chop-integrations[ray]'") from err

from ._batches import ChunkBatches, build_engine, one_process_rows
from ._cache import RayActorCache
from ._dataset import DEFAULT_BATCH_SIZE, apply_prefix, chunk_dataset, find_corpus_names, fit_prefix
from ._limit import LLMLimit, RayBoundedLLM
from ._rows import (
    CHUNK_COLUMNS,
    INTERNAL_COLUMNS,
    FrozenPrefixPolicy,
    PrefixStats,
    ProvisionalPrefixPolicy,
    chunk_table,
    fit_choice,
    identity_names,
    public,
    render_prefixes,
)

__all__ = [
    "CHUNK_COLUMNS",
    "DEFAULT_BATCH_SIZE",
    "INTERNAL_COLUMNS",
    "ChunkBatches",
    "FrozenPrefixPolicy",
    "LLMLimit",
    "PrefixStats",
    "ProvisionalPrefixPolicy",
    "RayActorCache",
    "RayBoundedLLM",
    "apply_prefix",
    "build_engine",
    "chunk_dataset",
    "chunk_table",
    "find_corpus_names",
    "fit_choice",
    "fit_prefix",
    "identity_names",
    "one_process_rows",
    "public",
    "render_prefixes",
]
