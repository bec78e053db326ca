"""Properties of the reader for any catalog and question (hypothesis)."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._query import QueryReader
from chop_integrations._query.names import tokens
from chop_integrations._query.variants import unnameable

#: Model-like values: a family word or not, letters and digits, spaces, hyphens, a "+".
_word = st.text(string.ascii_letters + string.digits, min_size=1, max_size=5)
_value = st.builds(
    lambda family, parts, plus: " ".join([*family, *parts]) + plus,
    st.lists(st.sampled_from(["Galaxy", "Nimbus", "Model"]), max_size=1),
    st.lists(_word, min_size=1, max_size=3),
    st.sampled_from(["", "+"]),
)
_catalog = st.lists(_value, min_size=1, max_size=8, unique=True)
_question = st.text(string.ascii_letters + string.digits + " -+.?:", max_size=60)
#: Context words that share no token with any generated value (values' words are at most 5 characters).
_context = st.lists(st.sampled_from(["please", "explain", "thoroughly", "whenever", "instructions"]), max_size=4)


@settings(max_examples=200, deadline=None)
@given(_catalog, _question)
def test_a_reading_is_a_known_value_or_none(values: list[str], question: str) -> None:
    reading = QueryReader(values).read(question)
    assert reading.model is None or reading.model in values
    assert (reading.model is None) == (reading.mention is None)


@settings(max_examples=200, deadline=None)
@given(_catalog, st.data(), _context, _context)
def test_unrelated_context_words_never_change_a_reading(
    values: list[str], data: st.DataObject, before: list[str], after: list[str]
) -> None:
    reader = QueryReader(values)
    question = data.draw(st.one_of(_question, st.sampled_from(values).map(lambda v: f"How do I reset the {v}?")))
    widened = " ".join([*before, question, *after])
    assert reader.read(widened) == reader.read(question)


def _words(value: str) -> list[str]:
    return [t.text for t in tokens(value)]


@settings(max_examples=200, deadline=None)
@given(_catalog, st.data())
def test_case_and_hyphen_variants_of_a_known_value_read_as_that_value(values: list[str], data: st.DataObject) -> None:
    value = data.draw(st.sampled_from(values))
    # Another value with the same tokens (``Galaxy S10`` and ``galaxy-s10``) makes any mention ambiguous.
    if sum(_words(v) == _words(value) for v in values) > 1:
        return
    if unnameable(value):
        return  # a bare number or one character names nothing (ignored with a warning, tested in test_reader.py)
    if len(_words(value)) == 1 and _words(value)[0].isalpha():
        return  # one word of letters is an ordinary word, never read offline (tested in test_reader.py)
    variant = data.draw(st.sampled_from([value.lower(), value.upper(), value.replace(" ", "-"), value.title()]))
    assert QueryReader(values).read(f"Where is the {variant} manual?").model == value


#: A store of one family: a family word (letters) and members of letters and digits (``K12``, ``Tx 7``).
_family = st.text(string.ascii_lowercase, min_size=3, max_size=7).map(str.capitalize)
_member = st.tuples(
    st.text(string.ascii_uppercase, min_size=1, max_size=2),
    st.integers(min_value=1, max_value=999),
    st.sampled_from(["", " "]),
)
_SEPARATORS = [" ", "-", "\u2011", "\u2013", "\u2014", "\u00a0", "\u3000", " \u200b", "\u2212"]
_INVISIBLE = ["", "", "\u200b", "\u200d", "\u00ad", "\u2060", "\ufeff"]


def _full_width(ch: str) -> str:
    return chr(ord(ch) + 0xFEE0) if ch.isascii() and ch.isalnum() else ch


def _render(value: str, data: st.DataObject) -> str:
    """``value`` as someone might type it: other dashes and spaces, zero-width characters, full width, case."""
    out = []
    for ch in value:
        if ch == " ":
            out.append(data.draw(st.sampled_from(_SEPARATORS)))
            continue
        ch = data.draw(st.sampled_from([ch, ch.lower(), ch.upper()]))
        out.append(data.draw(st.sampled_from([ch, _full_width(ch)])) + data.draw(st.sampled_from(_INVISIBLE)))
    return "".join(out)


@st.composite
def _store(draw: st.DrawFn) -> tuple[list[str], dict[str, tuple[str, int, str]]]:
    family = draw(_family)
    members = draw(st.lists(_member, min_size=2, max_size=6, unique_by=lambda m: (m[0].lower(), m[1])))
    values = {f"{family} {letters}{space}{n}": (letters, n, space) for letters, n, space in members}
    return list(values), values


@settings(max_examples=300, deadline=None)
@given(_store(), st.data())
def test_any_typing_of_a_known_value_reads_as_it_and_an_unknown_member_as_nothing(
    store: tuple[list[str], dict[str, tuple[str, int, str]]], data: st.DataObject
) -> None:
    values, members = store
    reader = QueryReader(values)
    value = data.draw(st.sampled_from(values))
    assert reader.read(f"How do I reset the {_render(value, data)} please?").model == value
    letters, _, space = members[value]
    taken = {(m[0].lower(), m[1]) for m in members.values()}
    other = data.draw(st.integers(min_value=1, max_value=2000).filter(lambda k: (letters.lower(), k) not in taken))
    unknown = value.rsplit(" ", 2 if space else 1)[0] + f" {letters}{space}{other}"
    assert reader.read(f"How do I reset the {_render(unknown, data)} please?").model is None
