"""Streaming segmentation gives the units of the whole text, whatever the pieces."""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._text import stream as text_stream
from chop_integrations._text.headings import markdown_within
from chop_integrations._text.headings.reader import heading_starts, within
from chop_integrations._text.segmentation import split_units, units_of
from chop_integrations._text.stream import UnitStream, safe_cut, settled_cut, stream_units
from chop_integrations._text.tokens import resolve_counter

from .documents import documents, pieces_of

COUNT = resolve_counter(None)


@given(st.data(), documents(), st.sampled_from([8, 40, 200]))
def test_stream_units_equal_batch_units(data: st.DataObject, text: str, max_tokens: int) -> None:
    pieces = data.draw(pieces_of(text))
    with mock.patch.object(text_stream, "MIN_LOOK_CHARS", 1):  # look for a cut at every piece
        stream = UnitStream(max_tokens=max_tokens, token_counter=COUNT)
        streamed = [unit for piece in pieces for unit in stream.feed(piece)] + stream.close()
    # the stream takes the markdown choice from the opening it held at its first look (the whole text if none)
    markdown = stream.headings.markdown if stream.headings is not None else None
    assert streamed == units_of(text, max_tokens=max_tokens, token_counter=COUNT, markdown=markdown)
    whole = split_units(text, max_tokens=max_tokens, token_counter=COUNT)
    if markdown is None or markdown == markdown_within(text):
        assert streamed == whole
    assert list(stream_units([text], max_tokens=max_tokens, token_counter=COUNT)) == whole  # one piece: no look


@given(documents(), st.sampled_from([20, 50]))
def test_a_settled_cut_splits_the_units_exactly(text: str, max_tokens: int) -> None:
    cut, head = settled_cut(text, max_tokens=max_tokens, token_counter=COUNT)
    whole = split_units(text, max_tokens=max_tokens, token_counter=COUNT)
    if cut:
        heads = heading_starts(text)  # the headings of the whole text, on either side of the cut
        assert head == units_of(text[:cut], max_tokens=max_tokens, token_counter=COUNT, heads=within(heads, 0, cut))
        after = within(heads, cut, len(text), base=cut)
        tail = units_of(text[cut:], max_tokens=max_tokens, token_counter=COUNT, heads=after)
        assert [(u.start, u.end, u.heading) for u in whole] == [(u.start, u.end, u.heading) for u in head] + [
            (u.start + cut, u.end + cut, u.heading) for u in tail
        ]


def test_no_settled_cut_parts_a_heading_from_its_body() -> None:
    text = "Intro text.\n\n## Setup\n\nBody of the setup section.\n\nMore.\n"
    cut, units = settled_cut(text[: text.index("More")] + "More.\n", max_tokens=50, token_counter=COUNT)
    assert text[:cut].endswith("section.\n\n")
    cut, units = settled_cut("Intro text.\n\n## Setup\n\nBody", max_tokens=50, token_counter=COUNT)
    assert cut == len("Intro text.\n\n")  # not after the heading: its body's first unit depends on it
    assert [u.text for u in units] == ["Intro text.\n\n"]


def test_no_cut_inside_a_fence_or_before_a_list_or_an_indented_line() -> None:
    assert safe_cut("```\na\n\nb\n```\n\nc\nd") == len("```\na\n\nb\n```\n\n")
    assert safe_cut("~~~\na\n\nb\n") == 0  # the fence is open: it may run to the end
    assert safe_cut("- a\n\n- b\n") == 0  # a list run may continue
    assert safe_cut("a\n\n    b\nc") == 0  # indented: cut only at a line start
    assert safe_cut("a\n\nb") == 0  # the next line is incomplete


def test_the_buffer_stays_bounded_on_a_long_document() -> None:
    stream = UnitStream(max_tokens=100, token_counter=COUNT)
    paragraph = "A sentence about the battery and its settings. " * 8 + "\n\n"
    total = 0
    for i in range(3000):
        for line in (f"## Part {i}\n\n", paragraph):
            total += sum(len(u.text) for u in stream.feed(line))
    total += sum(len(u.text) for u in stream.close())
    assert total == 3000 * (len(paragraph) + len("## Part 0\n\n")) + sum(len(str(i)) - 1 for i in range(3000))
    assert stream.peak_buffer_chars < 5 * 4096  # a few look-ahead steps, not the 1.3 MB document


def test_a_text_fed_in_one_piece_is_segmented_once_with_no_look_for_a_cut() -> None:
    text = "## Part\n\n" + "A sentence about the battery.\n\n" * 500
    stream = UnitStream(max_tokens=100, token_counter=COUNT)
    with mock.patch.object(text_stream, "settled_cut", wraps=settled_cut) as look:
        assert stream.feed(text) == []  # the text may go on: nothing is final yet
        units = stream.close()
        assert look.call_count == 0
        stream = UnitStream(max_tokens=100, token_counter=COUNT)
        early = stream.feed(text) + stream.feed("More.\n")  # a second piece: the first one is looked at
        assert look.call_count == 1 and early
    assert units == split_units(text, max_tokens=100, token_counter=COUNT)
