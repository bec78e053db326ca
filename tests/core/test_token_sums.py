"""Joined counts: a sum of the parts' counts only where that equals a fresh encoding of the join."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._errors import ConfigurationError
from chop_integrations._text.token_sums import (
    capped_count,
    clean_joint,
    joined_count,
    longest_token_bytes,
    sums_at_lines,
    surely_over,
)
from chop_integrations._text.tokens import CharCounter, TiktokenCounter, WordCounter, get_encoding

CL100K = TiktokenCounter("cl100k_base")
#: Characters that make tiktoken's pieces interesting: whitespace of every kind, line breaks, letters with
#: contractions, digits, punctuation, CJK, combining marks, NBSP, ideographic space, a lone surrogate's neighbour.
ALPHABET = list(" \t\n\r\n\x0b\x0c\x1c\x85\u2028\u00a0\u3000aZé\u0301's1234.,!?/-#|*`…中文。！")
texts = st.text(alphabet=st.sampled_from(ALPHABET), max_size=80)
LINE_BITS = ["\n", "\n\n", " \n", "x\n", "\r\n", "  ", "/", ".", "A", "中", "'s"]
line_heavy = st.lists(st.sampled_from(LINE_BITS), max_size=30)


#: Ideographs that cl100k merges into one token with their neighbours (数据库 is one token, 数据 and 库 one
#: each), with the punctuation and line breaks between them: a joint inside a merged run is never clean.
CJK = [*"数据 库 数据库 文件 系统 中国 人民 我们 时间 问题 一个 的 是 。 ，".split(), "\n"]
cjk_texts = st.lists(st.sampled_from(CJK), max_size=30).map("".join)


def _exact(text: str) -> int:
    return len(get_encoding("cl100k_base").encode(text, disallowed_special=()))


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.one_of(texts, line_heavy.map("".join)), min_size=1, max_size=8))
def test_a_joined_count_equals_the_encoding_of_the_joined_text(parts: list[str]) -> None:
    counts = [_exact(p) for p in parts]
    assert joined_count(CL100K, parts, counts) == _exact("".join(parts))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(texts, line_heavy.map("".join)), data=st.data())
def test_cuts_at_every_line_start_sum_to_the_whole_count(text: str, data: st.DataObject) -> None:
    """Cut at random positions, many of them clean: the sum of the clean runs is the whole count."""
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=10))))
    cuts += [i + 1 for i, ch in enumerate(text) if ch == "\n"]  # every line start: the clean candidates
    bounds = sorted({0, len(text), *cuts})
    parts = [text[a:b] for a, b in itertools.pairwise(bounds) if b > a] or [text]
    assert joined_count(CL100K, parts, [_exact(p) for p in parts]) == _exact(text)


def test_ideographs_that_merge_are_counted_once_not_summed() -> None:
    """``数据`` + ``库`` is one token in cl100k (``数据库``), not two: the joint after an ideograph is not clean."""
    assert (_exact("数据"), _exact("库"), _exact("数据库")) == (1, 1, 1)
    assert not clean_joint("数据", "库")
    assert joined_count(CL100K, ["数据", "库"], [1, 1]) == 1
    assert joined_count(CL100K, ["数据\n", "库"], [2, 1]) == 3  # after a line break it is clean: summed


@settings(max_examples=300, deadline=None)
@given(text=cjk_texts, data=st.data())
def test_cjk_cut_anywhere_joins_to_the_count_of_the_whole(text: str, data: st.DataObject) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=12))))
    bounds = sorted({0, len(text), *cuts})
    parts = [text[a:b] for a, b in itertools.pairwise(bounds) if b > a] or [text]
    assert joined_count(CL100K, parts, [_exact(p) for p in parts]) == _exact(text)


@settings(max_examples=300, deadline=None)
@given(left=st.one_of(texts, cjk_texts), right=st.one_of(texts, cjk_texts))
def test_a_clean_joint_is_one_where_the_counts_add_up(left: str, right: str) -> None:
    """The property the sums rest on: across a joint called clean, the counts of the two sides add up."""
    if clean_joint(left, right):
        assert _exact(left + right) == _exact(left) + _exact(right)


def test_a_clean_joint_is_a_line_break_before_a_non_space() -> None:
    assert clean_joint("a\n", "b") and clean_joint("\n\n", "中")
    assert not clean_joint("a\n", " b") and not clean_joint("a", "b") and not clean_joint("a\r", "\nb")
    assert not clean_joint("a\n", "") and not clean_joint("", "b")


def _spy() -> tuple[TiktokenCounter, list[str]]:
    """A ``cl100k_base`` counter and the list of the texts it was asked to count."""
    calls: list[str] = []

    class Spy(TiktokenCounter):
        def __call__(self, text: str) -> int:
            calls.append(text)
            return super().__call__(text)

    return Spy("cl100k_base"), calls


def test_counts_are_summed_across_clean_joints_and_recounted_elsewhere() -> None:
    spy, calls = _spy()
    parts = ["Title\n", "Body one. ", "Body two.\n\n", "Next\n"]
    assert joined_count(spy, parts, [_exact(p) for p in parts]) == _exact("".join(parts))
    assert calls == ["Body one. Body two.\n\n"]  # the one run joined at an unclean joint ("Body one. " | "Body")


@pytest.mark.parametrize("counter", [CharCounter(), WordCounter(), len])
def test_other_counters_count_the_joined_text(counter: object) -> None:
    assert not sums_at_lines(counter)  # type: ignore[arg-type]
    calls: list[str] = []

    def spy(text: str) -> int:
        calls.append(text)
        return counter(text)  # type: ignore[operator]

    assert joined_count(spy, ["a\n", "b"], [99, 99]) == counter("a\nb")  # type: ignore[operator]
    assert calls == ["a\nb"]


def test_o200k_keeps_the_plain_path_its_punctuation_runs_cross_a_line_start() -> None:
    try:
        o200k = TiktokenCounter("o200k_base")
    except ConfigurationError:
        pytest.skip("o200k_base is in no local folder")
    assert not sums_at_lines(o200k)
    assert o200k(".\n//") != o200k(".\n") + o200k("//")  # why: ".\n//" is one of its pieces


def test_the_longest_cl100k_token_holds_128_bytes() -> None:
    encoding = get_encoding("cl100k_base")
    longest = max(len(encoding.decode_single_token_bytes(i)) for i in range(encoding.n_vocab - 300))
    assert longest_token_bytes("cl100k_base") == longest == 128


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(texts, st.builds(lambda c, n: c * n, st.sampled_from(ALPHABET), st.integers(1, 3000))))
def test_the_floor_never_claims_a_text_is_over_its_own_count(text: str) -> None:
    assert not surely_over(CL100K, len(text), _exact(text))


def test_a_long_text_is_surely_over_without_a_count_and_other_counters_are_always_counted() -> None:
    (spy, calls), text = _spy(), " " * 2000
    assert capped_count(text, 0, 1281, 10, spy) == 11 and not calls  # over 10 * 128 characters: not counted
    assert capped_count(text, 0, 1280, 10, spy) == _exact(" " * 1280) and calls == [" " * 1280]
    assert not surely_over(CharCounter(), 10**9, 1) and not surely_over(len, 10**9, 1)


@settings(max_examples=200, deadline=None)
@given(char=st.sampled_from([*ALPHABET, "=", "~", "\u2500"]), n=st.integers(1, 4000), slack=st.integers(-3, 3))
def test_a_run_of_one_character_is_capped_only_where_its_count_is_over(char: str, n: int, slack: int) -> None:
    exact = _exact(char * n)
    limit = max(1, exact + slack)
    capped = capped_count(char * n, 0, n, limit, CL100K)
    assert capped == exact if exact <= limit else capped > limit


def test_a_long_run_of_stars_is_over_without_a_count() -> None:
    spy, calls = _spy()
    stars = "*" * 9000  # no token holds more than 80 stars: surely over 100 tokens, though not over 100 * 128 bytes
    assert capped_count(stars, 0, 9000, 100, spy) == 101 and not calls
    assert capped_count(stars, 0, 7000, 100, spy) == _exact("*" * 7000) and len(calls) == 1


@pytest.mark.parametrize(("char", "n", "limit"), [("中", 60, 10), ("😀", 40, 20), ("*", 1200, 10), ("a", 200, 10)])
def test_a_run_over_its_limit_inside_a_text_is_answered_limit_plus_one(char: str, n: int, limit: int) -> None:
    """The run's own slice is capped (not counted), wherever it lies, whatever stands around it."""
    text = char * 3 + "b" + char * n + "b" + char * 3  # the same character before and after, past one other
    start, end = 4, 4 + n
    assert _exact(char * n) > limit + 1  # so a count would tell
    assert not surely_over(CL100K, n, limit)  # its length alone would not cap it: its bytes do
    assert capped_count(text, start, end, limit, CL100K) == limit + 1
    assert capped_count(char * n, 0, n, limit, CL100K) == limit + 1


