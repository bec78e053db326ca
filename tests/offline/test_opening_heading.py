"""A chunk opens with a heading from its first lines alone exactly when its whole outline says it does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._text.headings import Headings
from chop_integrations._text.headings.opening import opens_with_heading
from chop_integrations._text.headings.textlines import Lines
from chop_integrations._text.structure import FenceState

#: Lines that head (marked or plain), underline, fence, indent, number, wrap or list; blank lines and odd line ends.
_LINES = st.sampled_from(
    [
        *("# A", "## B c", "Title", "=====", "-----", "~~~~", "```", "```py", "    code", "\t#x", "1. Intro"),
        *("1.1 Sub", "2. Two", "a b c d e f g h.", "", "", " ", "* item", "Chapter 1", "Usage", ":::", "v1.2"),
        *("\r", "\u2028x"),
    ]
)


def _whole(text: str) -> bool:
    offsets = Headings(text).offsets
    return bool(offsets) and not text[: offsets[0]].strip()


@settings(max_examples=600)
@given(st.lists(_LINES, max_size=9).map("\n".join))
def test_first_lines_agree_with_the_whole_outline(text: str) -> None:
    assert opens_with_heading(text) == _whole(text)


def test_a_marked_heading_further_down_decides_how_the_first_line_reads() -> None:
    numbered = "1. Introduction\nThe text.\n\n"
    assert opens_with_heading(numbered + "Plain words here.\n")  # a plain heading line
    assert not opens_with_heading(numbered + "Usage\n=====\n")  # read by its marked headings: no parent number


def test_limited_lines_are_the_first_lines_of_the_whole() -> None:
    text = "  a\n\n```\n# b\n```\nc\n"
    first, whole = Lines(text, limit=3), Lines(text)
    assert first.texts == whole.texts[:3] and first.alone == whole.alone[:3] and first.fenced == whole.fenced[:3]


#: Fence lines (backticks, tildes, an underline of tildes, indented and tabbed ones) among text, with odd line ends.
_FENCE_LINES = st.sampled_from(
    ["```", "~~~", "~~~~", "  ```py", "\t```", "    ~~~", "x`y", "Title", "", " ", "a\r", "b\v"]
)


@settings(max_examples=400)
@given(st.lists(_FENCE_LINES, max_size=12).map("\n".join))
def test_fenced_lines_are_those_the_fence_reader_reads_as_fenced(text: str) -> None:
    fences, expected = FenceState(), []
    for raw in text.splitlines(keepends=True):
        fenced = fences.step(raw)  # (every line through the reader, as it is defined)
        if raw.strip():
            expected.append(fenced)
    assert Lines(text).fenced == expected
