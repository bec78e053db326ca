"""Hypothesis strategies for the streaming tests: structured documents and random ways to cut them."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

_WORDS = st.sampled_from(
    "the battery screen camera settings network apps mode press select open tap hold "
    "Wi-Fi café naïve über 電池 設定 画面 Ünïcödé e.g. Dr. No. 3.5 😀".split()
)
_SENTENCE = st.lists(_WORDS, min_size=1, max_size=25).map(lambda w: " ".join(w).capitalize() + ".")
_PARAGRAPH = st.lists(_SENTENCE, min_size=1, max_size=8).map(" ".join)
_WRAPPED = st.lists(_SENTENCE, min_size=2, max_size=6).map("\n".join)
_HEADING = st.builds(
    lambda level, words: "#" * level + " " + " ".join(words).title(),
    st.integers(1, 4),
    st.lists(_WORDS, min_size=1, max_size=5),
)
_PLAIN_HEADING = st.lists(_WORDS, min_size=1, max_size=4).map(lambda w: " ".join(w).upper())
_SETEXT = _PLAIN_HEADING.map(lambda h: h + "\n" + "=" * len(h))
_RST = st.builds(  # reStructuredText: underlined (sometimes overlined too) with -, ~ or ^
    lambda words, char, over: (
        (char * max(4, len(words)) + "\n" if over else "") + words + "\n" + char * max(4, len(words))
    ),
    st.lists(_WORDS, min_size=1, max_size=4).map(lambda w: " ".join(w).capitalize()),
    st.sampled_from(["-", "~", "^", "="]),
    st.booleans(),
)
_OUTLINE = st.builds(  # a numbered article (markdown or underlined) and numbered subsections that continue it
    lambda n, title, subs, underline: (
        (f"{n}. {title}\n" + "-" * (len(title) + 3) if underline else f"## {n}. {title}")
        + "".join(f"\n\n{n}.{m} {sub}\n{body}" for m, (sub, body) in enumerate(subs, 1))
    ),
    st.integers(1, 12),
    _PLAIN_HEADING.map(str.title),
    st.lists(st.tuples(_PLAIN_HEADING.map(str.title), _SENTENCE), max_size=3),
    st.booleans(),
)
_LIST = st.lists(_SENTENCE, min_size=1, max_size=5).map(lambda items: "\n".join(f"- {i}" for i in items))
_NUMBERED = st.lists(_SENTENCE, min_size=1, max_size=4).map(
    lambda items: "\n".join(f"{n}. {i}" for n, i in enumerate(items, 1))
)
_TABLE = st.just("| a | b |\n|---|---|\n| 1 | 2 |")
_FENCE = st.lists(st.sampled_from(["x = 1", "", "# not a heading", "  indented", "- not a list"]), max_size=5).map(
    lambda lines: "```py\n" + "\n".join(lines) + "\n```"
)
_OPEN_FENCE = st.just("~~~\ncode that never closes\n\nstill code")
_BREAK = st.sampled_from(["* * *", "---", "\f"])
_BLOCK = st.one_of(
    _PARAGRAPH,
    _PARAGRAPH,
    _WRAPPED,
    _HEADING,
    _PLAIN_HEADING,
    _SETEXT,
    _RST,
    _OUTLINE,
    _LIST,
    _NUMBERED,
    _TABLE,
    _FENCE,
    _BREAK,
)
_GAP = st.sampled_from(["\n\n", "\n\n\n", "\n", "\r\n\r\n", "\n  \n", "\n\n    ", "\n \n\t"])


@st.composite
def documents(draw: st.DrawFn, *, min_blocks: int = 0, max_blocks: int = 30) -> str:
    """A document of headings, paragraphs, lists, tables, fences and breaks with assorted gaps."""
    blocks = draw(st.lists(_BLOCK, min_size=min_blocks, max_size=max_blocks))
    parts = [draw(st.sampled_from(["", "\n", "  "]))]
    for block in blocks:
        parts.append(block)
        parts.append(draw(_GAP))
    if draw(st.booleans()):
        parts.append(draw(_OPEN_FENCE))
    return "".join(parts)


@st.composite
def pieces_of(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at random positions (inside words, lines and CR LF pairs too); sometimes empty pieces."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]
