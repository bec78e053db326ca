"""LangChain's BM25 through ``CHOPDocumentCompressor`` matches the bench's ``chop+query`` BM25 row on held-out doc@1.

Runs ``scripts/bm25_compressor_check.py`` (the bench's own ``chop`` chunks of the 30 manuals, one offline CHOP
pass, no embedding model; about a minute): doc@1 within 0.005 of the row's.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.support.data import MANUALS, SHARED_DATA

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not MANUALS.is_dir(), reason="the evaluation data is not beside the checkout"),
]
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bm25_compressor_check.py"


def test_doc_at_1_within_half_a_point_of_the_benchs_row() -> None:
    pytest.importorskip("rank_bm25")
    spec = importlib.util.spec_from_file_location("bm25_compressor_check", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.measure(SHARED_DATA)
    assert figures["questions"] > 100
    assert abs(figures["compressor doc@1"] - figures["bench chop+query doc@1"]) <= 0.005
    assert figures["compressor doc@1"] > figures["langchain bm25 alone doc@1"]  # the compressor is what lifts it
