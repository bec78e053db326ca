"""Where segmentation cuts: clause punctuation before words, never inside a word; headings keep room for their body."""

from __future__ import annotations

import itertools

from hypothesis import example, given
from hypothesis import strategies as st

from chop_integrations._text.cuts import HEADING_CHAIN, heading_only, keep_with_body, may_cut
from chop_integrations._text.pieces import bounded_units
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.structure import clause_spans, word_spans
from chop_integrations._text.tokens import resolve_counter
from chop_integrations._types import Chunk, Unit
from tests.support.cut_documents import check_cuts, sectioned

COUNT = resolve_counter(None)

#: A Chinese paragraph whose one long sentence names a Latin class after a full-width comma.
CHINESE = (
    "在检索增强生成系统中，文档通常被切分成较小的片段，以便嵌入模型能够处理它们，"
    "而最常见的做法是使用 LangChain 提供的工具，例如使用RecursiveCharacterTextSplitter按照字符数递归地切分文本，"
    "然后把每个片段连同其元数据一起写入向量数据库，检索时再根据问题的嵌入找出最相近的若干片段，"
    "并把它们交给大语言模型生成最终的回答，这样的流程简单可靠，但是对于结构复杂的技术文档来说并不理想。"
)


def test_clause_spans_cut_after_latin_and_cjk_clause_marks_only() -> None:
    text = "Press 3,5 at 12:30, then hold; see http://x: done，然后、再"
    assert [text[a:b] for a, b in clause_spans(text, 0, len(text))] == [
        "Press 3,5 at 12:30, ",
        "then hold; ",
        "see http://x: ",
        "done，",
        "然后、",
        "再",
    ]


def test_word_spans_keep_a_latin_word_inside_cjk_whole() -> None:
    text = "使用RecursiveCharacterTextSplitter进行 切分"
    assert [text[a:b] for a, b in word_spans(text, 0, len(text))] == [
        "使用",
        "RecursiveCharacterTextSplitter",
        "进行 ",
        "切分",
    ]


def test_a_chinese_paragraph_is_cut_at_its_commas_not_inside_a_word() -> None:
    units = split_units(CHINESE, max_tokens=100, token_counter=COUNT)
    assert len(units) > 1 and all(u.tokens <= 100 for u in units)
    for unit in units[:-1]:
        assert unit.text.endswith(("，", "。")), unit.text[-20:]
    assert any("RecursiveCharacterTextSplitter" in u.text for u in units)


def test_a_sentence_longer_than_the_limit_is_cut_between_words() -> None:
    sentence = " ".join(["and finally repeat the steps for every camera setting"] * 30) + "."
    units = split_units(sentence, max_tokens=40, token_counter=COUNT)
    assert len(units) > 1
    for unit in units[:-1]:
        assert unit.text.endswith(" "), unit.text[-20:]  # never "...and finally re" | "peat..."


def test_a_comma_is_preferred_to_a_space_when_a_sentence_is_too_long() -> None:
    sentence = "Open the settings and select the network tab, " * 12 + "then restart."
    units = split_units(sentence, max_tokens=30, token_counter=COUNT)
    assert len(units) > 1 and all(u.text.endswith(", ") for u in units[:-1])


def test_a_heading_over_a_long_body_keeps_the_body_start_in_its_unit() -> None:
    body = " ".join(["The battery settings explain how the charging mode works on this phone."] * 20)
    units = split_units("## Battery\n" + body, max_tokens=60, token_counter=COUNT)
    assert units[0].heading and units[0].text.startswith("## Battery\nThe battery")
    assert all(u.tokens <= 60 for u in units)


