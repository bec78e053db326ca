"""CHOP: a context-preserving signature prefix (category, nouns, model) for every chunk.

:mod:`.chunker` holds the engine, :mod:`.plan` the per-run plan of chunks and decisions,
:mod:`.prompts`/:mod:`.window`/:mod:`.answers`/:mod:`.excerpts` the prompts and their answers,
:mod:`.estimate` the dry run, :mod:`.base_chunks` the template check, the metadata and a splitter's offsets.
"""

from .._types import render_prefix
from .base_chunks import METADATA_KEYS, split_offsets
from .chunker import CHOPChunker
from .config import CHOPConfig

__all__ = ["METADATA_KEYS", "CHOPChunker", "CHOPConfig", "render_prefix", "split_offsets"]
