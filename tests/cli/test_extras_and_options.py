"""`-v` after the command, `--token-counter`, and one line naming the extra a command needs."""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chop_integrations import _cli as cli
from chop_integrations._cli import chunk as cli_chunk
from chop_integrations._text.tokens import WordCounter, default_counter


@pytest.fixture
def restore_log_level() -> object:
    logger = logging.getLogger("chop_integrations")
    level = logger.level
    yield logger
    logger.setLevel(level)


@pytest.mark.parametrize(
    ("argv", "level"),
    [(["-vv"], logging.DEBUG), (["-v"], logging.INFO), ([], logging.WARNING)],
)
def test_verbosity_after_the_command(
    tmp_path: Path, manuals: list[Path], restore_log_level: logging.Logger, argv: list[str], level: int
) -> None:
    assert cli.main(["chunk", "--out", str(tmp_path / "o.jsonl"), str(manuals[0]), *argv]) == 0
    assert restore_log_level.level == level


def test_verbosity_before_and_after_add_up(
    tmp_path: Path, manuals: list[Path], restore_log_level: logging.Logger
) -> None:
    assert cli.main(["-v", "chunk", "--out", str(tmp_path / "o.jsonl"), str(manuals[0]), "-v"]) == 0
    assert restore_log_level.level == logging.DEBUG


@pytest.mark.parametrize(
    ("spec", "counter"), [("words", WordCounter()), ("cl100k", default_counter()), ("builtins:len", len)]
)
def test_token_counter_bounds_and_counts_every_chunk(
    tmp_path: Path, manuals: list[Path], capsys: pytest.CaptureFixture[str], spec: str, counter: object
) -> None:
    out = tmp_path / "chunks.jsonl"
    argv = ["chunk", "--method", "chop", "--max-tokens", "12", "--token-counter", spec, "--out", str(out)]
    assert cli.main([*argv, *map(str, manuals)]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) > 2
    assert all(r["token_count"] == counter(r["chop_text"]) <= 12 for r in records)  # type: ignore[operator]
    name = {"cl100k": "tiktoken:cl100k_base"}.get(spec, spec)
    assert f"token_counter={name}" in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["no_such_module_xyz:count", "no_such_encoding"])
def test_a_bad_token_counter_is_one_usage_error(
    manuals: list[Path], capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    assert cli.main(["chunk", "--token-counter", spec, str(manuals[0])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and spec in err[0]


def test_a_missing_optional_package_at_run_time_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, manuals: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    def needs_langchain(args: argparse.Namespace) -> int:
        raise ModuleNotFoundError("No module named 'langchain_core'", name="langchain_core")

    monkeypatch.setattr(cli_chunk, "_run_chunk", needs_langchain)
    assert cli.main(["chunk", str(manuals[0])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "chop-integrations: error: chunk needs the 'langchain' extra (no module named 'langchain_core'): "
        "pip install 'chop-integrations[langchain]'"
    ]


@pytest.mark.parametrize(
    "module",
    [
        "chop_integrations.nothing",  # a module of its own: a bug
        "numpy",  # a package chunk never imports and the library has no extra for: a bug too
    ],
)
def test_a_missing_module_no_extra_installs_is_not_blamed_on_one(
    monkeypatch: pytest.MonkeyPatch, manuals: list[Path], module: str
) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    monkeypatch.setattr(cli_chunk, "_run_chunk", broken)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["chunk", str(manuals[0])])


BLOCKED_RUN = r"""
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "chonkie"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
from chop_integrations._cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("command", ["bench", "bench-llm"])
def test_bench_without_its_packages_prints_one_line_and_exits_2(tmp_path: Path, command: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, command, "--corpus", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"chop-integrations: error: {command} needs numpy, chonkie: "
        "pip install -e ./bench (the benchmark package, in the repository)"
    ]