@pytest.mark.parametrize(("char", "limit"), [("鱻", 12), ("😀", 9), ("a", 1)])
def test_a_run_no_longer_than_its_limit_is_counted(char: str, limit: int) -> None:
    """At ``limit`` characters or fewer a run is counted, even where its tokens are over (鱻 is two tokens)."""
    text = "x" + char * limit + "y"
    assert capped_count(text, 1, 1 + limit, limit, CL100K) == _exact(char * limit)


def test_a_text_that_only_starts_and_ends_like_a_run_is_counted() -> None:
    text = "*" + "ab" * 400 + "*"  # 802 characters, first and last a star: not a run
    assert capped_count(text, 0, len(text), 10, CL100K) == _exact(text) > 11
    assert capped_count("x" + text, 1, len(text) + 1, 10, CL100K) == _exact(text)


@pytest.mark.parametrize("char", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_a_run_of_lone_surrogates_is_counted_not_encoded_as_bytes(char: str) -> None:
    assert capped_count(char * 300, 0, 300, 10, CL100K) == _exact(char * 300)


def test_a_slice_is_counted_from_its_start() -> None:
    text = "Wörter und Zahlen 1234 " * 10
    assert capped_count(text, 9, 40, 100, CL100K) == _exact(text[9:40])
    assert capped_count(text, 100, 200, 1, CL100K) == _exact(text[100:200]) > 2  # 100 characters: not surely over
    assert capped_count("*" * 50, 0, 50, 10, CharCounter()) == 50  # other counters: always counted
    assert capped_count("ab" * 50, 10, 30, 5, WordCounter()) == 1


def test_two_characters_or_more_after_a_line_break_make_a_clean_joint() -> None:
    assert clean_joint("a\n", "bc") and clean_joint("a\n", "b") and not clean_joint("a\n", "\nb")


def test_a_text_over_the_floor_is_capped_whatever_it_holds() -> None:
    varied = ("Pump 12, valve 3; " * 100)[:1300]  # 1,300 characters, no run: over 10 * 128 bytes all the same
    assert capped_count(varied, 0, 1300, 10, CL100K) == 11
    assert capped_count("x\u9c7b", 1, 2, 0, CL100K) == 1  # one character over a limit of 0: capped, not counted


def test_a_run_past_the_start_is_measured_by_its_own_length() -> None:
    text = "b" * 100 + "a" * 50  # fifty a's: a few tokens, under 10 of the longest a-token
    assert capped_count(text, 100, 150, 10, CL100K) == _exact("a" * 50) < 10
