"""The command line's frame: --version, --help, logging, lazily imported benchmark commands."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import chop_integrations
from chop_integrations import _cli as cli

SCRIPT = Path(sys.executable).with_name("chop-integrations")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"chop-integrations {chop_integrations.__version__}"


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert "chunk" in capsys.readouterr().err


def test_unknown_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--method", "bogus", "x.txt"]) == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_max_tokens_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", "--max-tokens", "0", "x.txt"]) == 2
    assert "max_tokens must be an integer >= 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize(("flags", "level"), [([], logging.WARNING), (["-v"], logging.INFO), (["-vv"], logging.DEBUG)])
def test_verbosity_sets_the_package_log_level(flags: list[str], level: int) -> None:
    cli.main([*flags, "--version"])  # --version exits in the parser, before logging is configured
    cli.configure_logging(flags[0].count("v") if flags else 0)
    assert logging.getLogger("chop_integrations").level == level


def test_warnings_reach_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    cli.configure_logging(0)
    logging.getLogger("chop_integrations.test").warning("fell back to the offline decider")
    logging.getLogger("chop_integrations.test").info("hidden at the default level")
    err = capsys.readouterr().err
    assert "WARNING: fell back to the offline decider" in err
    assert "hidden" not in err


def test_a_command_whose_module_is_missing_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    broken = cli.Command("bench", "benchmark", "chop_integrations_no_such_module.cli", install="pip install -e ./bench")
    assert cli.main(["bench", "--corpus", "x"], commands={"bench": broken}) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "could not be loaded" in err[0] and "pip install -e ./bench" in err[0]


def test_a_command_with_a_missing_package_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    needy = cli.Command(
        "bench-x",
        "needs a package",
        "chop_integrations._cli.demo",
        needs=("no_such_pkg_xyz",),
        install="pip install it",
    )
    assert cli.main(["bench-x"], commands={"bench-x": needy}) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "chop-integrations: error: bench-x needs no_such_pkg_xyz: pip install it"
    ]


def test_a_command_no_distribution_registers_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """What a core-only install says to a bench command: one line, the way to get it, no traceback."""
    assert cli.main(["bench-speed", "--help"], commands={c.name: c for c in cli.COMMANDS}) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "chop-integrations: error: unknown command 'bench-speed' (choose from chunk, demo); the benchmark commands "
        "come with the chop-integrations-bench package, beside the library in its repository: pip install -e ./bench"
    ]


def test_bench_commands_are_listed_without_importing_them() -> None:
    help_text = cli.build_parser(["chunk"]).format_help()
    assert "bench" in help_text and "bench-llm" in help_text


def test_the_bench_distribution_registers_every_bench_command() -> None:
    """The entry points of bench/pyproject.toml name the records ``chop-bench`` runs (the development install)."""
    from chop_bench.commands import COMMANDS

    registered = cli.registered()
    assert all(registered.get(command.name) is command for command in COMMANDS), (
        "the bench commands are not registered: install the benchmark package (pip install -e ./bench)"
    )
    assert [command.name for command in cli.COMMANDS] == ["chunk", "demo"]


def test_chop_bench_runs_the_same_records(capsys: pytest.CaptureFixture[str]) -> None:
    from chop_bench.cli import main as bench_main

    assert bench_main(["--help"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("commands:")[1].splitlines()[2:] if line.startswith("    ")]
    assert {"bench", "bench-speed", "bench-structure"} <= set(listed) and "chunk" not in listed
    assert bench_main(["bench-stress", "--help"]) == 0
    assert "chop-bench bench-stress" in capsys.readouterr().out


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_console_script_help() -> None:
    assert SCRIPT.exists(), f"console script missing at {SCRIPT}; pip install -e . first"
    result = _run(str(SCRIPT), "--help")
    assert result.returncode == 0, result.stderr
    for command in ("chunk", "demo", "bench", "bench-llm"):
        assert command in result.stdout


def test_chunk_imports_no_heavy_library(tmp_path: Path) -> None:
    document = tmp_path / "doc.txt"
    document.write_text("Title\n\nOne paragraph about kettles.\n\nAnother about descaling.\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from chop_integrations._cli import main\n"
        f"rc = main(['chunk', '--out', {str(tmp_path / 'out.jsonl')!r}, {str(document)!r}])\n"
        "heavy = ['torch', 'sentence_transformers', 'langchain_core', 'llama_index.core', 'openai',\n"
        "         'chonkie', 'bm25s', 'matplotlib', 'chop_bench.eval']\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(rc, loaded)\n"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0 []"


@pytest.mark.parametrize("command", ["bench", "bench-llm"])
def test_bench_commands_are_registered_from_eval(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"chop-integrations {command}" in out and "--corpus" in out


def test_broken_pipe_ends_quietly(tmp_path: Path) -> None:
    document = tmp_path / "doc.txt"
    paragraphs = (f"Paragraph {i} about kettles and descaling." for i in range(3000))
    document.write_text("\n\n".join(paragraphs), encoding="utf-8")  # far more JSON than a pipe buffer holds
    reader = subprocess.Popen([str(SCRIPT), "chunk", str(document)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()
    reader.stdout.close()  # the reader goes away, like `| head -1`
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=120) == 141
    assert "Traceback" not in err


#: A record that claims a library command's name (the registry keeps the library's).
IMPOSTOR = cli.Command("demo", "not the demo", "chop_integrations._cli.chunk")


def test_the_registry_leaves_out_broken_and_clashing_entry_points(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from importlib.metadata import EntryPoint

    from chop_integrations._cli import registry

    group = registry.ENTRY_POINT_GROUP
    entries = [
        EntryPoint("bench-gone", "chop_integrations_no_such_module:X", group),  # its module is not installed
        EntryPoint("bench-misnamed", "tests.cli.test_main:IMPOSTOR", group),  # names a record of another name
        EntryPoint("demo", "tests.cli.test_main:IMPOSTOR", group),  # takes a library command's name
    ]
    monkeypatch.setattr(registry.importlib.metadata, "entry_points", lambda group: entries)
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        commands = cli.registered()
    assert list(commands) == ["chunk", "demo"] and commands["demo"] is cli.COMMANDS[1]
    warned = " ".join(record.getMessage() for record in caplog.records)
    assert "bench-gone" in warned and "bench-misnamed" in warned and "registered twice" in warned
