"""Segmentation reads its headings from the document's outline: a unit is a heading exactly where one opens it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._text.headings import Headings
from chop_integrations._text.headings.reader import heading_starts
from chop_integrations._text.segmentation import split_units, units_of
from chop_integrations._text.tokens import default_counter
from tests.stream.documents import documents

_TEXT = re.compile(r"\S")
COUNT = default_counter()


def _first(text: str, offset: int) -> int:
    found = _TEXT.search(text, offset)
    return found.start() if found else len(text)


@given(documents(max_blocks=20), st.sampled_from([12, 40, 550]))
def test_heading_units_are_the_outline_headings(text: str, max_tokens: int) -> None:
    units = split_units(text, max_tokens=max_tokens, token_counter=COUNT)
    flagged = {_first(text, u.start) for u in units if u.heading}
    assert flagged == {_first(text, offset) for offset in Headings(text).offsets}


@given(documents(max_blocks=20), st.booleans())
def test_a_given_reading_is_the_outline_read_that_way(text: str, markdown: bool) -> None:
    given_heads = heading_starts(text, markdown=markdown)
    units = units_of(text, max_tokens=40, token_counter=COUNT, heads=given_heads)
    assert units == units_of(text, max_tokens=40, token_counter=COUNT, markdown=markdown)
    assert "".join(u.text for u in units) == text
    assert {_first(text, u.start) for u in units if u.heading} == {_first(text, h) for h in given_heads}


def test_lines_the_outline_does_not_read_open_no_heading_unit() -> None:
    # markdown headings only in a markdown text: an HTML tag, a directive and a short line are body, not headings
    text = (
        '# Tool\n\n<p align="center">\n\n.. code:: python\n\n'
        "Short line\nand its body.\n\n## Install\n\npip install tool\n"
    )
    units = split_units(text, max_tokens=550, token_counter=COUNT)
    assert [u.text.split("\n")[0] for u in units if u.heading] == ["# Tool", "## Install"]


def test_a_late_underlined_title_still_heads_its_section_and_opens_a_unit() -> None:
    # the opening has no marked heading, so the text is read by its heading-like lines: an underlined title among them
    late = "Intro.\n\n" + "A body sentence here. " * 200 + "\n\nMozilla Public License 2.0\n==========\n\nBody text.\n"
    headings = Headings(late)
    assert not headings.marked and headings.paths[-1][-1] == "Mozilla Public License 2.0"
    units = split_units(late, max_tokens=550, token_counter=COUNT)
    assert [u.text.splitlines()[0] for u in units if u.heading] == ["Mozilla Public License 2.0"]


def test_a_version_dated_with_a_double_dash_is_a_title() -> None:
    text = "Changes\n=======\n\n0.6.2 -- 2016-05-10\n-------------------\n\n- Fixed a bug.\n"
    assert Headings(text).paths == [("Changes",), ("Changes", "0.6.2 -- 2016-05-10")]
