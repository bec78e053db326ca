"""Every command's options, fuzzed: no traceback, and an exit code of 0, 1 or 2 only.

The parser is built as the command line builds it and each command's options are read from it, so an
option added later is fuzzed too. Each option is left out or given a drawn value: numbers that are no
numbers (``nan``, ``inf``, ``1e400``, negative, huge), empty strings, garbage, paths that are a file, a
folder, missing or below a file. ``chunk`` and ``demo`` run for real on tiny inputs; a bench command is
stopped where its work would start (its options are all checked before it), so only its checks run.
Options that reach a network (``--llm-base-url``, ``--llm-model``) are left out: the suite runs offline.
"""

from __future__ import annotations

import argparse
import importlib
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chop_bench.commands import COMMANDS as BENCH_COMMANDS
from chop_integrations._cli import COMMANDS as LIBRARY_COMMANDS
from chop_integrations._cli import build_parser, main

#: Options never fuzzed: they reach a network endpoint or name the variable of an API key.
OFFLINE_ONLY = {"--llm-base-url", "--llm-model", "--llm-api-key-env"}
#: Where each bench command's work starts: stopped there, so the fuzz runs its checks only.
WORK = {
    "bench": [("chop_bench.eval.suites", "run_suites")],
    "bench-llm": [("chop_bench.eval.bench_llm", "run_bench")],
    "bench-stress": [
        ("chop_bench.stress", "run_stress"),
        ("chop_bench.stress_answers", "run_answer_stress"),
    ],
    "bench-speed": [
        ("chop_bench.speed", "measure_splitters"),
        ("chop_bench.speed", "measure_sizes"),
    ],
    "bench-structure": [("chop_bench.structure", "run_set")],
    "bench-scale": [
        ("chop_bench.scale.incremental", "run"),
        ("chop_bench.scale.ray_scenario", "run"),
        ("chop_bench.scale.stream", "run"),
    ],
}
NUMBERS = ["nan", "inf", "-inf", "1e400", "-1", "0", "1", "2", "0.5", "-0.0", "1" + "0" * 30, "1" * 5000]
WORDS = ["", " ", ",", "garbage", "1,2", "nan,1", "default", "lumber", "chop", "\u00e9\u4e2d", "--", "{model:>9999}"]
#: Every command: the library's and the benchmark package's records (named here, so that every one is fuzzed).
REGISTRY = {command.name: command for command in (*LIBRARY_COMMANDS, *BENCH_COMMANDS)}
COMMANDS = list(REGISTRY)


class WorkStarted(Exception):
    """Raised where a bench command's work would start: its options passed every check."""


def options_of(command: str) -> tuple[list[argparse.Action], list[argparse.Action]]:
    """The optional and the positional arguments of ``command``, as the command line builds its parser."""
    parser = build_parser([command], commands=REGISTRY)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    actions = [a for a in sub._actions if not isinstance(a, (argparse._HelpAction, argparse._VersionAction))]
    return [a for a in actions if a.option_strings], [a for a in actions if not a.option_strings]


def paths(folder: Path) -> list[str]:
    """Paths of every kind: a text file, a folder, a missing one, one below a file, one not UTF-8."""
    (folder / "doc.txt").write_text("# Pump\n\nThe pump moves water. It has a filter.\n", encoding="utf-8")
    (folder / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (folder / "dir").mkdir(exist_ok=True)
    return [str(folder / name) for name in ("doc.txt", "latin1.txt", "dir", "missing", "doc.txt/below", "-")]


def value_for(action: argparse.Action, folder_paths: list[str]) -> st.SearchStrategy[str]:
    """Values for an option that takes one: its choices and garbage, or numbers, words and paths."""
    if action.choices:
        return st.sampled_from([*map(str, action.choices), "garbage", ""])
    return st.sampled_from([*NUMBERS, *WORDS, *folder_paths])


def draw_argv(data: st.DataObject, command: str, folder_paths: list[str]) -> list[str]:
    """A command line for ``command``: each option left out or given, a value written ``--opt=value``."""
    optional, positional = options_of(command)
    argv = [command]
    for action in optional:
        flag = action.option_strings[-1]
        if flag in OFFLINE_ONLY or not data.draw(st.booleans(), label=flag):
            continue
        if action.nargs == 0:
            argv.append(flag)
        else:
            argv.append(f"{flag}={data.draw(value_for(action, folder_paths), label=flag)}")
    for action in positional:
        argv += data.draw(st.lists(st.sampled_from(folder_paths), min_size=0, max_size=2), label=action.dest)
    return argv


def run_fuzzed(
    command: str, data: st.DataObject, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def started(*args: Any, **kwargs: Any) -> Any:
        raise WorkStarted

    for module, name in WORK.get(command, []):
        monkeypatch.setattr(importlib.import_module(module), name, started)
    argv = draw_argv(data, command, paths(folder))
    try:
        code = main(argv, commands=REGISTRY)
    except WorkStarted:
        code = 0
    err = capsys.readouterr().err
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)


#: Examples per command (``CHOP_FUZZ_EXAMPLES=500`` for a longer hunt).
EXAMPLES = int(os.environ.get("CHOP_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "demo"])
@FUZZ
@given(data=st.data())
def test_fuzzed_options_end_with_exit_code_0_1_or_2(
    command: str,
    data: st.DataObject,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if missing := REGISTRY[command].missing():
        pytest.skip(f"{command} needs {missing}")
    monkeypatch.chdir(tmp_path)  # a relative path drawn lands here
    with monkeypatch.context() as patch:
        run_fuzzed(command, data, tmp_path, patch, capsys)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_demo_options_end_with_exit_code_0_1_or_2(
    data: st.DataObject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as patch:
        run_fuzzed("demo", data, tmp_path, patch, capsys)


def test_every_command_has_its_options_read() -> None:
    for command in COMMANDS:
        optional, _ = options_of(command)
        assert any(a.option_strings[-1] == "--verbose" for a in optional), command
    assert {"--max-tokens", "--llm-timeout", "--out", "--prefix"} <= {
        flag for a in options_of("chunk")[0] for flag in a.option_strings
    }
