"""OfflineTopicShift against a plain reading of its documented rules, on generated windows.

The reference below is written for clarity, not speed (no caches, no shared sides, one loop per rule), from the
module's docstring: structural cuts (a heading after a blank line, or any heading with ``sub_headings``; a scene
break or a form feed; never right after a title-only unit), then TextTiling depth scores inside each stretch of at
least twice ``min_chunk_tokens`` tokens, cuts kept ``min_chunk_tokens`` apart. The decider must choose exactly the
reference's cuts, whatever its own speed-ups (``_offline/_text`` word bags are shared with the reference).
"""

from __future__ import annotations

import itertools
import pickle
import re
import statistics
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations import OfflineTopicShift
from chop_integrations._deciders import DocContext, Window
from chop_integrations._offline._text import cosine, words
from chop_integrations._offline.topic import ends_with_page_break
from chop_integrations._text.headings import is_setext_underline
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.structure import ends_with_break
from chop_integrations._text.tokens import default_counter
from chop_integrations._types import Unit


def _title_only(unit: Unit) -> bool:
    lines = [line for line in unit.text.splitlines() if line.strip()]
    return unit.heading and (len(lines) <= 1 or (len(lines) == 2 and is_setext_underline(lines[1])))


def _structural(units: Sequence[Unit], sub_headings: bool) -> list[int]:
    cuts = []
    for i in range(1, len(units)):
        previous, unit = units[i - 1], units[i]
        after_blank = re.search(r"\n[^\S\n]*\n\s*$", previous.text) is not None
        if _title_only(previous):
            continue
        page_break = previous.text.rstrip(" \t\r\n").endswith("\f")  # units keep a form feed at their end
        if (unit.heading and (sub_headings or after_blank)) or ends_with_break(previous.text) or page_break:
            cuts.append(i)
    return cuts


def _bag(units: Sequence[Unit]) -> Counter[str]:
    return Counter(word for unit in units for word in words(unit.text))


def _tiling(units: Sequence[Unit], lo: int, hi: int, block: int, least: int) -> list[int]:
    stretch = units[lo:hi]
    sims = []
    for g in range(1, len(stretch)):
        sims.append(cosine(_bag(stretch[max(0, g - block) : g]), _bag(stretch[g : g + block])))
    depths = [(max(sims[: k + 1]) - sim) + (max(sims[k:]) - sim) for k, sim in enumerate(sims)]
    if len(depths) < 2:
        return []
    cutoff = statistics.mean(depths) + 0.5 * statistics.pstdev(depths)
    chosen: list[int] = []
    for k in sorted(range(len(depths)), key=lambda k: -depths[k]):  # deepest first; ties: the earlier gap
        if depths[k] <= 0 or depths[k] < cutoff:
            break
        gap = lo + 1 + k
        left = max(e for e in [lo, *chosen] if e < gap)
        right = min(e for e in [hi, *chosen] if e > gap)
        before = sum(u.tokens for u in units[left:gap])
        after = sum(u.tokens for u in units[gap:right])
        if before >= least and (after >= least or right == hi):
            chosen.append(gap)
    return sorted(chosen)


def reference(units: Sequence[Unit], *, sub_headings: bool, lexical: bool, least: int, block: int) -> list[int]:
    """The cuts the documented rules choose."""
    if len(units) < 2:
        return []
    cuts = set(_structural(units, sub_headings))
    if lexical:
        bounds = [0, *sorted(cuts), len(units)]
        for lo, hi in itertools.pairwise(bounds):
            if sum(u.tokens for u in units[lo:hi]) >= 2 * least:
                cuts |= set(_tiling(units, lo, hi, max(1, block), least))
    return sorted(cuts)


TOPICS = [
    "pump valve pressure seal gasket flow pipe".split(),
    "harbour ship sailor rope quay gull dawn".split(),
    "数据 文件 系统 中国 时间 问题".split(),
]
paragraph = st.builds(
    lambda topic, picks: " ".join(TOPICS[topic][i % len(TOPICS[topic])] for i in picks) + ".",
    st.integers(0, 2),
    st.lists(st.integers(0, 50), min_size=1, max_size=25),
) | st.just("")  # a heading alone: a title-only unit
heading = st.sampled_from(["# Setup\n", "Setup\n=====\n", "2.1 Cleaning\n", "SAFETY\n"])
joint = st.sampled_from(["\n\n", "\n", "\n\n* * *\n\n", "\n\f", "\f\n\n", "\n\n\n"])
pieces = st.lists(st.tuples(st.one_of(st.none(), heading), paragraph, joint), min_size=1, max_size=14)


def _document(parts: list[tuple[str | None, str, str]]) -> str:
    return "".join((head or "") + body + tail for head, body, tail in parts)


