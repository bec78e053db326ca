"""Hypothesis strategies and checks for where cuts fall: sectioned documents, and what no cut may do."""

from __future__ import annotations

import itertools
import re
import unicodedata

from hypothesis import strategies as st

from chop_integrations._types import Chunk

_LATIN = st.sampled_from(
    "the battery screen camera settings network apps mode press select open tap hold "
    "Wi-Fi café naïve über RecursiveCharacterTextSplitter Paketabhängigkeiten 3.5".split()
)
_HAN = st.sampled_from(
    ["电池", "设置", "屏幕", "网络", "使用", "分块", "文档", "模型", "RecursiveCharacterTextSplitter"]
)
_LATIN_CLAUSE = st.lists(_LATIN, min_size=1, max_size=8).map(" ".join)
_HAN_CLAUSE = st.lists(_HAN, min_size=1, max_size=4).map("".join)
#: A sentence: clauses joined by clause punctuation, or one long run of words with no punctuation at all.
_SENTENCE = st.one_of(
    st.lists(_LATIN_CLAUSE, min_size=1, max_size=6).map(lambda c: ", ".join(c).capitalize() + "."),
    st.lists(_LATIN_CLAUSE, min_size=1, max_size=4).map(lambda c: "; ".join(c).capitalize() + "!"),
    st.lists(_LATIN, min_size=20, max_size=90).map(" ".join),
    st.lists(_HAN_CLAUSE, min_size=1, max_size=8).map(lambda c: "，".join(c) + "。"),
    st.lists(_HAN_CLAUSE, min_size=2, max_size=6).map(lambda c: "、".join(c[:-1]) + "：" + c[-1] + "。"),
)
#: A paragraph never opens with a number: a short numbered line alone (``3.5 the.``) reads as a heading by layout
#: (as ``4. Ergebnisse.`` does), which would stack more headings than the sections here mean to.
_PARAGRAPH = (
    st.lists(_SENTENCE, min_size=1, max_size=6).map(" ".join).map(lambda p: "The " + p if p[0].isdigit() else p)
)
_TITLE = st.lists(_LATIN, min_size=1, max_size=4).map(lambda w: " ".join(w).title())
_ATX = st.builds(lambda level, title: "#" * level + " " + title, st.integers(1, 4), _TITLE)
_SETEXT = _TITLE.map(lambda t: t + "\n" + "=" * len(t))
_HEADING = st.one_of(_ATX, _ATX, _SETEXT)
_GAP = st.sampled_from(["\n\n", "\n\n\n", "\r\n\r\n"])


@st.composite
def sectioned(draw: st.DrawFn, *, max_sections: int = 8) -> str:
    """Sections: one to three stacked headings, then paragraphs (the heading's own block, or the same block)."""
    parts: list[str] = []
    if draw(st.booleans()):
        parts += [draw(_PARAGRAPH), draw(_GAP)]
    for _ in range(draw(st.integers(1, max_sections))):
        for _ in range(draw(st.integers(1, 3))):
            parts += [draw(_HEADING), draw(_GAP)]
        if draw(st.booleans()):  # the heading and its first paragraph in one block
            parts[-1] = "\n"
        for _ in range(draw(st.integers(1, 3))):
            parts += [draw(_PARAGRAPH), draw(_GAP)]
    return "".join(parts)


_HEADING_LINE = re.compile(r"^ {0,3}(?:#{1,6} .*|=+|-+)\s*$")


def _ideograph(char: str) -> bool:
    return unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH")


def check_cuts(text: str, chunks: list[Chunk]) -> None:
    """Lossless, offset-exact chunks; none ends with a heading line before more text; no cut inside a word.

    The generated words are all shorter than the limits used and every run of ideographs sits between
    clause punctuation, so no cut may fall between two letters or digits of a word, or between two
    ideographs (where a run of ideographs meets a Latin word is a word boundary).
    """
    assert "".join(c.text for c in chunks) == text
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
    for chunk, after in itertools.pairwise(chunks):
        lines = [line for line in chunk.text.splitlines() if line.strip()]
        assert not (lines and _HEADING_LINE.match(lines[-1]) and after.text.strip()), (chunk.text, after.text[:60])
        p = chunk.end
        before, nxt = text[p - 1], text[p]
        in_word = before.isalnum() and nxt.isalnum() and not (_ideograph(before) or _ideograph(nxt))
        assert not in_word, f"cut inside a word: {text[p - 20 : p]!r}|{text[p : p + 20]!r}"
        assert not (_ideograph(before) and _ideograph(nxt)), f"cut between ideographs: {text[p - 10 : p + 10]!r}"