def test_the_first_body_unit_after_a_heading_leaves_room_for_it() -> None:
    body = " ".join(["The battery settings explain how the charging mode works on this phone."] * 20)
    text = "# Manual\n\n## Battery\n\n" + body
    units = split_units(text, max_tokens=60, token_counter=COUNT)
    assert [heading_only(u) for u in units[:3]] == [True, True, False]
    assert COUNT("".join(u.text for u in units[:3])) <= 60
    assert not may_cut(units, 1) and not may_cut(units, 2) and may_cut(units, 3)
    assert keep_with_body(units, 2, 60) == 0 == keep_with_body(units, 1, 60)


def test_a_run_of_short_lines_is_not_one_endless_heading() -> None:
    text = "".join(f"Line {i}\n\n" for i in range(20)) + "Body text that ends the run."
    units = split_units(text, max_tokens=50, token_counter=COUNT)
    assert all(heading_only(u) for u in units[:20])
    assert keep_with_body(units, 19, 50) == 19 - HEADING_CHAIN  # not back to the first line


def test_a_heading_left_no_room_by_the_headings_above_it_takes_a_unit_of_its_own() -> None:
    long_title = "Recursivecharactertextsplitter Paketabhängigkeiten The Paketabhängigkeiten"
    text = (
        f"#### The\n\n{long_title}\n{'=' * len(long_title)}\n\n"
        "Paketabhängigkeiten The\n=======================\n电池电池电池、电池电池：电池。\n\n"
    )
    units = split_units(text, max_tokens=40, token_counter=COUNT)
    assert [u.text for u in units[2:]] == [
        "Paketabhängigkeiten The\n=======================\n",
        "电池电池电池、电池电池：电池。\n\n",
    ]
    assert all(heading_only(u) for u in units[:3])
    first = keep_with_body(units, 3, 40)  # the outer headings yield to the body: they do not fit beside it
    assert first == 2 and COUNT("".join(u.text for u in units[first:])) <= 40


def test_a_run_of_headings_over_half_the_maximum_moves_whole_when_it_fits_with_its_body() -> None:
    titles = [  # long compound words: many tokens for a heading's length
        "Kommunikationskanäle Diskussionsforen Chatraumverzeichnisse",
        "Paketabhängigkeiten Konfigurationsdateien Fehlerberichte",
        "Entwicklerwerkzeuge Übersetzungsplattformen Spiegelserver",
    ]
    body = "We answer questions there. Please add the project's tag to your question."
    text = "".join(f"{title}\n\n" for title in titles) + body + "\n"
    units = split_units(text, max_tokens=100, token_counter=COUNT)
    assert [heading_only(u) for u in units] == [True, True, True, False]
    run = sum(u.tokens for u in units[:3])
    assert 50 < run and run + units[3].tokens <= 100  # over half the maximum, within it with the body
    assert keep_with_body(units, 3, 100) == 0  # the first title stays with the body, not alone before it
    assert keep_with_body(units, 3, 60) == 2  # too long to fit beside the body: the nearest title goes with it


@given(sectioned(), st.sampled_from([40, 100]))
def test_units_cut_nowhere_inside_a_word_and_headings_fit_with_their_body(text: str, max_tokens: int) -> None:
    units = split_units(text, max_tokens=max_tokens, token_counter=COUNT)
    assert all(u.tokens <= max_tokens for u in units)
    for i, unit in enumerate(units[:-1]):
        if heading_only(unit) and not heading_only(units[i + 1]):
            first = keep_with_body(units, i + 1, max_tokens)
            assert COUNT("".join(u.text for u in units[first : i + 2])) <= max_tokens
    check_cuts(text, _merged(units))  # a heading-only unit's own end is the engines' to keep (below)


def _merged(units: list[Unit]) -> list[Chunk]:
    """Units with every heading-only unit joined to the next one (what the engines' chunk starts do)."""
    out: list[Chunk] = []
    pending: list[Unit] = []
    for unit in units:
        pending.append(unit)
        if not heading_only(unit):
            start, end = pending[0].start, pending[-1].end
            out.append(Chunk(text="".join(u.text for u in pending), start=start, end=end, token_count=0, metadata={}))
            pending = []
    if pending:
        start, end = pending[0].start, pending[-1].end
        out.append(Chunk(text="".join(u.text for u in pending), start=start, end=end, token_count=0, metadata={}))
    return out


