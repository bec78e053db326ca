"""The same input with the same options gives the same chunks through the CLI, whatever ran before.

The CLI keeps LLM answers in one default cache per user. What the adaptive prefix knows of a
corpus lives in the run (a CorpusState), never in that cache: a document chunked alone gives the
same JSON Lines before and after an unrelated corpus went through the same cache.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chop_integrations import _cli as cli
from chop_integrations._cli.chunk import default_cache_path
from chop_integrations._llm import config as llm_config
from chop_integrations.testing import SimulatedLLM


def _prefixes(out: Path, doc: str) -> list[str]:
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return [r["embed_text"][: len(r["embed_text"]) - len(r["chop_text"])] for r in records if r["doc"] == doc]


def test_an_unrelated_corpus_through_the_default_cache_changes_nothing(
    tmp_path: Path, manuals: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(llm_config, "build_llm", lambda **_: SimulatedLLM(latency_ms=0))
    alone, k30 = manuals  # two kettle manuals: Nimbus K20 and K30
    x200 = tmp_path / "x200.txt"
    x200.write_text(k30.read_text(encoding="utf-8").replace("Nimbus K30 Kettle", "Orbit X200 Router"), encoding="utf-8")
    others = [k30, x200]

    def run(name: str, *files: Path) -> Path:
        out = tmp_path / name
        assert (
            cli.main(["chunk", "--method", "chop", "--llm-model", "simulated", "--out", str(out), *map(str, files)])
            == 0
        )
        return out

    before = run("before.jsonl", alone)
    assert default_cache_path().is_file()  # the runs share the CLI's default answer cache
    together = run("together.jsonl", alone, *others)
    # a document's name is its own: alone it gets the prefix it gets beside others
    assert _prefixes(together, "nimbus_k20") == _prefixes(before, "nimbus_k20")
    assert all(p.startswith("nimbus k20") for p in _prefixes(before, "nimbus_k20"))
    after = run("after.jsonl", alone)
    assert after.read_bytes() == before.read_bytes()