@settings(max_examples=300, deadline=None)
@given(
    parts=pieces,
    sub_headings=st.booleans(),
    lexical=st.booleans(),
    block=st.integers(0, 4),
    skip=st.integers(0, 3),
    data=st.data(),
)
def test_the_decider_chooses_what_the_documented_rules_choose(
    parts: list[tuple[str | None, str, str]],
    sub_headings: bool,
    lexical: bool,
    block: int,
    skip: int,
    data: st.DataObject,
) -> None:
    text = _document(parts)
    units = split_units(text, max_tokens=40, token_counter=default_counter())[skip:]
    sums = {sum(u.tokens for u in units[a:b]) for a in range(len(units)) for b in range(a + 1, len(units) + 1)}
    least = data.draw(st.sampled_from(sorted({1, 5, 20, 60} | sums | {s // 2 for s in sums if s > 1})))  # at the edges
    window = Window(units=units, first_index=skip, doc=DocContext(doc_id="d", text=text, metadata={}))
    decider = OfflineTopicShift(sub_headings=sub_headings, lexical=lexical, min_chunk_tokens=least, block=block)
    expected = reference(units, sub_headings=sub_headings, lexical=lexical, least=least, block=block)
    assert decider.choose(window) == expected
    assert decider.choose(window) == expected  # again, from the words it kept
    assert pickle.loads(pickle.dumps(decider)).choose(window) == expected


def test_the_defaults_are_the_documented_ones() -> None:
    """Defaults that change cuts: sub-sections cut, lexical cuts on, 120 tokens apart, 3 units a side."""
    decider = OfflineTopicShift()
    assert (decider.sub_headings, decider.lexical, decider.min_chunk_tokens, decider.block) == (True, True, 120, 3)
    assert OfflineTopicShift(block=0).block == 1 and OfflineTopicShift(block=-5).block == 1


def test_a_pickled_decider_keeps_its_settings_not_its_words() -> None:
    decider = OfflineTopicShift(min_chunk_tokens=7, block=2, sub_headings=False)
    text = "pump valve seal.\n\nharbour ship rope.\n\npump valve seal.\n"
    units = split_units(text, max_tokens=40, token_counter=default_counter())
    decider.choose(Window(units=units, first_index=0, doc=DocContext(doc_id="d", text=text, metadata={})))
    assert decider._bags  # it kept the words of the units it read
    clone = pickle.loads(pickle.dumps(decider))
    assert clone._bags == {} and (clone.min_chunk_tokens, clone.block, clone.sub_headings) == (7, 2, False)


def test_a_page_break_is_a_structural_cut() -> None:
    """A form feed stays at the end of the unit before it (it is white space): the next unit opens a page."""
    text = "The pump runs well today and the valve holds.\n\n\fThe harbour master counted ships.\n"
    units = split_units(text, max_tokens=40, token_counter=default_counter())
    assert units[0].text.endswith("\f")
    window = Window(units=units, first_index=0, doc=DocContext(doc_id="d", text=text, metadata={}))
    assert OfflineTopicShift(lexical=False).choose(window) == [1]


def test_a_page_break_is_a_form_feed_with_only_blank_lines_after_it() -> None:
    assert ends_with_page_break("page one\f") and ends_with_page_break("page one\f \r\n\n")
    assert (
        not ends_with_page_break("page\fXX\n") and not ends_with_page_break("\fpage") and not ends_with_page_break("")
    )


def _stretch(topics: str, words_per_paragraph: int) -> str:
    """Paragraphs with no heading, one per letter of ``topics`` (``"aab"``: two on the first topic, one on the next)."""
    out = []
    for k, letter in enumerate(topics):
        vocabulary = TOPICS[ord(letter) - ord("a")]
        out.append(" ".join(vocabulary[(k + i) % len(vocabulary)] for i in range(words_per_paragraph)) + ".")
    return "\n\n".join(out) + "\n"


@pytest.mark.parametrize("topics", ["aaabbbaaa", "aabbaabbcc", "abababab", "aaaaabbbbbccccc", "abcabcaabbcc"])
@pytest.mark.parametrize("size", [6, 13, 25])
def test_lexical_cuts_at_topic_shifts_are_the_documented_ones(topics: str, size: int) -> None:
    """Stretches without structure, where only the depth scores and the distance rule decide."""
    text = _stretch(topics, size)
    units = split_units(text, max_tokens=40, token_counter=default_counter())
    window = Window(units=units, first_index=0, doc=DocContext(doc_id="d", text=text, metadata={}))
    sums = {sum(u.tokens for u in units[a:b]) for a in range(len(units)) for b in range(a + 1, len(units) + 1)}
    lexical = 0
    for least in sorted({1, *sums, *(s // 2 for s in sums)}):
        for block in (1, 2, 3):
            decider = OfflineTopicShift(min_chunk_tokens=least, block=block)
            chosen = decider.choose(window)
            assert chosen == reference(units, sub_headings=True, lexical=True, least=least, block=block)
            lexical += len(chosen)
    assert lexical  # the stretches were cut somewhere: the checks above compared lexical cuts
