"""The offline query reader on invented catalogs: what it reads, what it must refuse."""

from __future__ import annotations

import pytest

from chop_integrations._query import QueryReader, QueryReading
from chop_integrations._query.names import family_words

PHONES = [
    "Galaxy S10",
    "Galaxy S10 Lite",
    "Galaxy Note 10",
    "Galaxy Note 10+",
    "Galaxy A6",
    "Galaxy S2",
    "Galaxy Z Fold",
    "Galaxy Z Flip",
    "Galaxy Tab A 10.5",
    "Galaxy Fit",
    "Galaxy S20+ 5G",
]
APPLIANCES = ["Nimbus AC-12", "Nimbus AC-18", "Breeze 200", "225B", "X-SERIES"]
LAPTOPS = ["ThinkPad X1 Carbon Gen 9", "ThinkPad T14", "ThinkPad X13", "iPhone 13 Pro Max", "iPhone 13"]
CARS = ["Model 3", "Model S", "Model X", "Model Y"]


def model(values: list[str], question: str) -> str | None:
    return QueryReader(values).read(question).model


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How do I charge my Galaxy S10?", "Galaxy S10"),
        ("how do i charge my galaxy s10", "Galaxy S10"),
        ("galaxy-s10 battery", "Galaxy S10"),
        ("my S10 battery", "Galaxy S10"),
        ("Samsung S10: decline a call", "Galaxy S10"),
        ("GALAXY S10 case", "Galaxy S10"),
        ("S10 Lite battery", "Galaxy S10 Lite"),
        ("galaxy-s10-lite battery", "Galaxy S10 Lite"),
        ("Note10+ pen", "Galaxy Note 10+"),
        ("note 10 plus pen", "Galaxy Note 10+"),
        ("Note10 Plus pen", "Galaxy Note 10+"),
        ("galaxy-note-10+ pen", "Galaxy Note 10+"),
        ("my Note 10 pen", "Galaxy Note 10"),
        ("Note10 pen", "Galaxy Note 10"),
        ("Tab A10.5 screen", "Galaxy Tab A 10.5"),
        ("galaxy-tab-a-10.5 screen", "Galaxy Tab A 10.5"),
        ("s20 plus 5g camera", "Galaxy S20+ 5G"),
        ("Pair my Galaxy Fit with a phone", "Galaxy Fit"),
        ("Z Flip hinge care", "Galaxy Z Flip"),
    ],
)
def test_typed_mentions_read_as_the_known_value(question: str, expected: str) -> None:
    assert model(PHONES, question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "Galaxy A60 screen",  # A60 is not A6
        "S21 camera",  # S21 is not S2
        "my S10e battery",  # glued letters: another model
        "Z Fold 3 hinge",  # a version number after the name: another model
        "Z Fold-3 hinge",
        "S20 camera",  # S20 alone names neither S20+ 5G nor anything else
        "S2+ screen",  # a + glued after: another model
        "How do I set 2 alarms?",
        "Section 4 of the GPL",
        "Set a 6 digit PIN",  # a lone letter and a number are not the A6
        "Does it fit in a pocket?",  # an ordinary word is not the Galaxy Fit
        "Fit the strap first",  # nor a capitalised one
        "Pair my Fit with a phone",  # a one-word rest of letters is an ordinary word: never read offline
        "Compare the Note 10 and the S10",  # two models: ambiguous
        "10+ ways to save battery",  # a bare number (and +) is not the Note 10+
        "",
    ],
)
def test_questions_naming_no_single_known_value_read_nothing(question: str) -> None:
    reading = QueryReader(PHONES).read(question)
    assert reading == QueryReading() and not reading


@pytest.mark.parametrize(
    "question",
    ["Use the Python library", "Python compatibility", "Install requests first", "the numpy arrays"],
)
def test_a_one_word_name_of_letters_is_an_ordinary_word(question: str) -> None:
    reader = QueryReader(["Python", "Requests", "numpy", "click LICENSE txt", "Dataclasses JSON"])
    assert reader.read(question) == QueryReading()


def test_names_of_two_words_or_with_digits_are_still_read_beside_one_word_ones() -> None:
    reader = QueryReader(["Python", "Dataclasses JSON", "BM25S", "urllib3"])
    assert reader.read("Dataclasses JSON: encode a list").model == "Dataclasses JSON"
    assert reader.read("bm25s installation").model == "BM25S"
    assert reader.read("urllib3 retries").model == "urllib3"


def test_the_most_specific_value_wins_and_the_mention_is_the_question_s_words() -> None:
    reading = QueryReader(PHONES).read("Reset the galaxy-s10-lite now")
    assert reading.model == "Galaxy S10 Lite"
    assert reading.mention == "galaxy-s10-lite"
    assert reading.metadata_filter() == {"chop_model": "Galaxy S10 Lite"}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Clean the filter of the Nimbus AC-12", "Nimbus AC-12"),
        ("clean the filter of my ac12", "Nimbus AC-12"),  # family word read from the values, not built in
        ("AC 18 remote", "Nimbus AC-18"),
        ("Breeze 200 fan speed", "Breeze 200"),
        ("error E4 on the 225B", "225B"),
        ("error E4 on the 225b", "225B"),
        ("x-series warranty", "X-SERIES"),
        ("X series warranty", "X-SERIES"),
    ],
)
def test_appliances(question: str, expected: str) -> None:
    assert model(APPLIANCES, question) == expected


