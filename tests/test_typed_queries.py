"""scripts/typed_queries.py: the committed typed held-out questions are what its rule makes of the dev questions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.data import QUERIES_DEV

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "typed_queries.py"
TYPED = ROOT / "benchmarks" / "queries-typed-heldout.jsonl"
DEV = QUERIES_DEV


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("typed_queries", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "typings"),
    [
        (
            "Galaxy Note 10+",
            ["my Note 10+", "galaxy-note-10+", "Note10+", "note 10 plus", "Samsung Note 10+", "Note10 Plus"],
        ),
        (
            "Galaxy Tab A 10.5",
            ["my Tab A 10.5", "galaxy-tab-a-10.5", "Tab A10.5", "tab a 10.5", "Samsung Tab A 10.5", "Tab A10.5"],
        ),
        ("Galaxy S10 Lite", ["my S10 Lite", "galaxy-s10-lite", "S10 Lite", "s10 lite", "Samsung S10 Lite", "S10 Lite"]),
    ],
)
def test_the_six_typings(name: str, typings: list[str]) -> None:
    assert [_script().typed(name, k) for k in range(6)] == typings


def test_only_held_out_questions_are_rewritten_and_nothing_else_changes() -> None:
    script = _script()
    held = {
        "qid": "dev-0000",
        "query": "Pointer speed on the Samsung Galaxy Note 8",
        "manual": "Galaxy_Note_8",
        "start": 1,
    }
    tuned = {**held, "qid": "dev-0001"}
    assert script.rewrite(tuned) is None  # SHA-256("dev-0001") is even: the tuning half
    out = script.rewrite(held)
    assert out is not None and out["query"] != held["query"] and "Galaxy Note 8" not in out["query"]
    assert {k: v for k, v in out.items() if k != "query"} == {k: v for k, v in held.items() if k != "query"}


@pytest.mark.skipif(not DEV.exists(), reason="the evaluation data is not next to the project")
def test_committed_file_is_the_rule_applied_to_the_dev_questions() -> None:
    script = _script()
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    expected = [r for r in map(script.rewrite, rows) if r is not None]
    committed = [json.loads(line) for line in TYPED.read_text(encoding="utf-8").splitlines()]
    assert committed == expected and len(committed) == 173
