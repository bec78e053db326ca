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
