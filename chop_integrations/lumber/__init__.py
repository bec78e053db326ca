"""LumberChunker: topic-shift chunking, default (windowed) and paper mode.

:mod:`.chunker` holds the engine, :mod:`.plans` the windows and groups it asks about, :mod:`.prompts`
the prompts, answers and the LLM topic-shift decider.
"""

from .chunker import LumberChunker

__all__ = ["LumberChunker"]