@pytest.mark.parametrize("question", ["The 1225B part", "error on the 225", "The 200 settings", "X seriesB cable"])
def test_appliances_refusals(question: str) -> None:
    assert model(APPLIANCES, question) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Battery life of the X1 Carbon Gen 9", "ThinkPad X1 Carbon Gen 9"),
        ("thinkpad t14 keyboard", "ThinkPad T14"),
        ("my T14 keyboard", "ThinkPad T14"),
        ("X13 docking", "ThinkPad X13"),
        ("iphone 13 pro max camera", "iPhone 13 Pro Max"),
        ("iPhone 13 camera", "iPhone 13"),
        ("13 Pro Max camera", "iPhone 13 Pro Max"),
    ],
)
def test_laptops_and_phones(question: str, expected: str) -> None:
    assert model(LAPTOPS, question) == expected


@pytest.mark.parametrize("question", ["I took 13 photos", "X1 Carbon battery", "the T1 keyboard"])
def test_laptops_and_phones_refusals(question: str) -> None:
    assert model(LAPTOPS, question) is None


def test_a_family_word_is_optional_only_where_the_rest_still_names_something() -> None:
    assert family_words(CARS) == {("model",)}
    assert model(CARS, "Charge the Model 3 at home") == "Model 3"
    assert model(CARS, "model-y seats") == "Model Y"
    for question in ("Charge 3 cars", "Is S better", "an X axis"):
        assert model(CARS, question) is None
    assert family_words(["Galaxy S10", "Pixel 7"]) == set()  # one value per leading word: no family
    assert model(["Galaxy S10", "Pixel 7"], "my S10") is None


def test_categories_are_read_only_when_asked() -> None:
    reader = QueryReader(APPLIANCES, ["air conditioner", "camera"], read_categories=True)
    reading = reader.read("Air conditioner AC-12: clean the filter")
    assert reading == QueryReading("Nimbus AC-12", "air conditioner", "AC-12")
    assert reading.metadata_filter() == {"chop_model": "Nimbus AC-12", "chop_category": "air conditioner"}
    assert QueryReader(APPLIANCES, ["camera"]).read("camera of the 225B").category is None


def test_values_that_normalise_alike_are_ambiguous() -> None:
    assert model(["Galaxy S10", "galaxy-s10"], "my galaxy s10") is None


def test_an_empty_catalog_reads_nothing() -> None:
    assert QueryReader().read("Galaxy S10 battery") == QueryReading()


def test_a_long_question_reads_in_proportion() -> None:
    question = "word " * 20_000 + "on my Note10+"
    assert model(PHONES, question) == "Galaxy Note 10+"


def test_a_value_named_in_full_beats_one_whose_family_word_was_left_out() -> None:
    values = ["Galaxy Tab S6", "Galaxy S6", "Galaxy A6"]
    assert model(values, "my Tab S6 screen") == "Galaxy Tab S6"
    assert model(values, "my S6 screen") == "Galaxy S6"
    assert model(["Tab S6", "Galaxy Tab S6", "Galaxy A6"], "my Tab S6") == "Tab S6"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Galaxy S9 Active: sound mode", None),  # Active follows a number in S7 Active: another model
        ("Galaxy S7 Active: sound mode", "Galaxy S7 Active"),
        ("OneDrive on the Galaxy Tab S7", None),  # Tab goes on into Tab S6: Tab S7 is another model
        ("OneDrive on the Tab S6", "Galaxy Tab S6"),
        ("Note 10 Lite pen", None),  # Lite makes S10 into S10 Lite
        ("Is there a S7 manual?", "Galaxy S7"),  # a one-letter word never joins a name
        ("Set 2 S9 alarms", "Galaxy S9"),
    ],
)
def test_a_mention_inside_a_longer_unknown_name_reads_nothing(question: str, expected: str | None) -> None:
    values = ["Galaxy S7", "Galaxy S7 Active", "Galaxy S9", "Galaxy Tab S6", "Galaxy Note 10", "Galaxy S10"]
    assert model([*values, "Galaxy S10 Lite"], question) == expected


def test_only_a_word_that_makes_one_known_name_another_is_a_variant() -> None:
    values = ["jinja2 LICENSE txt", "numpy", "numpy LICENSE txt", "common-licenses Apache-2.0", "common-licenses GPL-3"]
    assert model([*values, "Model 3"], "Model 3 LICENSE terms") == "Model 3"  # LICENSE follows a number, no variant
    assert model(values, "Grant of Additional Permission in the numpy LICENSE") is None  # it goes on into another
    assert model(values, "numpy license notes") is None
    assert model(values, "numpy for beginners") is None  # one word of letters: an ordinary word
    assert model(values, "Definitions in the Apache-2.0 licence") == "common-licenses Apache-2.0"  # a hyphened family
    assert model(["Galaxy S10 Lite", "Galaxy Note 10"], "Note 10 Lite pen") == "Galaxy Note 10"  # no S10 to vary
