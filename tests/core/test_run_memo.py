"""A batch run's memory: a text seen again is not encoded or read again; the counts, units and chunks stay."""

from __future__ import annotations

import pickle

import pytest

from chop_integrations import LumberChunker
from chop_integrations._lumber import chunker as chunker_module
from chop_integrations._text import run_memo, segmentation
from chop_integrations._text.headings.reader import heading_starts
from chop_integrations._text.run_memo import MemoCounter, TextMemo, run_counter
from chop_integrations._text.segmentation import split_units, units_of
from chop_integrations._text.token_sums import sums_at_lines
from chop_integrations._text.tokens import CharCounter, TiktokenCounter, get_encoding


def test_a_repeated_text_is_encoded_once_with_the_count_tiktoken_gives(encoded: list[str]) -> None:
    memo = MemoCounter("cl100k_base")
    exact = len(get_encoding("cl100k_base").encode("Hold the side key.\n\n"))
    assert [memo("Hold the side key.\n\n") for _ in range(3)] == [exact] * 3
    assert encoded == ["Hold the side key.\n\n"]


def test_a_run_counter_is_a_fresh_tiktoken_counter_and_other_counters_stay(encoded: list[str]) -> None:
    plain = TiktokenCounter("cl100k_base")
    first, second = run_counter(plain), run_counter(plain)
    assert isinstance(first, MemoCounter) and first is not second and first == plain
    assert sums_at_lines(first) and first.name == "tiktoken:cl100k_base"
    first("Same text")
    second("Same text")
    assert encoded == ["Same text", "Same text"]  # nothing is shared between two runs
    chars = CharCounter()
    assert run_counter(chars) is chars


def test_long_texts_are_not_kept_and_a_full_memo_starts_again(
    encoded: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_memo, "MEMO_TEXT_CHARS", 10)
    monkeypatch.setattr(run_memo, "MEMO_BUDGET_CHARS", 12)
    memo = MemoCounter("cl100k_base")
    memo("a long text, not kept")
    memo("a long text, not kept")
    memo("six ch")
    memo("seven c")  # over the budget: the memo starts again with this one
    memo("seven c")
    memo("six ch")
    assert encoded == ["a long text, not kept"] * 2 + ["six ch", "seven c", "six ch"]


def test_a_pickled_memo_counter_counts_again_from_empty() -> None:
    memo = MemoCounter("cl100k_base")
    memo("kept")
    again = pickle.loads(pickle.dumps(memo))
    assert isinstance(again, MemoCounter) and again("kept") == memo("kept") and again._memo.get("kept") == 1


def test_chunk_many_gives_the_chunks_of_a_counter_with_no_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    shared = "".join(f"Section {k}\n\nThe same paragraph about setting {k} up, in every manual.\n\n" for k in range(40))
    docs = [f"Manual {n}\n\n{shared}Only in manual {n}.\n" for n in range(3)]
    engine = LumberChunker(max_tokens=60)
    with_memo = engine.chunk_many(docs)
    monkeypatch.setattr(chunker_module, "run_counter", lambda count: count)
    monkeypatch.setattr(chunker_module, "TextMemo", lambda: None)
    assert engine.chunk_many(docs) == with_memo == [engine.chunk(d) for d in docs]
    assert sum(len(c) for c in with_memo) > 6


def test_a_text_seen_again_is_not_read_again_for_headings_and_the_units_are_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counter = TiktokenCounter("cl100k_base")
    block = "Wi-Fi\nTurn on Wi-Fi to connect to a network and use the internet.\n\n"
    text = f"Intro\n\n{block}  {block}Tail line.\n"
    plain = split_units(text, max_tokens=40, token_counter=counter)
    longer = split_units(text + block, max_tokens=40, token_counter=counter)
    read: list[str] = []

    def spy(whole: str, *, markdown: bool | None = None) -> list[int]:
        read.append(whole)
        return heading_starts(whole, markdown=markdown)

    monkeypatch.setattr(segmentation, "heading_starts", spy)
    memo = TextMemo()
    assert units_of(text, max_tokens=40, token_counter=counter, memo=memo) == plain
    assert units_of(text, max_tokens=40, token_counter=counter, memo=memo) == plain
    assert read == [text]  # the second time the text's headings came from the memo
    assert units_of(text + block, max_tokens=40, token_counter=counter, memo=memo) == longer
    assert read == [text, text + block]


def test_the_guess_for_a_largest_prefix_is_kept_as_the_counts_are(monkeypatch: pytest.MonkeyPatch) -> None:
    guessed: list[str] = []
    plain = TiktokenCounter.head_end

    def spy(self: TiktokenCounter, text: str, tokens: int) -> tuple[int, int] | None:
        guessed.append(text)
        return plain(self, text, tokens)

    monkeypatch.setattr(TiktokenCounter, "head_end", spy)
    memo, stars = MemoCounter("cl100k_base"), "*" * 3000
    assert memo.head_end(stars, 20) == memo.head_end(stars, 20) == plain(memo, stars, 20)
    assert memo.head_end(stars, 21) == plain(memo, stars, 21)
    assert guessed == [stars, stars]  # the same text and size once; another size is another guess
