"""The simulated LLM and a small ``bench-llm`` run: JSON shape, valid answers, and a re-ingest that makes no call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from chop_bench.cli import main as bench_main
from chop_integrations.testing import SimulatedLLM

#: Written for these tests (not evaluation data): two short "manuals" with headings.
MANUALS = {
    "Galaxy_Test_One.txt": (
        "SAMSUNG\nGalaxy Test One\nUser Manual\n\nCharge the battery\nUse the supplied charger. "
        "Plug the cable into the port and wait until the battery is full.\n\nTurn on your device\n"
        "Press and hold the Side key to turn the device on. Confirm when prompted.\n\n"
        + "\n\n".join(f"Setting {i}\nOpen Settings and tap option number {i} to change it." for i in range(30))
    ),
    "Galaxy_Tab_Test.txt": (
        "SAMSUNG\nGalaxy Tab Test\nUser Manual\n\nWi-Fi\nConnect to a wireless network from the Quick panel.\n\n"
        + "\n\n".join(f"Feature {i}\nThe feature number {i} helps you do things faster." for i in range(30))
    ),
}
FIELDS = {
    "method",
    "documents",
    "calls",
    "prompt_tokens",
    "document_tokens",
    "amplification",
    "wall_s",
    "sequential_wall_s",
    "speedup",
    "reingest_calls",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "manuals"
    folder.mkdir()
    for name, text in MANUALS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "notes.md").write_text("not a .txt file, ignored", encoding="utf-8")
    return folder


def test_bench_llm_json_lines(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chop_integrations._cli import main

    code = main(["bench-llm", "--corpus", str(corpus), "--latency-ms", "5", "--concurrency", "8", "--json"])
    assert code == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [row["method"] for row in rows] == ["lumber", "chop", "slumber"]
    for row in rows:
        assert FIELDS <= set(row), FIELDS - set(row)
        assert row["documents"] == 2 and row["calls"] > 0
        assert row["amplification"] == pytest.approx(row["prompt_tokens"] / row["document_tokens"], abs=1e-3)
    ours = [row for row in rows if row["method"] != "slumber"]
    for row in ours:
        assert row["reingest_calls"] == 0
        assert row["reingest_cache_hits"] > 0 and row["reingest_same_chunks"] is True
        assert row["fallbacks"] == 0  # every simulated answer was valid for our prompts
        assert row["speedup"] == pytest.approx(row["sequential_wall_s"] / row["wall_s"], rel=0.1)
    assert all(row["max_in_flight"] >= 1 for row in ours)


def test_bench_llm_table_and_module_entry_point(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = bench_main(
        [
            "bench-llm",
            "--corpus",
            str(corpus),
            "--latency-ms",
            "0",
            "--max-docs",
            "1",
            "--methods",
            "lumber",
            "--no-sequential",
        ]
    )
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["method", "docs", "calls"]
    assert lines[1].split()[0] == "lumber" and lines[1].split()[1] == "1"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--corpus", "/nonexistent/folder"], "not a directory"),
        (["--methods", "lumber,magic"], "unknown methods"),
        (["--max-docs", "0"], "--max-docs"),
    ],
)
def test_bench_llm_bad_arguments_exit_2(
    corpus: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    args = ["--corpus", str(corpus), *argv] if argv[0] != "--corpus" else argv
    assert bench_main(["bench-llm", *args]) == 2
    assert message in capsys.readouterr().err


# -- the simulated LLM -------------------------------------------------------------------------


def test_simulated_answers_are_deterministic_and_seeded() -> None:
    from chop_integrations._chop.prompts import CONTINUITY_PROMPT

    prompts = [CONTINUITY_PROMPT.format(hints="", pair="", tail=f"text {i}", head=f"more {i}") for i in range(40)]
    first = [SimulatedLLM(0).answer(p) for p in prompts]
    assert first == [SimulatedLLM(0).answer(p) for p in prompts]
    assert set(first) == {"TRUE", "FALSE"}
    assert first != [SimulatedLLM(0, seed=1).answer(p) for p in prompts]
    assert SimulatedLLM(0).model_id != SimulatedLLM(0, seed=1).model_id
    assert SimulatedLLM(0).model_id == SimulatedLLM(500).model_id  # latency does not change answers


def test_simulated_answers_parse_for_every_prompt_kind() -> None:
    from chop_integrations._chop.answers import parse_cnm, parse_pair
    from chop_integrations._chop.prompts import CNM_PROMPT, PAIR_PROMPT
    from chop_integrations._lumber.prompts import DEFAULT_INSTRUCTION, PAPER_SYSTEM_PROMPT, TopicShifts
    from chop_integrations._types import CNM

    sim = SimulatedLLM(0)
    lumber = (
        DEFAULT_INSTRUCTION.format(lo=2, hi=4, max_tokens=550)
        + "Text:\n#1 Intro\n#2 Wi-Fi\n#3 Body text.\n#4 Bluetooth"
    )
    starts = TopicShifts.model_validate_json(sim.answer(lumber)).starts
    assert all(2 <= n <= 4 for n in starts)
    paper = PAPER_SYSTEM_PROMPT + "\nDocument:\nID 7: one\nID 8: two\nID 9: three"
    assert sim.answer(paper) in {"Answer: ID 8", "Answer: ID 9"}
    hints = 'Document: file "Galaxy_Tab_S6.txt"\n'
    cnm = parse_cnm(sim.answer(CNM_PROMPT.format(hints=hints, known="", head="Replace the battery cover")))
    assert isinstance(cnm, CNM) and cnm.model == "Galaxy Tab S6" and cnm.category == "tablet"
    pair = parse_pair(sim.answer(PAIR_PROMPT.format(hints=hints, pair="", tail="a", head="Battery cover")))
    assert isinstance(pair, tuple) and isinstance(pair[0], bool)


def test_unknown_prompt_is_counted_not_answered() -> None:
    sim = SimulatedLLM(0)
    assert sim.complete("What is the capital of France?") == ""
    assert sim.unknown == 1 and sim.calls == 1


def test_async_calls_overlap() -> None:
    sim = SimulatedLLM(20)

    async def many() -> list[str]:
        return await asyncio.gather(*(sim.acomplete(f"unknown {i}") for i in range(10)))

    asyncio.run(many())
    assert sim.max_in_flight == 10 and sim.in_flight == 0


def test_simulated_genie_answers_chonkie_style() -> None:
    pytest.importorskip("chonkie")
    from chop_bench.eval.simulated import simulated_genie

    genie = simulated_genie(0, token_counter=lambda text: len(text.split()))
    answer = genie.generate("<passages>\nID 0: a b\nID 1: c d\nID 2: e f\n</passages>")
    assert answer in {"1", "2", "3"}
    assert genie.calls == 1 and genie.prompt_tokens > 0
