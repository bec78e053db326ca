"""The offline deciders' quicker reads give what the plain ones give (the words of a text, a chunk's headings)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._offline._text import STOPWORDS, words
from chop_integrations._offline.continuity import OfflineContinuity
from chop_integrations._text.headings import Headings, outline_of

_PLAIN_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['\u2019-](?=[^\W_]))*")
_PLAIN_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _words(text: str) -> list[str]:
    """The words as first written, with no pattern tuned for speed: CJK tokens as bigrams.

    A text with no CJK is lowercased before it is cut into words (``İ`` lowercases to ``i`` and a combining dot,
    one letter then); one with CJK is cut first and each word lowercased.
    """
    out: list[str] = []
    cjk = _PLAIN_CJK.search(text) is not None
    for token in _PLAIN_WORD.findall(text if cjk else text.lower()):
        token = token.lower()
        chars = _PLAIN_CJK.findall(token)
        if chars:
            out.extend(chars[i] + chars[i + 1] for i in range(len(chars) - 1)) if len(chars) > 1 else out.extend(chars)
        elif len(token) > 1 and token not in STOPWORDS:
            out.append(token)
    return out


#: Letters, digits, joiners, CJK (Han, kana, Hangul), case changes that grow (``İ``), stopwords and white space.
_PIECES = st.sampled_from([*"a 9_-'\u2019\n中İß", "Ab", "the", "über", "文字", "カナ", "한글", "中a文", "x1"])


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_edge_words_are_words(text: str) -> None:
    assert _words(text) == words(text)


def test_edge_words_of_mixed_text() -> None:
    text = "Die Datei 中文字 wird mit apt-get's Hilfe 安装 installiert; the end."
    assert _words(text) == words(text)
    assert "文字" in words(text) and "apt-get's" in words(text)


def test_a_chunk_is_read_once_for_both_tests() -> None:
    text = "1. Install\n\nRun the installer.\n\n2. Configure\n\nEdit the file.\n"
    assert OfflineContinuity.opens_section(text)
    assert OfflineContinuity.section_inside(text)
    hits = outline_of.cache_info().hits
    assert isinstance(outline_of(text), Headings)
    assert outline_of.cache_info().hits == hits + 1  # the second test's read was kept
