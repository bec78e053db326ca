"""Properties and examples of :func:`chop_integrations.split_units`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._chop import CHOPChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._text.headings import is_heading_line
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter

COUNT = default_counter()


def char_counter(text: str) -> int:
    """One token per character: makes every bound exact and easy to reason about."""
    return len(text)


def check(text: str, max_tokens: int, counter=COUNT) -> list:  # type: ignore[no-untyped-def]
    units = split_units(text, max_tokens=max_tokens, token_counter=counter)
    assert "".join(u.text for u in units) == text
    position = 0
    for unit in units:
        assert unit.start == position and unit.end > unit.start
        assert text[unit.start : unit.end] == unit.text
        assert unit.tokens == counter(unit.text)
        if unit.tokens > max_tokens:  # only a single indivisible character may exceed
            assert len(unit.text) == 1 or unit.text in ("\r\n",) or len(unit.text) == 2
        position = unit.end
    assert position == len(text)
    return units


WORDS_EN = st.sampled_from(["The", "device", "battery", "charge", "screen.", "Settings", "tap!", "why?", "ok"])
WORDS_DE = st.sampled_from(["Größe", "Überblick", "Straße", "Einstellungen.", "Akku", "laden!", "wählen?", "ß"])
WORDS_ZH = st.sampled_from(["设置", "电池", "充电。", "屏幕", "！", "您好？", "手机", "说明书"])
SEPARATORS = st.sampled_from([" ", " ", "\n", "\n\n", "\r\n", "\r\n\r\n", "\t", "  \n \n"])
MIXED = st.lists(st.tuples(st.one_of(WORDS_EN, WORDS_DE, WORDS_ZH), SEPARATORS), max_size=120).map(
    lambda parts: "".join(w + s for w, s in parts)
)


@given(text=st.text(), max_tokens=st.integers(min_value=1, max_value=40))
def test_arbitrary_unicode_is_lossless_and_bounded(text: str, max_tokens: int) -> None:
    check(text, max_tokens)


@given(text=MIXED, max_tokens=st.integers(min_value=1, max_value=60))
def test_en_de_zh_is_lossless_and_bounded(text: str, max_tokens: int) -> None:
    check(text, max_tokens)


@given(text=MIXED, max_tokens=st.integers(min_value=1, max_value=30))
def test_exact_bound_with_a_character_counter(text: str, max_tokens: int) -> None:
    units = check(text, max_tokens, char_counter)
    assert all(len(u.text) <= max_tokens or u.text == "\r\n" for u in units)


@given(text=st.text(alphabet=" \t\n\r\u3000\xa0", min_size=1))
def test_whitespace_only_is_one_unit(text: str) -> None:
    units = split_units(text, max_tokens=10_000, token_counter=COUNT)
    assert len(units) == 1 and units[0].text == text


def test_empty_text_gives_no_units() -> None:
    assert split_units("", max_tokens=5, token_counter=COUNT) == []


@pytest.mark.parametrize("bad", [0, -3])
def test_max_tokens_below_one_is_a_configuration_error(bad: int) -> None:
    with pytest.raises(ConfigurationError, match="max_tokens"):
        split_units("text", max_tokens=bad, token_counter=COUNT)


def test_paragraphs_keep_their_trailing_whitespace() -> None:
    text = "  First paragraph here.\n\n\nSecond one.\n  \n"
    units = check(text, 100)
    assert [u.text for u in units] == ["  First paragraph here.\n\n\n", "Second one.\n  \n"]


def test_headings_start_units_and_are_flagged() -> None:
    text = (
        "# Overview\nThis guide explains the widget.\n"
        "2.1 Cleaning the filter\nRemove the filter and rinse it with water.\n"
        "SAFETY INSTRUCTIONS\nKeep the unit away from heat sources at all times.\n"
        "Plain body line that ends with a period.\n"
    )
    units = check(text, 500)
    # a markdown text is read by its markdown headings (the outline's choice): the plain lines are body
    assert [(u.text.splitlines()[0], u.heading) for u in units] == [("# Overview", True)]
    plain = text.removeprefix("# Overview\nThis guide explains the widget.\n")
    units = check(plain, 500)
    assert [u.text.splitlines()[0] for u in units] == ["2.1 Cleaning the filter", "SAFETY INSTRUCTIONS"]
    assert all(u.heading for u in units)


def test_callout_labels_and_list_items_are_not_headings() -> None:
    assert not is_heading_line("NOTE", "Do not open the case.")
    assert not is_heading_line("- first item", "Another sentence here.")
    assert not is_heading_line("this starts lowercase", "Body text follows.")
    assert not is_heading_line("Ends with a period.", "Body text follows.")
    assert is_heading_line("Replacing the lamp", "Switch the unit off before you start.")
    assert not is_heading_line("Replacing the lamp", "Short line")


def test_chat_turns_log_lines_and_key_value_records_are_not_headings() -> None:
    assert not is_heading_line("Dave: on it", "Alice: thanks, I will check the build now!")
    assert not is_heading_line("Files: fonts/cmr10.pfb", "Description: Type-1 version of a Computer Modern font.")
    assert not is_heading_line("[09:12] <dave> Deploy done", "[09:13] <alice> thanks, that fixed the flaky test.")
    assert not is_heading_line("10:02 standup", None)
    assert is_heading_line("Chapter 3: The Return", "The ship came back to port in the spring of that year.")
    assert is_heading_line("Troubleshooting", "Note: restart the device before anything else.")
    log = "".join(f"{who}: {what}\n" for who, what in [("Dave", "on it"), ("Alice", "thanks!"), ("Bob", "ok")] * 30)
    chunks = CHOPChunker().chunk_many(
        [log, log.replace("Dave", "Erin")], metadatas=[{"source": "team_chat.txt"}, {"source": "ops_chat.txt"}]
    )
    assert {c.prefix for doc in chunks for c in doc} <= {
        "team chat: [team chat] ",
        "ops chat: [ops chat] ",
    }  # no chat line as a section


def test_oversized_paragraph_splits_at_sentence_ends() -> None:
    text = "One sentence here. " * 40
    units = check(text, 30)
    assert len(units) > 1
    assert all(u.text.endswith(". ") for u in units)


def test_chinese_sentences_split_at_cjk_punctuation() -> None:
    text = "我们今天去公园散步。天气很好！你想一起去吗？" * 20
    units = check(text, 25)
    assert len(units) > 1
    assert all(u.text[-1] in "。！？" for u in units)


def test_german_paragraphs() -> None:
    text = "Überblick\nDie Größe des Geräts ist gering. Bitte laden Sie den Akku.\n\nStraße und Weg sind frei."
    units = check(text, 50)
    assert units[0].heading and units[0].text.startswith("Überblick")


def test_no_breaks_at_all_is_cut_at_token_boundaries() -> None:
    text = "abcdefghij" * 500
    units = check(text, 7, char_counter)
    assert all(len(u.text) == 7 for u in units[:-1])


def test_crlf_and_surrogates_are_never_split() -> None:
    text = "\r\n" * 50 + "\ud83d\ude00" * 50
    units = check(text, 3, char_counter)
    for unit in units:
        assert not unit.text.startswith("\n") or unit.start == 0 or text[unit.start - 1] != "\r"
        assert not ("\udc00" <= unit.text[0] <= "\udfff")


def test_a_character_above_the_maximum_is_its_own_unit() -> None:
    units = check("ab\u4e00cd", 1, lambda s: 5 * s.count("\u4e00") + len(s.replace("\u4e00", "")))
    assert [u.text for u in units] == ["a", "b", "\u4e00", "c", "d"]


@pytest.mark.slow
def test_one_enormous_paragraph_and_many_tiny_ones() -> None:
    big = ("Lorem ipsum dolor sit amet consectetur " * 50 + "adipiscing elit. ") * 1500  # ~3 MB, one paragraph
    check(big, 550)
    check("x" * 2_000_000, 550)
    tiny = "A.\n\n" * 100_000
    units = check(tiny, 550)
    assert len(units) == 100_000
