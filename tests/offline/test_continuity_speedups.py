"""The continuity decider's quicker reads give what the plain ones give (words of an edge, a chunk's headings)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._offline._text import words
from chop_integrations._offline.continuity import OfflineContinuity, _headings, _words
from chop_integrations._text.headings import Headings

#: Letters, digits, joiners, CJK (Han, kana, Hangul), case changes that grow (``İ``), stopwords and white space.
_PIECES = st.sampled_from([*"a 9_-'\u2019\n中İß", "Ab", "the", "über", "文字", "カナ", "한글", "中a文", "x1"])


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_edge_words_are_words(text: str) -> None:
    assert _words(text) == words(text)


def test_edge_words_of_mixed_text() -> None:
    text = "Die Datei 中文字 wird mit apt-get's Hilfe 安装 installiert; the end."
    assert _words(text) == words(text)
    assert "文字" in _words(text) and "apt-get's" in _words(text)


def test_a_chunk_is_read_once_for_both_tests() -> None:
    text = "1. Install\n\nRun the installer.\n\n2. Configure\n\nEdit the file.\n"
    assert OfflineContinuity.opens_section(text)
    assert OfflineContinuity.section_inside(text)
    hits = _headings.cache_info().hits
    assert isinstance(_headings(text), Headings)
    assert _headings.cache_info().hits == hits + 1  # the second test's read was kept
