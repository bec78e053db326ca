"""Counts of a document's lines from one encoding: every count served equals a fresh tiktoken count."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations import LumberChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._text import document_counts
from chop_integrations._text.document_counts import SUM_CHARS, LineCounts, line_segments
from chop_integrations._text.run_memo import MemoCounter, run_counter
from chop_integrations._text.token_sums import clean_joint, joined_count
from chop_integrations._text.tokens import TiktokenCounter, get_encoding

PLAIN = TiktokenCounter("cl100k_base")
#: Line starts that matter: whitespace of every kind (NBSP and U+3000 are white space to Python, not to a
#: letter), CR LF, CJK, combining marks, punctuation runs, contractions, digits, a lone surrogate.
BITS = [
    *("\n", "\n\n", "\r\n", " \n", "\n  ", "\t", "   ", "\u00a0", "\u3000", "\x0b", "\x1c", "\u2028", "\u0085"),
    *("word", " word", "Title", "'s", "1234", ".", "...", "/", "#", "*", "-", "|", "é", "e\u0301", "\u0301"),
    *("中文", "。", "！", "\ud800", "<|endoftext|>"),
]
documents = st.lists(st.sampled_from(BITS), max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(doc=documents, data=st.data())
def test_every_count_after_reading_a_document_is_the_plain_count(doc: str, data: st.DataObject) -> None:
    """Texts of whole lines, texts cut anywhere, and texts of other documents all count as tiktoken counts them."""
    counter = MemoCounter("cl100k_base")
    counter.read_lines(data.draw(documents))  # an earlier document: lines they share are looked up, not encoded
    counter.read_lines(doc)
    bounds = sorted({0, len(doc), *(m.end() for m in re.finditer(r"\n", doc))})
    lines = st.sampled_from(bounds)
    anywhere = st.integers(0, len(doc))
    for _ in range(6):
        start, end = sorted((data.draw(st.one_of(lines, anywhere)), data.draw(st.one_of(lines, anywhere))))
        assert counter(doc[start:end]) == PLAIN(doc[start:end])
        assert counter.span(doc, start, end) == PLAIN(doc[start:end])
    other = data.draw(documents)
    assert counter(other) == PLAIN(other)


@settings(max_examples=200, deadline=None)
@given(doc=documents)
def test_a_segment_count_is_its_own_fresh_encoding(doc: str) -> None:
    counts = LineCounts("cl100k_base")
    counts.add(doc)
    for segment in line_segments(doc):
        assert counts.count(segment, PLAIN) == PLAIN(segment)
    assert "".join(line_segments(doc)) == doc


def test_a_span_of_the_text_read_last_is_a_subtraction(encoded: list[str]) -> None:
    doc = "Intro line\n  indented line\n\nNext block\n"
    counter = MemoCounter("cl100k_base")
    counter.read_lines(doc)
    encoded.clear()
    assert counter.span(doc, 11, len(doc)) == PLAIN(doc[11:]) and encoded == [doc[11:]]  # the spy's call alone
    copy = "".join(list(doc))  # equal, but another string: counted (from the line counts)
    assert copy is not doc and counter.span(copy, 0, 11) == PLAIN("Intro line\n")
    assert counter.span(doc, 2, 11) == PLAIN(doc[2:11]) and encoded[-2:] == [doc[2:11], doc[2:11]]
    calls = len(encoded)
    assert counter.span(doc, 2, len(doc)) == PLAIN(doc[2:]) and encoded[calls:] == [doc[2:]]  # its head: kept


def test_a_span_that_ends_inside_a_line_or_its_indent_encodes_only_the_piece_after_the_line_start(
    encoded: list[str],
) -> None:
    doc = "Intro line\n    indented body. More.\n\n    Next block\n"
    counter = MemoCounter("cl100k_base")
    counter.read_lines(doc)
    indent_end, inside = doc.index("Next"), doc.index("More")  # (indented text: a unit ends in the next indent)
    wanted = [PLAIN(doc[:indent_end]), PLAIN(doc[:inside]), PLAIN(doc[13:inside])]
    encoded.clear()
    assert counter.span(doc, 0, indent_end) == wanted[0] and encoded == ["    "]
    assert counter.span(doc, 0, inside) == wanted[1] and encoded[1:] == ["    indented body. "]
    assert counter.span(doc, 13, inside) == wanted[2] and encoded[2:] == [doc[13:inside]]  # no line start inside


def test_python_white_space_in_a_pattern_is_str_isspace() -> None:
    """The joints are found by ``\\S``; the proof reads non-whitespace as ``not str.isspace()``."""
    space = re.compile(r"\s")
    assert all(bool(space.match(chr(c))) == chr(c).isspace() for c in range(0x110000) if not 0xD800 <= c < 0xE000)


def test_a_text_of_whole_lines_is_summed_and_one_that_starts_inside_a_line_encodes_that_piece(
    encoded: list[str],
) -> None:
    doc = "# Title\nFirst line of the body.\n  indented line\n \n  \nLast line.\n\n中文的行。\n"
    counter = MemoCounter("cl100k_base")
    counter.read_lines(doc)
    assert counter(doc) == PLAIN(doc) and counter(doc[8:]) == PLAIN(doc[8:])
    encoded.clear()
    lines = "# Title\n  indented line\n \n  \n中文的行。\n"  # three of its lines, not all side by side in it
    assert counter(lines) == PLAIN(lines) and encoded == [lines]  # the plain count's call alone
    assert counter(doc[2:]) == PLAIN(doc[2:])
    assert encoded == [lines, "Title\n", doc[2:]]  # the first piece, and the plain count


def test_a_document_tiktoken_cannot_encode_as_it_is_adds_no_counts(encoded: list[str]) -> None:
    doc = "Alpha line\nBeta \ud800 line\nGamma line\n"
    counter = MemoCounter("cl100k_base")
    counter.read_lines(doc)
    encoded.clear()
    assert counter("Alpha line\n") == PLAIN("Alpha line\n")
    assert encoded[0] == "Alpha line\n"  # not from a table: encoded
    assert counter(doc) == PLAIN(doc)


def test_a_part_whose_tokens_cross_a_cut_adds_no_counts(encoded: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    counter = MemoCounter("cl100k_base")
    with monkeypatch.context() as patch:
        patch.setattr(document_counts, "_JOINT", re.compile(r" (?=\S)"))  # cuts before " word": tokens cross them
        counter.read_lines("one two three\n")
    encoded.clear()
    assert counter("one two three\n") == PLAIN("one two three\n") and encoded[0] == "one two three\n"


def test_a_text_over_the_sum_limit_is_counted_whole(encoded: list[str]) -> None:
    doc = "line\n" * (SUM_CHARS // 5 + 1)
    counter = MemoCounter("cl100k_base")
    counter.read_lines(doc)
    encoded.clear()
    assert counter(doc) == PLAIN(doc) and len(encoded) == 2 and encoded[0] == doc
    assert counter.span(doc, 0, len(doc)) == PLAIN(doc) and encoded[2] == doc  # a span this long too


@pytest.mark.parametrize("char", [" ", "\n", " \n", "\t", "\u00a0", "\u3000", "\r\n"])
def test_no_text_within_the_sum_limit_overflows_tiktoken(char: str) -> None:
    """Why a text up to SUM_CHARS is summed: tiktoken encodes it as it is (it overflows near a million)."""
    core = get_encoding("cl100k_base")._core_bpe
    core.encode(char * (SUM_CHARS // len(char)) + "x", set())  # raises ValueError on an overflow


def test_the_kept_counts_are_bounded_and_the_oldest_go_first(
    encoded: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(document_counts, "TABLE_BUDGET_CHARS", 100)
    counter = MemoCounter("cl100k_base")
    first = "First document line\n"
    counter.read_lines(first)
    for k in range(6):
        counter.read_lines(f"Another document, number {k}\n")
    last, expected = "Another document, number 5\n", [PLAIN(first), PLAIN("Another document, number 5\n")]
    encoded.clear()
    assert counter(last) == expected[1] and not encoded  # served
    assert counter(first) == expected[0] and encoded == [first]  # dropped: encoded again


def test_a_long_document_is_read_in_parts_cut_at_line_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_counts, "PART_CHARS", 16)
    parts: list[str] = []
    learn = LineCounts._learn
    monkeypatch.setattr(LineCounts, "_learn", lambda self, lines: parts.append("".join(lines)) or learn(self, lines))
    doc = "".join(f"Line number {k} of many\n  with a continuation\n" for k in range(20))  # one line over and over
    counts = LineCounts("cl100k_base")
    counts.add(doc)
    assert len(parts) > 5 and all(p.endswith("\n") for p in parts)
    again = doc.split("  with a continuation\n", 1)[1].replace("  with a continuation\n", "")
    assert "".join(parts) == doc[: doc.index("Line number 1 ")] + again  # a line known already is not encoded
    assert counts.span(doc, 0, len(doc), PLAIN) == PLAIN(doc)
    assert counts.span(doc, len(parts[0]), len(doc), PLAIN) == PLAIN(doc[len(parts[0]) :])


def test_other_encodings_and_counters_keep_their_plain_path() -> None:
    try:
        o200k = MemoCounter("o200k_base")
    except ConfigurationError:
        pytest.skip("o200k_base is in no local folder")
    o200k.read_lines(".\n//")
    assert o200k(".\n//") == TiktokenCounter("o200k_base")(".\n//")  # ".\n//" is one o200k piece


def test_a_batch_run_encodes_a_document_about_once(encoded: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    learn = LineCounts._learn
    monkeypatch.setattr(LineCounts, "_learn", lambda self, lines: read.append("".join(lines)) or learn(self, lines))
    section = "## Setup\nInstall the tool. Then run it once to check the set-up works as it should.\n\n"
    doc = "".join(section.replace("Setup", f"Step {k}") * 3 for k in range(60))
    plain = LumberChunker().chunk_many([doc])
    assert sum(map(len, read)) == len(doc) and sum(map(len, encoded)) < len(doc) // 10
    monkeypatch.setattr(MemoCounter, "read_lines", lambda self, text: None)
    assert LumberChunker().chunk_many([doc]) == plain
    assert isinstance(run_counter(PLAIN), MemoCounter)


def test_a_batch_runs_document_tokens_are_the_plain_count() -> None:
    doc = ("A sentence that runs on. " * 40 + "\n\n") * 5 + "  an indented last line\n"
    chunker = LumberChunker(max_tokens=60)
    chunks = chunker.chunk_many([doc])[0]
    assert any(not c.text.endswith("\n") for c in chunks[:-1])  # chunks meet inside a line: summed across it
    assert chunker.last_usage.document_tokens == PLAIN(doc)
    assert [c.token_count for c in chunks] == [PLAIN(c.text) for c in chunks]


#: Words of Chinese that cl100k merges with their neighbours (数据库 is one token, 数据 and 库 one each).
CJK_WORDS = ["数据", "库", "数据库", "文件", "系统", "中国", "人民", "我们", "一个", "的", "。", "\n", "\n\n", " "]


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(CJK_WORDS), min_size=2, max_size=30), data=st.data())
def test_line_counts_of_chinese_add_up_only_at_clean_joints(words: list[str], data: st.DataObject) -> None:
    """The rule line counts rest on, on text whose tokens cross word joints: a clean joint adds, no other is summed."""
    cut = data.draw(st.integers(1, len(words) - 1))
    left, right = "".join(words[:cut]), "".join(words[cut:])
    if clean_joint(left, right):
        assert PLAIN(left + right) == PLAIN(left) + PLAIN(right)
    assert joined_count(PLAIN, [left, right], [PLAIN(left), PLAIN(right)]) == PLAIN(left + right)


#: Chinese prose with no line break: its units meet inside runs of ideographs that cl100k merges
#: (数据库 is one token; 数据 and 库 one each), so a count summed across such a joint would be too high.
CHINESE = "".join(
    f"数据库系统第{i}版的文件在中国人民的时间问题是我们的一个数据库，文件系统在数据库中保存了数据库的文件。"
    for i in range(40)
)


@pytest.mark.parametrize("max_tokens", [7, 20, 64])
def test_chinese_chunks_count_as_tiktoken_does(max_tokens: int) -> None:
    chunker = LumberChunker(max_tokens=max_tokens)
    chunks = chunker.chunk_many([CHINESE])[0]
    assert "".join(c.text for c in chunks) == CHINESE and len(chunks) > 2
    assert [c.token_count for c in chunks] == [PLAIN(c.text) for c in chunks]
    assert chunker.last_usage.document_tokens == PLAIN(CHINESE)
