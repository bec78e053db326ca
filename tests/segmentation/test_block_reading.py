"""Shortcuts in reading a paragraph block for headings find what the general reading finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._text.headings import heading_flags
from chop_integrations._text.segmentation import _split_block

_WORDS = [
    *("#", "## ", "Title", "NOTE", "Wi-Fi", "a", "ß", "ver"),  # markup, words
    *("v1.2.0", "1.2", "2."),  # versions, numbers
    *(" ", "\t", "\u00a0", ".", "?", ":"),  # white space, marks
]


@given(
    st.sampled_from(["", "  ", "\t", "    ", "          "]),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8),
    st.sampled_from(["", "\n", "\n\n", "\n\n  ", "  \r\n\r\n"]),
)
def test_a_one_line_block_is_a_heading_as_heading_flags_reads_it(indent: str, words: list[str], tail: str) -> None:
    line = "".join(words)
    block = line + tail
    text = indent + block
    pieces: list[tuple[int, int, bool, str]] = []
    _split_block(text, block, len(indent), len(text), pieces, None)
    lines = (indent + block).splitlines(keepends=True)
    content = [k for k, one in enumerate(lines) if not one.isspace()]
    expected = bool(content) and heading_flags([lines[k] for k in content])[0]
    assert pieces == [(len(indent), len(text), expected, "text")]
