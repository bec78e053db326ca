"""Token counters: picklable, offline from the shipped cl100k_base copy, and every name the CLI accepts."""

from __future__ import annotations

import pickle

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations import LumberChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._text.tokens import (
    CharCounter,
    TiktokenCounter,
    WordCounter,
    counter_name,
    default_counter,
    get_encoding,
    resolve_counter,
)
from tests.support.offline import NO_NETWORK_NO_LLAMA_INDEX

TEXT = "Clean the FV-225B filter every 2 weeks. <|endoftext|> 空调 ok"


def test_tiktoken_counter_pickles_as_its_encoding_name_and_counts_the_same_after() -> None:
    counter = TiktokenCounter("cl100k_base")
    data = pickle.dumps(counter)
    assert len(data) < 200  # the name only, not the 100k ranks
    clone = pickle.loads(data)
    assert clone == counter and clone.name == "tiktoken:cl100k_base"
    assert clone(TEXT) == counter(TEXT) == len(get_encoding("cl100k_base").encode(TEXT, disallowed_special=()))


@pytest.mark.parametrize("spec", [None, "cl100k", "cl100k_base", "chars", "words"])
def test_every_builtin_counter_survives_pickle(spec: str | None) -> None:
    counter = resolve_counter(spec)
    clone = pickle.loads(pickle.dumps(counter))
    assert type(clone) is type(counter) and clone(TEXT) == counter(TEXT)


def test_an_engine_holding_the_default_counter_pickles_its_counter() -> None:
    chunker = LumberChunker()
    assert pickle.loads(pickle.dumps(chunker.settings.count))(TEXT) == chunker.settings.count(TEXT)


def test_the_default_counter_is_cl100k() -> None:
    counter = default_counter()
    assert isinstance(counter, TiktokenCounter) and counter.encoding_name == "cl100k_base"
    assert counter("hello world") == len(tiktoken.get_encoding("cl100k_base").encode("hello world"))


def test_chars_and_words() -> None:
    assert CharCounter()("ab c\n") == 5
    assert WordCounter()("  two\twords\n") == 2
    assert WordCounter()("") == 0
    assert counter_name(CharCounter()) == "chars" and counter_name(WordCounter()) == "words"


def test_a_python_path_names_a_function_or_a_class() -> None:
    assert resolve_counter("builtins:len")("abc") == 3
    assert isinstance(resolve_counter("chop_integrations._text.tokens:WordCounter"), WordCounter)
    assert counter_name(resolve_counter("builtins:len")) == "builtins:len"


@pytest.mark.parametrize("spec", ["no_such_module_xyz:f", "builtins:no_such_name", "builtins:__doc__"])
def test_a_bad_python_path_is_a_configuration_error(spec: str) -> None:
    with pytest.raises(ConfigurationError, match="token counter"):
        resolve_counter(spec)


def test_an_unknown_encoding_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown token counter .no_such_encoding"):
        resolve_counter("no_such_encoding")


@pytest.mark.parametrize("spec", ["chars", "words", None])
def test_every_usage_report_names_the_counter_that_counted(spec: str | None) -> None:
    from chop_integrations import CHOPChunker

    text = "Nimbus AC-12\n\nCleaning\n\nClean the filter every three weeks.\n\nWarranty\n\nFive years."
    expected = "tiktoken:cl100k_base" if spec is None else spec
    lumber = LumberChunker(token_counter=spec, max_tokens=50)
    lumber.chunk(text)
    assert lumber.last_usage.token_counter == expected
    assert lumber.estimate([text]).token_counter == expected
    chop = CHOPChunker(token_counter=spec, max_tokens=50)
    chunks = chop.chunk(text)
    assert chop.last_usage.token_counter == expected and f"token_counter={expected}" in chop.last_usage.summary()
    assert chop.estimate([text]).token_counter == expected
    counter = resolve_counter(spec)
    assert all(c.token_count == counter(c.text) <= 50 for c in chunks)


def test_merged_reports_keep_each_counter_once() -> None:
    from chop_integrations._llm.usage import UsageReport

    total = UsageReport()
    for name in ("chars", "chars", "words"):
        total.merge(UsageReport(calls=1, token_counter=name))
    assert total.calls == 3 and total.token_counter == "chars+words"


OFFLINE_SCRIPT = (
    NO_NETWORK_NO_LLAMA_INDEX
    + r"""
import json, logging

logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

from chop_integrations import CHOPChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._text.tokens import resolve_counter

chop = CHOPChunker(max_tokens=60)
chunks = chop.chunk(sys.argv[1])
try:
    resolve_counter("o200k")
    o200k = "loaded"
except ConfigurationError as err:
    o200k = str(err)
print(json.dumps({"count": resolve_counter(None)(sys.argv[1]), "chunks": len(chunks),
                  "counter": chop.last_usage.token_counter, "o200k": o200k}))
"""
)