_IDEOGRAPHS = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4E80), min_size=1, max_size=30)
_CJK_MARKS = st.sampled_from(["，", "。", "；", "：", "、", "！", "？", ", ", "; "])
_WRAP = st.sampled_from(["", "", "\n", "\n    ", "\n\u00a0\u00a0\u00a0 "])  # a line wrapped between two ideographs
_CJK_TEXT = st.lists(st.tuples(st.lists(st.tuples(_IDEOGRAPHS, _WRAP), min_size=1, max_size=4), _CJK_MARKS)).map(
    lambda clauses: "".join("".join(run + wrap for run, wrap in runs) + mark for runs, mark in clauses)
)


def _between_ideographs(text: str, cut: int) -> bool:
    """True when the cut falls between two ideographs, or either side of the one line break of a wrapped line."""
    left, right = cut, cut
    while left > 0 and text[left - 1].isspace():
        left -= 1
    while right < len(text) and text[right].isspace():
        right += 1
    gap = text[left:right]
    ideograph = "\u4e00" <= text[left - 1 : left] <= "\u9fff" and "\u4e00" <= text[right : right + 1] <= "\u9fff"
    return ideograph and gap.count("\n") <= 1 and (not gap or "\n" in gap)


@given(_CJK_TEXT, st.integers(min_value=1, max_value=60))
@example("一" * 28 + "\n    一一，" + "一" * 7 + "\n    一一，", 25)  # a comma in the first half of the unit's reach
def test_no_cut_between_two_ideographs_where_the_unit_has_punctuation(text: str, max_tokens: int) -> None:
    units = bounded_units(text, 0, len(text), False, "text", max_tokens, len)  # one token per character
    assert "".join(u.text for u in units) == text and all(u.tokens <= max_tokens for u in units)
    for unit in units[:-1]:
        if _between_ideographs(text, unit.end):
            assert not any(mark.strip() in unit.text for mark in "，。；：、！？,;"), unit.text


def test_a_wrapped_chinese_sentence_is_cut_at_its_comma_not_at_a_line_break() -> None:
    text = "一二三四五六\n七八，" + "甲乙丙丁戊己庚辛壬癸\n" * 4 + "子丑。"  # the second clause alone is over the limit
    units = bounded_units(text, 0, len(text), False, "text", 30, len)
    assert [u.text for u in units[:2]] == ["一二三四五六\n七八，", "甲乙丙丁戊己庚辛壬癸\n甲乙丙丁戊己庚辛壬癸\n"]
    line = "    这是一个很长的句子，它在固定的宽度处换行，中间没有句号因此只\n"
    text = (line + "    能在逗号处切开，而不能在汉字之间切开，\n") * 6  # no clause over 25 tokens
    units = bounded_units(text, 0, len(text), False, "text", 40, COUNT)
    assert len(units) > 1
    assert all(u.text.rstrip().endswith("，") for u in units[:-1]), [u.text[-6:] for u in units]


def test_a_chinese_run_with_no_punctuation_is_still_cut_to_fit() -> None:
    text = "汉字" * 200
    units = bounded_units(text, 0, len(text), False, "text", 30, COUNT)
    assert "".join(u.text for u in units) == text and all(u.tokens <= 30 for u in units)


_SEGMENTS = st.text(alphabet="abcdef0123456789", min_size=1, max_size=12)
_INNER = st.sampled_from(["/", ".", "-", "_", "?", "&", "=", "#", ":", "://"])


