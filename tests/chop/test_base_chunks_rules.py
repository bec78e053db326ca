"""Chunk building from a splitter's strings (lossless offsets), the prefix template checks, the metadata keys."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._chop.base_chunks import (
    check_template,
    name_metadata,
    signature_metadata,
    split_chunks,
    split_offsets,
    splitter_of,
)
from chop_integrations._deciders import DocContext
from chop_integrations._errors import ConfigurationError
from chop_integrations._text.tokens import CharCounter
from chop_integrations._types import CNM

texts = st.text(st.sampled_from(list("ab  \n\t.xy")), max_size=60)


def _partition(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _check_lossless(text: str, spans: list[tuple[int, int]]) -> None:
    assert "".join(text[a:b] for a, b in spans) == text
    assert all(a < b for a, b in spans) and all(x[1] == y[0] for x, y in itertools.pairwise(spans))


@settings(max_examples=300, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 100), max_size=8))
def test_slices_of_the_text_become_its_spans(text: str, cuts: list[int]) -> None:
    pieces = _partition(text, cuts)
    spans = split_offsets(text, pieces)
    _check_lossless(text, spans)
    starts, position = [], 0
    for piece in pieces:
        if piece.strip():
            starts.append(position)
        position += len(piece)
    expected = [0, *starts[1:]] if starts else ([0] if text else [])
    assert [a for a, _ in spans] == expected


@settings(max_examples=300, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 100), max_size=8))
def test_stripped_slices_start_at_their_first_visible_character(text: str, cuts: list[int]) -> None:
    pieces = _partition(text, cuts)
    spans = split_offsets(text, [p.strip() for p in pieces])
    _check_lossless(text, spans)
    starts, position = [], 0
    for piece in pieces:
        if piece.strip():
            starts.append(position + len(piece) - len(piece.lstrip()))
        position += len(piece)
    assert [a for a, _ in spans] == ([0, *starts[1:]] if starts else ([0] if text else []))


WORDS = [f"w{i}" for i in range(40)]  # each once in a text: a piece lies in one place only
SEPARATORS = [" ", "  ", "\n", "\n\n", " \t", ". "]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), loose=st.booleans())
def test_overlapping_and_reflowed_pieces_start_where_they_lie(data: st.DataObject, loose: bool) -> None:
    """Windows over the words (overlapping, with gaps, whitespace reflowed or not) start at their first word."""
    n = data.draw(st.integers(1, 30))
    separators = data.draw(st.lists(st.sampled_from(SEPARATORS), min_size=n, max_size=n))
    text = "".join(w + sep for w, sep in zip(WORDS[:n], separators, strict=True))
    word_starts = [text.index(w + sep) for w, sep in zip(WORDS[:n], separators, strict=True)]
    firsts = sorted(set(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8))))
    pieces = []
    for first in firsts:
        last = data.draw(st.integers(first, min(n - 1, first + 6)))
        piece = text[word_starts[first] : word_starts[last] + len(WORDS[last])]
        pieces.append(" ".join(piece.split()) if loose else piece)
    spans = split_offsets(text, pieces)
    _check_lossless(text, spans)
    assert [a for a, _ in spans] == [0, *(word_starts[first] for first in firsts[1:])]


def test_overlapping_pieces_become_adjacent_spans() -> None:
    text = "one two three four five"
    assert split_offsets(text, ["one two three", "three four", "four five"]) == [(0, 8), (8, 14), (14, 23)]
    assert split_offsets(text, ["one two three four", "two three"]) == [(0, 4), (4, 23)]  # inside the one before


def test_whitespace_the_splitter_changed_is_found_loosely() -> None:
    text = "alpha  beta\n\ngamma delta"
    assert split_offsets(text, ["alpha beta", "gamma   delta"]) == [(0, 13), (13, 24)]
    with pytest.raises(ConfigurationError, match="piece 1"):
        split_offsets(text, ["alpha beta", "alpha beta"])  # once in the text: a second one is no slice of it


def test_an_overlapping_piece_is_found_after_the_previous_start_not_before() -> None:
    assert split_offsets("x y x y", ["x y x y", "x y"]) == [(0, 4), (4, 7)]  # the tail window, not the head
    assert split_offsets("ab  cd", ["ab  cd", "b cd"]) == [(0, 1), (1, 6)]  # reflowed, one character on


def test_a_text_found_again_later_is_taken_in_order() -> None:
    text = "x. y. x. z."
    assert split_offsets(text, ["x.", "y.", "x.", "z."]) == [(0, 3), (3, 6), (6, 9), (9, 11)]


def test_blank_pieces_and_empty_texts() -> None:
    assert split_offsets("", []) == [] and split_offsets("", [" "]) == []
    assert split_offsets("abc", []) == [(0, 3)] and split_offsets("abc", ["  ", "\n"]) == [(0, 3)]


def test_a_piece_not_in_the_text_is_refused_naming_it() -> None:
    with pytest.raises(ConfigurationError) as caught:
        split_offsets("alpha beta", ["alpha", "omega " * 10])
    assert str(caught.value) == (
        "the chunker's piece 1 ('omega omega omega omega omega omega omeg'...) is not in the document; CHOP needs "
        "a splitter that returns slices of its input (whitespace may differ)"
    )
    with pytest.raises(ConfigurationError) as caught:
        split_offsets("alpha beta", ["alpha", 3])  # type: ignore[list-item]
    assert str(caught.value) == "the chunker returned a int at 1; it must return strings"


def test_split_chunks_carry_offsets_counts_and_metadata() -> None:
    doc = DocContext(doc_id="d", text="one two. three four.", metadata={"source": "s"})
    chunks = split_chunks(doc, ["one two.", "three four."], CharCounter())
    assert [(c.text, c.start, c.end, c.token_count) for c in chunks] == [
        ("one two. ", 0, 9, 9),
        ("three four.", 9, 20, 11),
    ]
    assert [c.metadata["chunk_index"] for c in chunks] == [0, 1]
    assert [c.metadata["start_index"] for c in chunks] == [0, 9]


# -- templates -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        *("{model}: ", "[{category} | {nouns}] ", "{model:>200}", "{model:0>200}", "{nouns:.200}", "{{x}} {model}"),
        *("{model:.0}", "{model:>0200}", "{category:>5}", "{model:200}"),
    ],
)
def test_templates_within_the_limits_are_kept(template: str) -> None:
    assert check_template(template) == template


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (3, "prefix must be a str, got int"),
        (
            "{model",
            "prefix '{model' is not a valid str.format template with the fields {category}, {nouns} and "
            "{model}: expected '}' before end of string",
        ),
        (
            "{title} {model}",
            "prefix may use only {category}, {nouns} and {model}; got ['title'] (write a literal brace as {{ or }})",
        ),
        ("{model:>201}", "prefix '{model:>201}': a format width or precision must be <= 200, got 201"),
        ("{model:300}", "prefix '{model:300}': a format width or precision must be <= 200, got 300"),
        (
            "x" * 68 + "{model:>300}",
            f"prefix {'x' * 68 + '{model:>300}'!r}: a format width or precision must be <= 200, got 300",
        ),  # 80 characters: shown whole
        (
            "x" * 69 + "{model:>300}",
            f"prefix {'x' * 69 + '{model:>...'!r}: a format width or precision must be <= 200, got 300",
        ),  # 81: cut
        ("{model:0>0000201}", "prefix '{model:0>0000201}': a format width or precision must be <= 200, got 0000201"),
        (
            "{nouns:.99999999999999}",
            "prefix '{nouns:.99999999999999}': a format width or precision must be <= 200, got 999999999999",
        ),
        ("{model:>{nouns}}", "prefix '{model:>{nouns}}': a format spec may not hold a field ('>{nouns}')"),
        ("{model:d}", "prefix '{model:d}' cannot be rendered: Unknown format code 'd' for object of type 'str'"),
        (
            "{model.x}",
            "prefix may use only {category}, {nouns} and {model}; got ['model.x'] (write a literal brace as {{ or }})",
        ),
        (
            "x" * 90 + "{model:>300}",
            f"prefix {'x' * 77 + '...'!r}: a format width or precision must be <= 200, got 300",
        ),
    ],
)
def test_other_templates_are_refused_with_the_reason(template: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_template(template)  # type: ignore[arg-type]
    assert str(caught.value) == message


# -- metadata and splitters ----------------------------------------------------------------------------------------


def test_signature_metadata_has_one_type_per_key() -> None:
    cnm = CNM(category="kettle", nouns=["Setup", "Descaling"], model="K1")
    names = {"chop_model_source": "title", "chop_aliases": "Kettle One"}
    assert signature_metadata(cnm, "K1: [Setup | K1] ", None, names) == {
        "chop_category": "kettle",
        "chop_nouns": "Setup, Descaling",
        "chop_model": "K1",
        "chop_prefix": "K1: [Setup | K1] ",
        "chop_continues": False,
        "chop_model_source": "title",
        "chop_aliases": "Kettle One",
    }
    assert signature_metadata(None, "", True, names) == {
        "chop_category": "",
        "chop_nouns": "",
        "chop_model": "",
        "chop_prefix": "",
        "chop_continues": True,
        "chop_model_source": "",
        "chop_aliases": "",
    }
    assert signature_metadata(CNM(category="kettle"), "", 1, names)["chop_model_source"] == ""
    assert signature_metadata(cnm, "", True)["chop_aliases"] == ""
    assert signature_metadata(cnm, "", True)["chop_model_source"] == ""


def test_name_metadata_says_where_the_name_came_from() -> None:
    doc = DocContext(doc_id="d", text="", metadata={"model": "Kettle K1"})
    assert name_metadata(doc, None) == {"chop_model_source": "", "chop_aliases": ""}
    assert name_metadata(doc, CNM()) == {"chop_model_source": "", "chop_aliases": ""}
    assert name_metadata(doc, CNM(model="kettle k1")) == {"chop_model_source": "model", "chop_aliases": ""}
    assert name_metadata(doc, CNM(model="Other|Name")) == {"chop_model_source": "chunks", "chop_aliases": "Kettle K1"}
    piped = DocContext(doc_id="d", text="", metadata={"model": "Kettle|K1"})  # the separator never inside an alias
    assert name_metadata(piped, CNM(model="Other")) == {"chop_model_source": "chunks", "chop_aliases": "Kettle K1"}


class Engine:
    def chunk_many(self, texts: list[str]) -> list[str]:
        return texts

    async def achunk_many(self, texts: list[str]) -> list[str]:
        return texts


class Splitter:
    def split_text(self, text: str) -> list[str]:
        return [text]


class HalfEngine(Splitter):
    """A splitter with one of an engine's two methods: still a splitter."""

    def chunk_many(self, texts: list[str]) -> list[str]:
        return texts


class AsyncHalfEngine(Splitter):
    async def achunk_many(self, texts: list[str]) -> list[str]:
        return texts


def test_splitter_of_each_kind() -> None:
    for half in (HalfEngine(), AsyncHalfEngine()):
        assert splitter_of(half) == half.split_text
    assert splitter_of(Engine()) is None
    splitter = Splitter()
    assert splitter_of(splitter) == splitter.split_text
    assert splitter_of(str.split) is str.split
    with pytest.raises(ConfigurationError) as caught:
        splitter_of(3)
    assert str(caught.value) == (
        "chunker must be None, a LumberChunker, a Callable[[str], list[str]] or an object with split_text; got int"
    )