def test_with_no_cache_no_llama_index_and_no_network_the_shipped_cl100k_counts(tmp_path) -> None:
    import json
    import os
    import subprocess
    import sys

    empty = tmp_path / "empty-cache"
    empty.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(empty), "TMPDIR": str(tmp_path), "DATA_GYM_CACHE_DIR": ""}
    text = "Nimbus AC-12\n\nCleaning\n\nClean the filter every three weeks.\n\nWarranty\n\nFive years. " * 5
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT, text], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["count"] == len(get_encoding("cl100k_base").encode(text, disallowed_special=()))
    assert result["chunks"] > 1 and result["counter"] == "tiktoken:cl100k_base"
    assert "tiktoken cl100k_base, read from the copy shipped with chop-integrations" in done.stderr
    assert "could not load 'o200k_base'" in result["o200k"] and "network blocked by the test" in result["o200k"]
    assert list(empty.iterdir()) == []  # nothing was written to the user's cache


def test_a_download_that_never_answers_is_given_up(monkeypatch) -> None:
    import socket
    import threading

    from chop_integrations._text import tokens

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(server.accept()[0]), daemon=True).start()
    monkeypatch.setitem(tokens._BLOB_URLS, "o200k_base", f"http://127.0.0.1:{server.getsockname()[1]}/o200k")
    try:
        with pytest.raises(TimeoutError):
            tokens._download("o200k_base", timeout=0.5)
    finally:
        for conn in accepted:
            conn.close()
        server.close()


def test_the_shipped_file_is_tiktoken_s_cl100k_base_byte_for_byte() -> None:
    import hashlib

    from chop_integrations._text import tokens

    shipped = tokens.SHIPPED_DIR / tokens._cache_key("cl100k_base")
    assert hashlib.sha256(shipped.read_bytes()).hexdigest() == tokens._SHA256["cl100k_base"]
    assert "MIT License" in (tokens.SHIPPED_DIR / "NOTICE").read_text(encoding="utf-8")


def test_a_damaged_cache_file_is_skipped_not_downloaded_again(tmp_path, monkeypatch, caplog) -> None:
    from chop_integrations._text import tokens

    damaged = tmp_path / tokens._cache_key("cl100k_base")
    damaged.write_bytes(b"truncated")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with caplog.at_level("WARNING", logger="chop_integrations.tokens"):
        found = tokens._find_file("cl100k_base")
    assert found is not None and found[0] != damaged
    assert "damaged or partial" in caplog.text
    assert damaged.read_bytes() == b"truncated"  # left alone: tiktoken would have deleted it and downloaded


_PIECES = st.sampled_from([*"ab cd\n.é空", "FV-225B", "Cleaning", "\n\nWarranty\n\n", "x" * 30])
_TEXTS = st.lists(_PIECES, max_size=120).map("".join)


@given(text=_TEXTS, spec=st.sampled_from(["chars", "words", "cl100k"]), max_tokens=st.integers(3, 40))
def test_every_counter_keeps_chunks_lossless_bounded_and_counted(text: str, spec: str, max_tokens: int) -> None:
    counter = resolve_counter(spec)
    chunks = LumberChunker(token_counter=spec, max_tokens=max_tokens).chunk(text)
    assert "".join(c.text for c in chunks) == text
    assert all(c.token_count == counter(c.text) <= max_tokens for c in chunks)
    assert all(text[c.start : c.end] == c.text for c in chunks)


@pytest.mark.slow
def test_a_run_of_a_million_spaces_between_words_is_counted_not_a_crash() -> None:
    # tiktoken's pattern overflows its stack on such a run: its core's ``encode_ordinary`` then panics (an
    # exception no ``except Exception`` catches), where ``encode`` raises the ValueError the counter handles.
    text = "Some words before" + " " * 1_000_000 + "and after."
    assert TiktokenCounter()(text) > 1_000_000 // 128  # (a space token holds at most 128 spaces here)
    assert "".join(chunk.text for chunk in LumberChunker(max_tokens=500).chunk(text)) == text


@given(st.text(alphabet=st.sampled_from(["\ud800", "\udc00", "\n", " ", "a", "b", ".", "中"]), max_size=40))
def test_a_text_with_a_lone_surrogate_counts_as_tiktoken_counts_it(text: str) -> None:
    # A lone surrogate raises UnicodeEncodeError, a ValueError: it must reach tiktoken's own mending, not the
    # halving meant for whitespace runs (whose halves can count otherwise: "\n\n\ud800" gave 3, tiktoken 2).
    encoding = tiktoken.get_encoding("cl100k_base")
    assert TiktokenCounter()(text) == len(encoding.encode(text, disallowed_special=()))
