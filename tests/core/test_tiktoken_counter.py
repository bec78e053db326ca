"""TiktokenCounter and the counter helpers, by what they answer: counts equal to tiktoken's, names, errors."""

from __future__ import annotations

import functools
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._errors import ConfigurationError
from chop_integrations._text.tokens import (
    PIECE_CHARS,
    CharCounter,
    TiktokenCounter,
    WordCounter,
    counter_name,
    get_encoding,
    resolve_counter,
    tiktoken_counter,
)

CL100K = TiktokenCounter("cl100k_base")


def _exact(text: str) -> int:
    return len(get_encoding("cl100k_base").encode(text, disallowed_special=()))


class Counters:
    """Counters reached by a dotted path (``module:Counters.words``)."""

    @staticmethod
    def words(text: str) -> int:
        return len(text.split())


class Sized:
    """A counter object without a ``name``."""

    def __call__(self, text: str) -> int:
        return len(text)


def test_a_text_over_twice_the_piece_size_counts_as_one_encoding() -> None:
    """Past ``2 * PIECE_CHARS`` characters the count is summed over pieces cut at line starts: still exact."""
    line = "X Zeile 数据库 <|endoftext|> 1234 ...\nX  indented\nX plain words go here, \u00e9t\u00e9!\n"
    text = line * (2 * PIECE_CHARS // len(line) + 50)
    assert len(text) > 2 * PIECE_CHARS
    assert CL100K(text) == _exact(text)
    tail = text[: 2 * PIECE_CHARS + 17]  # ends inside a line
    assert CL100K(tail) == _exact(tail)


def test_a_text_of_several_pieces_counts_every_piece() -> None:
    """Over three pieces' worth: the lines start with a letter after a line break, so their counts add up."""
    line = "X pump valve 数据库 1234.\n"
    assert _exact(line * 1000) == 1000 * _exact(line)  # (the joints are clean: the sum is the whole count)
    n = 3 * PIECE_CHARS // len(line) + 100
    assert CL100K(line * n) == n * _exact(line)


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.sampled_from(list("ab 数据库\n\t.<|endoftext|>\ud800é")), max_size=300))
def test_a_count_is_tiktokens_count_special_tokens_as_text(text: str) -> None:
    assert CL100K(text) == _exact(text)


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.sampled_from(list("ab 数据库\n.é😀")), min_size=1, max_size=200), tokens=st.integers(0, 60))
def test_head_end_gives_the_count_and_where_the_first_tokens_end(text: str, tokens: int) -> None:
    found = CL100K.head_end(text, tokens)
    assert found is not None
    count, end = found
    assert count == _exact(text)
    if count <= tokens:
        assert end == len(text)
    else:
        ids = get_encoding("cl100k_base").encode(text, disallowed_special=())
        head = b"".join(get_encoding("cl100k_base").decode_tokens_bytes(ids[:tokens]))
        assert text[:end].encode() == head[: len(text[:end].encode())]  # the whole characters of the head
        assert 0 <= len(head) - len(text[:end].encode()) < 4  # a character cut between tokens is left out


def test_head_end_of_an_unpickled_counter_loads_its_encoding() -> None:
    clone = pickle.loads(pickle.dumps(CL100K))
    assert clone.head_end("hello world, again", 2) == (4, len("hello world"))
    assert clone == CL100K and hash(clone) == hash(CL100K)


def test_counters_are_equal_by_encoding_and_aliases_resolve() -> None:
    assert TiktokenCounter("cl100k").encoding_name == "cl100k_base" and TiktokenCounter("cl100k").name == (
        "tiktoken:cl100k_base"
    )
    assert TiktokenCounter("cl100k") == CL100K and len({TiktokenCounter("cl100k"), CL100K}) == 1
    assert CL100K != CharCounter() and CL100K != "cl100k_base"
    assert tiktoken_counter() == CL100K and tiktoken_counter("cl100k") == CL100K
    assert isinstance(tiktoken_counter(), TiktokenCounter) and tiktoken_counter()("数据库") == 1


def test_counter_names() -> None:
    assert counter_name(CL100K) == "tiktoken:cl100k_base" and counter_name(CharCounter()) == "chars"
    assert counter_name(WordCounter()) == "words"
    assert counter_name(len) == "builtins:len"
    assert counter_name(Counters.words) == f"{__name__}:Counters.words"
    assert counter_name(Sized()) == f"{__name__}:Sized"  # an object: its class
    assert counter_name(functools.partial(len)) == "functools:partial"


def test_a_dotted_path_reaches_an_attribute_of_an_attribute() -> None:
    counter = resolve_counter(f"{__name__}:Counters.words")
    assert counter("two words") == 2
    assert isinstance(resolve_counter(f"{__name__}:Sized"), Sized)  # a class: an instance counts


def test_anything_else_is_refused_naming_its_type() -> None:
    for bad in (3, 2.5, b"chars"):
        with pytest.raises(ConfigurationError) as caught:
            resolve_counter(bad)  # type: ignore[arg-type]
        assert str(caught.value) == (
            f"token_counter must be None, a name, a 'module:function' path or a callable, got {type(bad).__name__}"
        )
