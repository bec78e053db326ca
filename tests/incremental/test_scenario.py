"""``bench-scale --scenario incremental``: the edit, the rows, and the issue's must-show figure on the manuals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from chop_bench.cli import main as bench_main
from chop_bench.scale.incremental import INSERTED, add_arguments, edit_one_section, run
from chop_integrations._errors import ConfigurationError
from tests.support.data import MANUALS

from .support import manual


def test_the_edit_rewrites_one_line_and_inserts_a_sentence_in_the_middle() -> None:
    text = manual(3)
    edited = edit_one_section(text)
    assert edited.count(INSERTED) == 1 and edited.count("Updated: ") == 1
    assert 0.3 < edited.index(INSERTED) / len(edited) < 0.7
    prefix = next(i for i, (a, b) in enumerate(zip(text, edited, strict=False)) if a != b)
    suffix = next(i for i, (a, b) in enumerate(zip(text[::-1], edited[::-1], strict=False)) if a != b)
    assert "\n\n" not in text[prefix : len(text) - suffix]  # one paragraph changed, the rest as it was
    with pytest.raises(ConfigurationError):
        edit_one_section("   ")


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_rows_name_the_method_and_tiling_and_add_up(tmp_path: Path) -> None:
    for seed in range(4):
        (tmp_path / f"manual-{seed}.txt").write_text(manual(seed, sections=40), encoding="utf-8")
    rows = run(_args("--corpus", str(tmp_path)))
    assert {(r["method"], r["tiling"]) for r in rows} == {
        (m, t) for m in ("chop", "chop-llm-boundaries", "lumber") for t in ("content", "positional")
    }
    for row in rows:
        assert row["scenario"] == "incremental" and row["documents"] == 4 and row["edited"] == "manual-2.txt"
        assert 0 < row["reingest_calls"] <= row["doc_calls"] < row["full_calls"]
        assert row["calls_ratio"] == round(row["reingest_calls"] / row["full_calls"], 4)
        assert row["doc_calls_ratio"] == round(row["reingest_calls"] / row["doc_calls"], 4)
        assert 0 < row["doc_calls_ratio_mean"] <= row["doc_calls_ratio_max"] <= 1


def test_an_empty_corpus_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"no \*\.txt"):
        run(_args("--corpus", str(tmp_path)))


@pytest.mark.slow
@pytest.mark.skipif(not MANUALS.is_dir(), reason="the manuals are not beside the checkout")
def test_the_issue_figure_on_the_manuals(capsys: pytest.CaptureFixture[str]) -> None:
    """Must show: R <= 0.03 (calls to re-ingest after editing one section of one manual / calls of the full ingest)."""
    assert (
        bench_main(
            [
                "bench-scale",
                "--scenario",
                "incremental",
                "--json",
                "--corpus",
                str(MANUALS),
                "--incremental-tiling",
                "content",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["method"] for r in rows} == {"chop", "chop-llm-boundaries", "lumber"}
    assert all(r["calls_ratio"] <= 0.03 and r["doc_calls_ratio_mean"] <= 0.15 for r in rows)
