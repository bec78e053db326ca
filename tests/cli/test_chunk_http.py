"""`chunk` end to end over HTTP: the real openai client against the local OpenAI-compatible test server.

The server runs on a free loopback port for the duration of the test (no cassette
needed: nothing leaves the machine), so this covers option parsing, the client
(max_retries=0), the runner, the cache and the JSON Lines output together.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from chop_integrations import _cli as cli
from tests.support.openai_server import MODEL, OpenAITestServer, free_port


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(port=free_port()) as running:
        yield running


@pytest.mark.parametrize("method", ["lumber", "chop"])
def test_chunk_through_an_openai_compatible_endpoint(
    tmp_path: Path,
    manuals: list[Path],
    server: OpenAITestServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    method: str,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "chunks.jsonl"
    argv = ["chunk", "--method", method, "--llm-base-url", server.base_url, "--llm-model", MODEL]
    argv += ["--cache", str(tmp_path / "cache.sqlite"), "--max-tokens", "40", "--out", str(out)]
    assert cli.main([*argv, *map(str, manuals)]) == 0
    err = capsys.readouterr().err
    assert server.requests, "no request reached the endpoint"
    assert all(body["model"] == MODEL and body["temperature"] == 0 for body in server.requests)
    assert f"calls={len(server.requests)} " in err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for path in manuals:
        text = path.read_text(encoding="utf-8")
        mine = [r for r in records if r["doc"] == path.stem]
        assert "".join(r["chop_text"] for r in mine) == text
        assert all(text[r["start"] : r["end"]] == r["chop_text"] for r in mine)
    sent = len(server.requests)
    assert cli.main([*argv, *map(str, manuals)]) == 0
    assert len(server.requests) == sent, "a repeated ingest must be served from the cache"
    assert "calls=0 " in capsys.readouterr().err
