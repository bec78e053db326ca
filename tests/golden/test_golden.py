"""Golden outputs: both engines, every entry point, offline and with a scripted model, byte for byte.

The fixtures were written by ``tests/golden/make_golden.py`` from the code before the restructuring
(issue 14); a refactoring that changes a chunk, a prompt, a usage count, an estimate or an error
message fails here and names the configuration and the part that changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import golden_run
import pytest

from tests.support.data import MANUALS

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _differences(expected: Any, got: Any, path: str = "") -> list[str]:
    """Paths where two JSON values differ (at most a few per branch, so a message stays readable)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        found = []
        for key in sorted(set(expected) | set(got)):
            if key not in got or key not in expected:
                found.append(f"{path}/{key}: {'missing' if key not in got else 'unexpected'}")
            else:
                found.extend(_differences(expected[key], got[key], f"{path}/{key}"))
        return found
    if expected != got:
        return [f"{path}: expected {str(expected)[:200]!r}, got {str(got)[:200]!r}"]
    return []


def _check(expected: dict[str, Any], got: dict[str, Any]) -> None:
    # Through a JSON round trip, as the fixture was written (tuples become lists).
    got = json.loads(json.dumps(got, sort_keys=True, ensure_ascii=False))
    problems = _differences(expected, got)
    assert not problems, "golden output changed:\n" + "\n".join(problems[:40])


@pytest.fixture(scope="module")
def demo() -> golden_run.Docs:
    return golden_run.load(golden_run.SAMPLES)


@pytest.mark.parametrize("name", golden_run.FAST)
def test_demo_samples_match_the_golden_record(demo: golden_run.Docs, name: str) -> None:
    expected = _load("demo.json")
    assert set(expected) == set(golden_run.FAST)
    _check({name: expected[name]}, golden_run.record(demo, [name]))


def test_demo_full_samples_match(demo: golden_run.Docs) -> None:
    _check(_load("demo_samples.json"), golden_run.samples(demo))


def test_the_record_is_not_trivial(demo: golden_run.Docs) -> None:
    """The fixture holds real runs: prompts were sent, retries and fallbacks happened, raise raised."""
    expected = _load("demo.json")
    assert expected["lumber_llm"]["prompts"]["count"] > 0
    assert expected["chop_llm_window"]["usage"]["calls"] > 0
    assert sum(r["usage"]["invalid_answers"] for r in expected.values() if r["usage"]) > 0
    assert any(r["error"] for r in expected.values())
    assert expected["chop_offline"]["chunks"] != expected["chop_offline_template"]["chunks"]


@pytest.mark.slow
@pytest.mark.skipif(not MANUALS.is_dir(), reason=f"evaluation data not found at {MANUALS}")
@pytest.mark.parametrize("name", golden_run.MANUALS)
def test_manuals_match_the_golden_record(name: str) -> None:
    expected = _load("manuals.json")
    docs = golden_run.load(MANUALS)
    assert len(docs.ids) == 30
    _check({name: expected[name]}, golden_run.record(docs, [name]))
