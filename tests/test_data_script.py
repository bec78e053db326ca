"""scripts/emanuals_to_corpus.py: the Samsung e-manual JSON files become a corpus ``bench`` reads."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from chop_bench.eval.corpus import load_corpus

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "emanuals_to_corpus.py"
LONG = "Press and hold the Side key to turn the device on. " * 5


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("emanuals_to_corpus", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _manual(model: str) -> dict[str, Any]:
    """The shape of one ``Galaxy_*.json`` file of the public data (sections out of numeric order on purpose)."""
    return {
        "section_0": {"title": "Contents", "text": ["Contents"], "section_hierarchy": "section_0", "id": "section_0"},
        "section_10": {
            "title": "Turn on your device",
            "text": ["Turn on your device", "", LONG],
            "section_hierarchy": "section_1>section_10",
            "id": "section_10",
        },
        "section_1": {
            "title": "Getting started",
            "text": ["Getting started", model],
            "section_hierarchy": "section_1",
            "id": "section_1",
        },
    }


def test_the_corpus_has_the_layout_bench_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, out = tmp_path / "other_emanuals_corpus", tmp_path / "chop-data"
    source.mkdir()
    for model in ("Galaxy_A01", "Galaxy_A10e"):
        (source / f"{model}.json").write_text(json.dumps(_manual(model.replace("_", " "))), encoding="utf-8")
    script = _script()
    monkeypatch.setattr(script, "QUESTION_EVERY", 1)  # every eligible section becomes a question
    script.main([str(source), str(out)])

    corpus = load_corpus(out, out / "queries-dev.jsonl")
    text = (out / "manuals" / "Galaxy_A01.txt").read_text(encoding="utf-8")
    assert text.startswith("SAMSUNG\nGalaxy A01\nUser Manual\n\n")
    sections = [json.loads(line) for line in (out / "sections.jsonl").read_text(encoding="utf-8").splitlines()]
    a01 = [s for s in sections if s["manual"] == "Galaxy_A01"]
    assert [s["section"] for s in a01] == ["section_0", "section_1", "section_10"]
    assert a01[2]["path"] == "Getting started>Turn on your device"
    assert text[a01[2]["start"] : a01[2]["end"]] == "Turn on your device\n" + LONG
    assert corpus.sections is not None and len(corpus.sections["Galaxy_A10e"]) == 3
    # Only the long section that recurs in the other manual is asked about, once per manual.
    assert sorted((q.gold.doc, q.text) for q in corpus.queries) == [
        ("Galaxy_A01", "What does the Galaxy A01 manual say about turn on your device?"),
        ("Galaxy_A10e", "What does the Galaxy A10e manual say about turn on your device?"),
    ]
