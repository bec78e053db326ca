"""``chunk`` with an LLM: a bar of decisions on a terminal only, and the command's limits on calls and tokens.

The real openai client talks to the local OpenAI-compatible test server on a free port; nothing reads the clock.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chop_integrations import _cli as cli
from tests.support.openai_server import MODEL, OpenAITestServer, free_port


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(port=free_port()) as running:
        yield running


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _argv(server: OpenAITestServer, out: Path, *extra: str) -> list[str]:
    return [
        "chunk",
        "--llm-base-url",
        server.base_url,
        "--llm-model",
        MODEL,
        "--no-cache",
        "--decisions",
        "pair",
        "--max-tokens",
        "40",
        "--out",
        str(out),
        *extra,
    ]


def _usage(err: str) -> dict[str, int]:
    line = next(line for line in err.splitlines() if line.startswith("usage: "))
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)\b(?!\.)", line)}


def test_no_bar_when_stderr_is_no_terminal(
    tmp_path: Path, manuals: list[Path], server: OpenAITestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([*_argv(server, tmp_path / "o.jsonl"), *map(str, manuals)]) == 0
    err = capsys.readouterr().err
    assert "decision" not in err and "\r" not in err  # logs and pipes get the usage lines only
    assert _usage(err)["calls"] == len(server.requests) > 0


def test_on_a_terminal_the_bar_counts_decisions_and_ends_at_the_usage_report(
    tmp_path: Path, manuals: list[Path], server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main([*_argv(server, tmp_path / "o.jsonl", "--max-concurrency", "2"), *map(str, manuals)]) == 0
    drawn = terminal.getvalue()
    usage = _usage(drawn)
    frames = [frame for frame in re.split(r"[\r\n]", drawn) if frame.startswith("chunk:")]
    assert len(frames) >= 2, drawn  # it was drawn before the end, not only once at the end
    last = frames[-1]
    assert f"calls {usage['calls']} " in last
    assert f"tokens {usage['prompt_tokens']}+{usage['completion_tokens']} of ~" in last
    assert "doc 2/2" in last
    done, planned = map(int, re.search(r"(\d+)/(\d+) \[", last).groups())  # type: ignore[union-attr]
    assert done == planned >= usage["calls"] - usage["retries"] > 0


@pytest.mark.parametrize("limit", [1, 3, 7])
def test_max_calls_stops_the_command_and_writes_nothing(
    tmp_path: Path,
    manuals: list[Path],
    server: OpenAITestServer,
    capsys: pytest.CaptureFixture[str],
    limit: int,
) -> None:
    out = tmp_path / "chunks.jsonl"
    out.write_text("an earlier output\n", encoding="utf-8")
    argv = [*_argv(server, out, "--max-calls", str(limit), "--max-concurrency", "4"), *map(str, manuals)]
    assert cli.main(argv) == 3
    err = capsys.readouterr().err
    assert len(server.requests) == limit  # every document together: no call past the limit was sent
    assert out.read_text(encoding="utf-8") == "an earlier output\n"  # the earlier output stays as it was
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".chunks.jsonl.")]  # no temporary file left
    assert _usage(err)["calls"] == limit and "(stopped by the limit)" in err
    assert f"limit of {limit} LLM calls" in err and f"{out} was not written" in err


def test_max_llm_tokens_stops_the_command_near_the_limit(
    tmp_path: Path, manuals: list[Path], server: OpenAITestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "chunks.jsonl"
    assert cli.main([*_argv(server, out, "--max-concurrency", "1"), *map(str, manuals)]) == 0
    whole = _usage(capsys.readouterr().err)
    limit = (whole["prompt_tokens"] + whole["completion_tokens"]) // 2
    out.unlink()
    assert cli.main([*_argv(server, out, "--max-llm-tokens", str(limit)), *map(str, manuals)]) == 3
    spent = _usage(capsys.readouterr().err)
    assert not out.exists()
    assert spent["prompt_tokens"] <= limit < whole["prompt_tokens"] + whole["completion_tokens"]


@pytest.mark.parametrize("flag", ["--max-calls", "--max-llm-tokens"])
def test_a_bad_limit_is_a_usage_error(
    tmp_path: Path, manuals: list[Path], server: OpenAITestServer, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    assert cli.main([*_argv(server, tmp_path / "o.jsonl", flag, "0"), *map(str, manuals)]) == 2
    assert f"argument {flag}: must be at least 1" in capsys.readouterr().err
    assert not server.requests
