"""The ``chop-integrations demo``: CHOP on three bundled sample manuals, offline, in seconds.

Run it with ``chop-integrations demo`` or, from Python, :func:`run_demo`.
"""

from __future__ import annotations

from .retrieval import BM25Index, tokenize
from .runner import QUESTIONS, SAMPLE_FILES, Sample, load_samples, run_demo

__all__ = ["QUESTIONS", "SAMPLE_FILES", "BM25Index", "Sample", "load_samples", "run_demo", "tokenize"]
