"""scripts/mutants.py (``make mutants``): its module map, its equivalence list, the choices of its CI share."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("mutants_script", ROOT / "scripts" / "mutants.py")
assert _spec is not None and _spec.loader is not None
mutants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutants)


def test_every_listed_module_and_test_file_exists() -> None:
    assert len(mutants.MODULES) == 11
    for module, tests in mutants.MODULES.items():
        assert (ROOT / module).is_file(), module
        assert tests and all((ROOT / test).is_file() for test in tests), tests
    assert set(mutants.OUT_OF_SCOPE) <= set(mutants.MODULES)


def test_every_equivalence_names_a_listed_module_its_line_and_why() -> None:
    notes = json.loads(mutants.EQUIVALENT.read_text("utf-8"))
    prefixes = {m.removesuffix(".py").replace("/", ".") + "." for m in mutants.MODULES}
    for name, note in notes.items():
        assert any(name.startswith(p) for p in prefixes), name
        assert note["line"].strip() and len(note["why"]) > 20, name


def test_the_report_holds_every_module_at_the_minimum_score() -> None:
    report = json.loads((mutants.OUT / "report.json").read_text("utf-8"))
    assert set(report) == set(mutants.MODULES)
    for module, r in report.items():
        assert r["killed"] + r["survived"] + r["equivalent"] == r["made"], module
        assert r["score"] >= 0.9, module


def test_left_out_functions_are_marked_on_their_header_line(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def a(x):\n    return x\n\n\ndef b(\n    y: int,\n) -> int:  # note\n    return y\n", "utf-8")
    mutants._leave_out(path, ["b"])
    lines = path.read_text("utf-8").splitlines()
    assert lines[0] == "def a(x):" and lines[6] == ") -> int:  # pragma: no mutate block"


def test_the_mutated_line_is_what_the_diff_adds() -> None:
    diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-    return x + 1\n+    return x - 1\n"
    assert mutants._mutated_line(diff) == "return x - 1"


def test_ci_takes_the_changed_modules_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    changed = ["chop_integrations/_text/token_sums.py", "chop_integrations/_offline/topic.py"]
    monkeypatch.setenv("MUTANTS_SINCE", "v0")
    monkeypatch.setattr(mutants, "_git", lambda *args: "\n".join(changed) if args[0] == "diff" else None)
    report = json.loads((mutants.OUT / "report.json").read_text("utf-8"))
    budget = report[changed[0]]["seconds"] + 1
    chosen = mutants._ci_modules(budget)
    assert chosen[0] == changed[0] and set(chosen) <= set(changed)
    assert mutants._ci_modules(10_000) == changed


def test_ci_samples_when_nothing_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MUTANTS_SINCE", raising=False)
    monkeypatch.setattr(mutants, "_git", lambda *args: "ab" if args[0] == "rev-parse" else None)
    chosen = mutants._ci_modules(150)
    assert chosen and chosen[0] == list(mutants.MODULES)[0xAB % len(mutants.MODULES)]
