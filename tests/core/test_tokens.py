"""Token counters: picklable, offline from the shipped cl100k_base copy, and every name the CLI accepts."""

from __future__ import annotations

import pickle

import pytest
import tiktoken

from chop_integrations import LumberChunker
from chop_integrations.errors import ConfigurationError
from chop_integrations.tokens import (
    CharCounter,
    TiktokenCounter,
    WordCounter,
    counter_name,
    default_counter,
    get_encoding,
    resolve_counter,
)

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
    assert pickle.loads(pickle.dumps(chunker.count))(TEXT) == chunker.count(TEXT)


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
    assert isinstance(resolve_counter("chop_integrations.tokens:WordCounter"), WordCounter)
    assert counter_name(resolve_counter("builtins:len")) == "builtins:len"


@pytest.mark.parametrize("spec", ["no_such_module_xyz:f", "builtins:no_such_name", "builtins:__doc__"])
def test_a_bad_python_path_is_a_configuration_error(spec: str) -> None:
    with pytest.raises(ConfigurationError, match="token counter"):
        resolve_counter(spec)


def test_an_unknown_encoding_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="no_such_encoding"):
        resolve_counter("no_such_encoding")
