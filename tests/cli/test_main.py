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


def test_missing_bench_extra_names_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(cli.LAZY_COMMANDS, "bench", ("chop_integrations_no_such_module.cli", "benchmark", "bench"))
    assert cli.main(["bench", "--corpus", "x"]) == 2
    err = capsys.readouterr().err
    assert "needs the 'bench' extra" in err
    assert "pip install 'chop-integrations[bench]'" in err


def test_bench_commands_are_listed_without_importing_them() -> None:
    help_text = cli.build_parser(["chunk"]).format_help()
    assert "bench" in help_text and "bench-llm" in help_text


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
        "         'chonkie', 'bm25s', 'matplotlib', 'chop_integrations._bench.eval']\n"
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
