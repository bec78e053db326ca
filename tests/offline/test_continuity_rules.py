"""OfflineContinuity's rules one by one: what opens a section, what starts one inside a chunk, the defaults."""

from __future__ import annotations

import pytest

from chop_integrations import OfflineContinuity
from chop_integrations._deciders import DocContext, Synchronous
from chop_integrations._offline._text import words
from chop_integrations._types import Chunk

DOC = DocContext(doc_id="doc", text="", metadata={})
FILTER = "Rinse the air filter under warm water and let the filter dry before the unit runs again."


def chunk(text: str) -> Chunk:
    return Chunk(text=text, start=0, end=len(text), token_count=len(text.split()))


@pytest.mark.parametrize(
    "text",
    [
        "* * *\nThe ship left.",  # a scene break
        "\fThe ship left.",  # a form feed
        "\n\f\nThe ship left.",  # a form feed after a blank line
        " \t\n\fThe ship left.",
        "Remote control\nPress the mode button to choose cooling.",  # a heading-like line
        "Title\n=====\nbody text here.",  # an underlined title
        "=====\nTitle\n=====\nbody",  # an over- and underlined one
        "2.1 Cleaning the filter\nRinse it.",  # numbered
        "# Setup\nInstall it.",
        "SAFETY\nDo not touch.",
        "Chapter 3\nIt was night.",
        "\n\n# Setup\nInstall it.",  # blank lines first
        "   4. Redistribution.\n\nYou may redistribute.",  # a sure heading the line test alone misses
        "v2.1\n\nchanges",
        "Version 1.63.0 (2022-08-11)\n===========================\n\nStuff",
    ],
)
def test_a_chunk_that_opens_with_a_heading_or_a_break_opens_a_section(text: str) -> None:
    assert OfflineContinuity.opens_section(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n  \n",
        "Plain words in a paragraph that goes on.\nAnd more words.",
        "v2.1\nchanges",
        "Release 2.0 notes\nchanges",
        "  4. Redistribution.\nYou may redistribute.",
        "XX X\fplain text",  # a form feed after text: the chunk does not open with it
        "1.\n\nThe first step.",
    ],
)
def test_other_chunks_do_not(text: str) -> None:
    assert OfflineContinuity.opens_section(text) is False


@pytest.mark.parametrize(
    ("text", "inside"),
    [
        ("# A\nbody\n", False),  # its opening heading only
        ("\n\n# A\nbody\n", False),  # after blank lines: still its opening
        ("Intro text.\n\n# A\nbody\n", True),
        ("# A\nbody\n\n## B\nmore\n", True),  # a second heading past the opening one
        ("Intro.\n\nTitle\n=====\nbody\n", True),
        ("Intro.\n\n2.1 Cleaning\nRinse.\n", True),
        ("Intro.\n\nAlarm\nmore text.\n", False),  # a plain heading-like line: a label, not a section
        ("Alarm\nmore text.\n\n2.1 Cleaning\nRinse.\n", True),
        ("Alarm\nmore text.\n\nSIGNAL\nmore\n", False),
        ("# A\nbody text here.\n\nAlarm\nmore text.\n", False),
        ("text\n\n# A\n# B\nbody", True),
        ("Just a paragraph with words and more words.\n", False),
    ],
)
def test_a_section_starts_inside_a_chunk_only_past_its_opening_headings(text: str, inside: bool) -> None:
    assert OfflineContinuity.section_inside(text) is inside


def test_a_new_section_ends_the_context_whatever_the_words() -> None:
    decider = OfflineContinuity()
    assert decider.decide(chunk(FILTER + "\n\f"), chunk(FILTER), DOC) is False  # a new page
    assert decider.decide(chunk(FILTER + "\f\n\n"), chunk(FILTER), DOC) is False
    assert decider.decide(chunk(FILTER), chunk("# Filter\n" + FILTER), DOC) is False  # opens one: same words
    assert decider.decide(chunk(FILTER + "\n\n# Filter\n" + FILTER), chunk(FILTER), DOC) is False  # one inside
    assert decider.decide(chunk(FILTER), chunk(FILTER), DOC) is True


async def test_the_adapter_decides_as_decide() -> None:
    decider = Synchronous(OfflineContinuity())
    harbour = chunk("The harbour master counted ships and coal sacks while sailors tied ropes.")
    assert await decider.adecide(chunk(FILTER), chunk(FILTER), DOC) is True
    assert await decider.adecide(chunk(FILTER), harbour, DOC) is False
    assert await decider.adecide(chunk(FILTER), chunk("# Filter\n" + FILTER), DOC) is False


def test_the_defaults() -> None:
    decider = OfflineContinuity()
    assert (decider.min_similarity, decider.edge_chars) == (0.08, 1500)


def test_the_default_edge_is_1500_characters() -> None:
    """The current chunk's first 1,500 characters are compared: a word that starts at the 1,500th does not count."""
    assert words("zq harbour") == ["zq", "harbour"]
    late = chunk("." * 1499 + "zq harbour")  # within the edge: "z" alone, a one-letter word (none)
    assert OfflineContinuity().decide(chunk(FILTER), late, DOC) is True  # nothing to compare: the context is kept
    assert OfflineContinuity(edge_chars=1501).decide(chunk(FILTER), late, DOC) is False  # "zq": no shared word