@given(st.lists(st.tuples(_SEGMENTS, _INNER), min_size=2, max_size=30), st.integers(min_value=0, max_value=10))
def test_a_word_over_the_limit_is_cut_at_its_own_punctuation(parts: list[tuple[str, str]], slack: int) -> None:
    word = "".join(segment + mark for segment, mark in parts)
    text = f"See {word} now."
    max_tokens = max(4, *(len(segment + mark) for segment, mark in parts)) + slack  # "See ", "now." fit too
    units = bounded_units(text, 0, len(text), False, "text", max_tokens, len)
    assert "".join(u.text for u in units) == text
    assert not [u.end for u in units[:-1] if text[u.end - 1].isalnum() and text[u.end].isalnum()]


def test_a_url_over_the_limit_is_cut_at_a_slash_and_a_hex_run_only_where_it_must() -> None:
    url = "https://github.com/joblib/threadpoolctl/actions/workflows/test.yml/badge.svg?branch=master"
    units = bounded_units(f"Badge: {url} done.", 0, len(url) + 13, False, "text", 8, COUNT)
    assert all(not (u.text[-1].isalnum() and n.text[0].isalnum()) for u, n in itertools.pairwise(units))
    digest = "0123456789abcdef" * 20
    units = bounded_units(f"Digest {digest}", 0, len(digest) + 7, False, "text", 20, COUNT)
    assert units[0].text == "Digest " and "".join(u.text for u in units) == f"Digest {digest}"


def test_a_numbered_title_wrapped_onto_a_short_second_line_is_one_heading_with_its_tail() -> None:
    text = "Intro text here.\n\n1.1.5. Grafische Oberfläche\n(GUI)\n\n    Der Text des Abschnitts, lang genug.\n"
    units = split_units(text, max_tokens=100, token_counter=COUNT)
    title = next(u for u in units if u.text.startswith("1.1.5."))
    assert heading_only(title) and "(GUI)" in title.text
    assert not may_cut(units, units.index(title) + 1)


def _seam_counter(text: str) -> int:
    """One token per character, and one more for each paragraph gap right before a capital: not additive."""
    return len(text) + sum(1 for k in range(2, len(text)) if text[k - 2 : k] == "\n\n" and text[k].isupper())


@given(st.integers(min_value=30, max_value=80), st.integers(min_value=1, max_value=12))
def test_a_heading_and_its_first_body_unit_fit_one_chunk_counted_together(max_tokens: int, words: int) -> None:
    body = " ".join(["Body"] * words * 10) + "."
    text = "Intro.\n\n## Title\n\n" + body + "\n"
    units = split_units(text, max_tokens=max_tokens, token_counter=_seam_counter)
    for i, unit in enumerate(units[:-1]):
        if heading_only(unit):
            assert _seam_counter(unit.text + units[i + 1].text) <= max_tokens


def test_a_heading_over_half_the_limit_still_opens_the_chunk_of_its_body() -> None:
    heading = "# Thread-pool Controls " + " ".join(f"[badge{i}](https://x.org/b{i}.svg)" for i in range(4)) + "\n\n"
    body = " ".join(["Python helpers limit the threads of native libraries."] * 10)
    units = split_units(heading + body, max_tokens=100, token_counter=COUNT)
    assert 50 < units[0].tokens < 100 and heading_only(units[0])
    assert COUNT(units[0].text + units[1].text) <= 100
    assert keep_with_body(units, 1, 100) == 0 and not may_cut(units, 1)


def test_a_line_of_nothing_but_links_is_body_text_not_a_heading() -> None:
    text = (
        "## v2.14.4 (2026-11-19)\n\n[GitHub release](https://github.com/pydantic/pydantic/releases/tag/v2.14.4)\n\n"
        "### What's Changed\n\n#### Packaging\n\n* Bump jiter to v0.19.0 in the package build.\n"
    )
    units = split_units(text, max_tokens=100, token_counter=COUNT)
    link = next(u for u in units if u.text.startswith("[GitHub"))
    assert not link.heading and may_cut(units, units.index(link) + 1)
    assert [heading_only(u) for u in units] == [True, False, True, True, False]
