"""The offline deciders on small hand-written texts (no data set is read)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations import ConfigurationError
from chop_integrations._deciders import (
    CNMExtractor,
    ContinuityDecider,
    DocContext,
    Synchronous,
    TopicShiftDecider,
    Window,
    as_async,
)
from chop_integrations._offline import (
    Lexicon,
    OfflineCNMExtractor,
    OfflineContinuity,
    OfflineTopicShift,
    clean_file_stem,
    document_model,
    find_model_tokens,
)
from chop_integrations._offline.lexicon import _ADDRESSED, _WORD, _word_count
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter
from chop_integrations._types import CNM, Chunk

MANUAL = """ACME
Breezer X-200
Owner's Guide

Safety information
Read these instructions before you switch your air conditioner on. Keep the indoor unit away from water.
Place your air conditioner on a level floor and never cover your air conditioner while it runs.

Cleaning the air filter
Switch the unit off. Open the front panel and pull the air filter out. Rinse the filter with lukewarm water.
Let the filter dry in the shade before you put it back.

Remote control
Press the mode button to choose cooling, heating or fan. The fan speed changes each time you press the fan button.
The thermostat keeps the room at the temperature you set.
"""

NOVEL = "\n\n".join(
    [
        "The garden lay quiet under the morning sun. Roses climbed the garden wall and bees moved from rose to rose.",
        "In the garden the gardener cut the roses and carried them to the house in a basket of roses.",
        "Bees and roses filled the garden; the gardener smiled at the roses and the wall.",
        "At the harbour the ships were loading coal. Sailors shouted across the harbour as the ships pulled at ropes.",
        "The harbour master counted the ships and the coal sacks while sailors tied the ropes on deck.",
        "Ropes, coal and sailors crowded every ship in the harbour until evening.",
    ]
)


def make_doc(text: str, **hints: str) -> DocContext:
    return DocContext(doc_id="doc", text=text, metadata=dict(hints))


def window(text: str, **hints: str) -> Window:
    units = split_units(text, max_tokens=500, token_counter=default_counter())
    return Window(units=units, first_index=0, doc=make_doc(text, **hints), is_last=True)


def chunk(text: str, start: int = 0) -> Chunk:
    return Chunk(text=text, start=start, end=start + len(text), token_count=len(text.split()))


def test_the_sync_classes_satisfy_the_async_protocols_through_the_one_adapter() -> None:
    assert not isinstance(OfflineTopicShift(), TopicShiftDecider)  # synchronous: choose, no achoose
    assert isinstance(as_async(OfflineTopicShift(), "achoose"), TopicShiftDecider)
    assert isinstance(as_async(OfflineContinuity(), "adecide"), ContinuityDecider)
    assert isinstance(as_async(OfflineCNMExtractor(), "aextract"), CNMExtractor)
    with pytest.raises(ConfigurationError, match="achoose"):
        as_async(object(), "achoose")


def test_topic_shift_cuts_at_section_headings_and_keeps_the_cover_title_together() -> None:
    win = window(MANUAL)
    cuts = OfflineTopicShift().choose(win)
    starts = [win.units[i].text.splitlines()[0] for i in cuts]
    assert starts == ["Safety information", "Cleaning the air filter", "Remote control"]
    assert cuts == sorted(set(cuts)) and all(1 <= i < len(win.units) for i in cuts)


async def test_topic_shift_async_matches_sync() -> None:
    win = window(MANUAL)
    assert await Synchronous(OfflineTopicShift()).achoose(win) == OfflineTopicShift().choose(win)


def test_topic_shift_finds_the_lexical_shift_in_narrative_text() -> None:
    win = window(NOVEL)
    cuts = OfflineTopicShift(min_chunk_tokens=20).choose(win)
    assert cuts == [3]


def test_topic_shift_without_structure_or_lexical_cues_returns_nothing() -> None:
    assert OfflineTopicShift(lexical=False).choose(window(NOVEL)) == []
    assert OfflineTopicShift().choose(window("Only one paragraph.")) == []


def test_continuity_false_at_a_new_section_true_inside_a_topic() -> None:
    decider = OfflineContinuity()
    doc = make_doc(MANUAL)
    previous = chunk("Cleaning the air filter\nSwitch the unit off. Pull the air filter out and rinse the filter.\n")
    same = chunk("Let the filter dry before you put the air filter back into the unit.\n")
    new = chunk("Remote control\nPress the mode button to choose cooling or heating.\n")
    unrelated = chunk("the harbour master counted ships and coal sacks while sailors tied ropes.\n")
    assert decider.decide(previous, same, doc) is True
    assert decider.decide(previous, new, doc) is False
    assert decider.decide(previous, unrelated, doc) is False


def test_cnm_from_cover_text_lexicon_and_heading() -> None:
    doc = make_doc(MANUAL)
    cnm = OfflineCNMExtractor().extract(chunk("Cleaning the air filter\nSwitch the unit off.\n"), doc, None)
    assert cnm == CNM(category="air conditioner", nouns=["Cleaning the air filter"], model="Breezer X-200")


async def test_cnm_prefers_hints_and_never_inherits_the_previous_signature() -> None:
    extractor = OfflineCNMExtractor()
    hinted = make_doc("plain text without a cover.", model="Model Q", category="kettle")
    cnm = await Synchronous(extractor).aextract(chunk("Boil water."), hinted, None)
    assert (cnm.model, cnm.category) == ("Model Q", "kettle")
    bare = make_doc("it was a fine day and nothing was named anywhere in the text.")
    previous = CNM(category="novel", nouns=["day"], model="Earlier Model")
    cnm = extractor.extract(chunk("nothing here."), bare, previous)
    assert cnm == CNM()  # unsure: empty, not another document's name


def test_cnm_model_from_file_name_never_from_a_token_in_the_chunk() -> None:
    doc = make_doc("some body text that names nothing.", source="/tmp/Vortex_Pro_9_User_Manual_v2.pdf")
    assert document_model(doc) == "Vortex Pro 9"
    bare = make_doc("some body text that names nothing.")
    text = "Compatible with the ZX-81B adapter. Error E21: call 1-800-ACME."
    cnm = OfflineCNMExtractor().extract(chunk(text), bare, None)
    assert cnm.model is None  # an accessory, an error code or a phone number is not the document's model


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Galore_T5.txt", "Galore T5"),
        ("docs/Owner_Manual_HX-900_final.md", "HX-900"),
        ("0a1b2c3d4e5f.txt", None),
        ("untitled.txt", None),
        ("user_manual.pdf", None),
        ("PMC7654321.txt", None),  # a record number
        ("12345678_abstract.txt", None),
        ("chat_001.txt", None),  # a counter: stripped, nine files would share one name, so none
        ("lic_03.txt", None),
        ("doc_07.txt", None),
        ("doc01.txt", None),
        ("nimbus_ac-09.txt", "nimbus ac-09"),  # a hyphen glues the number to the model: not a counter
        ("pubmed-1234567.txt", None),  # a record number
        ("AB-C123D_UM_EU_Eng.pdf", "AB-C123D"),  # language, region and type abbreviations go (a lone code)
        ("acme-x200-user-manual", "acme x200"),  # a slug's type words go
        ("release_notes_v2.txt", None),  # only type words and the document's revision
        ("Vortex_Pro_9_v2.txt", "Vortex Pro 9 v2"),  # a version that is not the document's revision stays
        ("Latitude_7420.pdf", "Latitude 7420"),  # product numbers stay
        ("IEC_62304_guide.pdf", "IEC 62304"),
        ("Galaxy_Note_10+.txt", "Galaxy Note 10+"),
    ],
)
def test_clean_file_stem(source: str, expected: str | None) -> None:
    assert clean_file_stem(source) == expected


def test_model_tokens_skip_units_and_standards() -> None:
    tokens = find_model_tokens("Use the 5V 2A charger, 64GB card, 1080p video and the RX-700 or 225B unit.")
    assert tokens[:2] == ["RX-700", "225B"] and "5V" not in tokens and "64GB" not in tokens


def test_lexicon_is_extensible() -> None:
    lexicon = Lexicon(extra={"espresso machine": ["espresso", "portafilter", "grinder"]})
    text = "Fill the portafilter, tamp the espresso grounds and clean the grinder. Espresso tastes best fresh."
    assert lexicon.categorize(names="Barista espresso", cover="", body=text) == "espresso machine"
    assert lexicon.categorize(names="", cover="", body=text) is None  # body words alone are not strong evidence
    assert Lexicon().categorize(names="", cover="", body="nothing relevant") is None


def test_nouns_are_the_heading_path_or_nothing() -> None:
    extractor = OfflineCNMExtractor()
    assert extractor.nouns("the compressor hums; check the compressor valve and the valve seal.") == []
    text = "# Guide\n\n## Cooling\n\nIntro.\n\n### Filters\n\nRinse the filter.\n\nDry it.\n"
    doc = make_doc(text)
    start = text.index("Dry it.")
    tail = Chunk(text=text[start:], start=start, end=len(text), token_count=3)
    assert extractor.extract(tail, doc, None).nouns == ["Cooling", "Filters"]


def test_rules_name_no_product_of_the_evaluation_data() -> None:
    """No rule of the offline deciders or the segmentation may name a product, brand or model of the data."""
    package = Path(__file__).resolve().parents[2] / "chop_integrations"
    sources = [package / "_text" / "segmentation.py", package / "_text" / "pieces.py"]
    sources += sorted((package / "_offline").glob("*.py")) + sorted((package / "_text" / "headings").glob("*.py"))
    sources += [package / "_chop" / "prefix.py", package / "_chop" / "plan.py"]
    text = "\n".join(p.read_text(encoding="utf-8") for p in sources).lower()
    names = ["samsung", "galaxy", "note 8", "note 10", "tab s", "z flip", "z fold", "bixby", "one ui", "emma", "austen"]
    names += ["a01", "a10e", "s10", "s20", "s5e", "s7", "s8", "s9", "a50", "a51", "a71"]
    found = [n for n in names if re.search(r"(?<![a-z0-9])" + re.escape(n) + r"(?![a-z0-9])", text)]
    assert found == []


def test_default_prefix_opens_with_the_model_and_drops_an_empty_leading_field():
    from chop_integrations import CHOPChunker
    from chop_integrations._types import CNM, render_prefix

    text = "Acme RX-200\nUser Manual\n\nCharge the battery\nPlug the charger in and wait.\n"
    chunks = CHOPChunker(prefix="fixed").chunk(text, metadata={"source": "Acme_RX-200.txt"})
    assert chunks and all(c.prefix.startswith(f"{c.cnm.model}: [") for c in chunks)
    assert all(c.prefix.rstrip().endswith(f"{c.cnm.model}]") for c in chunks)
    assert render_prefix(CNM(category="phone", nouns=["Battery"])) == "[phone | Battery] "
    assert render_prefix(CNM(category="phone"), "{category}: [{model}] ") == "phone "


@given(st.lists(st.sampled_from(["your", "this", "phone", "x", "_", "9", "é", " ", "\n", "-", "s"]), max_size=20))
def test_the_address_pattern_finds_what_a_leading_lookbehind_finds(parts: list[str]) -> None:
    """The lexicon checks the character before "your"/"this" after the word; the matches are those of the plain form."""
    plain = re.compile(r"(?<![^\W_])(your|this)\s+([^\W_]+)(?:\s+([^\W_]+))?")
    text = "".join(parts)
    assert _ADDRESSED.findall(text) == plain.findall(text)


@given(
    st.lists(
        st.sampled_from(
            ["wi", "fi", "9", "_", "-", "'", "--", " ", "\n", ".", "é", "²", "’", "中", "\u0301", "a-b " * 9, "\ud800"]
        ),
        max_size=24,
    )
)
def test_the_word_count_is_the_number_of_words_the_pattern_finds(parts: list[str]) -> None:
    """The count on an ASCII text's shape (less the joined runs) is what the word pattern finds, joiners included.

    Also past ASCII: a text with a few such characters (each a letter, a digit or neither) and one with many, a
    lone surrogate among them (a broken text must be counted, not fail to encode).
    """
    text = "".join(parts)
    assert _word_count(text) == len(_WORD.findall(text))
