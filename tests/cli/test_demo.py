"""The demo: bundled samples, the BM25 stand-in retriever, and the printed walk-through."""

from __future__ import annotations

import difflib
import io
import re

import pytest

from chop_integrations import _cli as cli
from chop_integrations._demo import QUESTIONS, BM25Index, load_samples, run_demo, tokenize


def test_samples_are_bundled_and_near_identical() -> None:
    samples = load_samples()
    assert [s.stem for s in samples] == ["frostvale_fv_225b", "frostvale_fv_310b", "frostvale_fv_410x"]
    for other in samples[1:]:  # the point of the demo: most characters are the same in every manual
        assert difflib.SequenceMatcher(None, samples[0].text, other.text).ratio() > 0.7
    for question, gold, answer in QUESTIONS:
        owner = next(s for s in samples if s.stem == gold)
        assert answer in owner.text, question
        assert all(answer not in s.text for s in samples if s is not owner), f"{answer!r} must be model-specific"


def test_tokenize_keeps_model_codes_and_drops_function_words() -> None:
    assert tokenize("What does the FV-310B need?") == ["fv", "310b", "need"]


def test_bm25_prefers_the_rare_term_and_keeps_index_order_on_ties() -> None:
    index = BM25Index(["air filter cleaning", "air filter cleaning 310b", "error codes"])
    assert index.search("air filter 310b", k=1)[0][0] == 1
    assert [i for i, _ in index.search("air filter", k=2)] == [0, 1]
    assert index.scores("nothing matches") == [0.0, 0.0, 0.0]


def test_bm25_on_an_empty_index() -> None:
    assert BM25Index([]).search("anything") == []


def test_demo_prints_signatures_and_the_comparison() -> None:
    out = io.StringIO()
    assert run_demo(out=out) == 0
    text = out.getvalue()
    for model in ("FV-225B", "FV-310B", "FV-410X"):
        # the adaptive prefix: "model: [section | model]"
        signatures = re.findall(rf"Frostvale {model}: \[[^]|]+ \| Frostvale {model}\]", text)
        assert len(signatures) >= 3, f"too few signatures naming {model}"
    assert "offline" in text and "BM25" in text
    found = re.search(r"plain text (\d)/6, with the file name in front (\d)/6, with the CHOP prefix (\d)/6", text)
    plain, name, chop = map(int, found.groups())
    assert chop >= 5 and chop > plain and chop >= name
    assert "0 LLM calls" in text


def test_demo_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo"]) == 0
    captured = capsys.readouterr()
    assert "Right passage at top 1" in captured.out
    assert captured.err == ""
