"""Names read as people write them: Unicode, scripts without spaces, glued and split forms, shorter forms, aliases."""

from __future__ import annotations

import logging
import math
from types import SimpleNamespace

import pytest

from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._query import QueryReader, QueryReading, SignatureCatalog
from chop_integrations._query.names import NameIndex
from chop_integrations._query.normal import normal, tokens

PHONES = [
    "Galaxy S10",
    "Galaxy S10 Lite",
    "Galaxy Note 10",
    "Galaxy Note 10+",
    "Galaxy A6",
    "Galaxy Z Flip",
    "Galaxy Z Fold",
    "Galaxy Tab A 8.0",
    "Galaxy Tab A 10.5",
    "Galaxy Tab S5e",
    "Galaxy Tab S6",
    "Galaxy S20+ 5G",
    "Galaxy S20 Ultra 5G",
]
VERSIONS = ["Python 3.10", "Python 3.11", "Python 3.12"]


def model(values: list[str], question: str, **options: object) -> str | None:
    return QueryReader(values, **options).read(question).model  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "expected", "mention"),
    [
        ("S10\u2011Lite battery", "Galaxy S10 Lite", "S10-Lite"),  # non-breaking hyphen
        ("S10\u2013Lite battery", "Galaxy S10 Lite", "S10-Lite"),  # en dash
        ("S10\u2014Lite battery", "Galaxy S10 Lite", "S10-Lite"),  # em dash
        ("S10\u2212Lite battery", "Galaxy S10 Lite", "S10-Lite"),  # minus sign
        ("S10\uff0dLite battery", "Galaxy S10 Lite", "S10-Lite"),  # full-width hyphen-minus
        ("S10\u00a0Lite battery", "Galaxy S10 Lite", "S10 Lite"),  # no-break space
        ("S10\u3000Lite battery", "Galaxy S10 Lite", "S10 Lite"),  # ideographic space
        ("Note 10\u200b+ pen", "Galaxy Note 10+", "Note 10+"),  # zero-width space
        ("Note 10\u00ad+ pen", "Galaxy Note 10+", "Note 10+"),  # soft hyphen
        ("Note\u200d10\ufeff+ pen", "Galaxy Note 10+", "Note10+"),  # zero-width joiner, byte-order mark
        ("\uff33\uff11\uff10 battery", "Galaxy S10", "S10"),  # full-width letters and digits
        ("Gal\u2060axy S10 battery", "Galaxy S10", "Galaxy S10"),  # word joiner inside a word
    ],
)
def test_unicode_dashes_spaces_and_format_characters_read_as_typed_ascii(
    question: str, expected: str, mention: str
) -> None:
    reading = QueryReader(PHONES).read(question)
    assert (reading.model, reading.mention) == (expected, mention)


def test_normal_text_and_tokens() -> None:
    assert normal("A\u2011B\u00a0C\u200bD") == "A-B CD"
    assert [t.text for t in tokens("我的S10怎么")] == ["我", "的", "s", "10", "怎", "么"]
    assert [t.text for t in tokens("v3.0 4.2.0 10.5 8.00 3.10")] == ["v", "3", "4.2", "10.5", "8", "3.10"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("我的S10怎么省电", "Galaxy S10"),
        ("S10の電池", "Galaxy S10"),
        ("갤럭시S10 배터리", "Galaxy S10"),
        ("我的S10 Lite怎么省电", "Galaxy S10 Lite"),
        ("我的S10e怎么省电", None),  # Latin glued to Latin still names another model
        ("我的S10和Note10", None),  # two models
    ],
)
def test_han_kana_and_hangul_words_are_boundaries_of_a_glued_mention(question: str, expected: str | None) -> None:
    assert model(PHONES, question) == expected


def test_names_written_in_han_are_found_inside_a_run_of_han() -> None:
    values = ["小米 13", "小米 14", "Galaxy S10", "Galaxy S20"]
    assert model(values, "我的小米13怎么省电") == "小米 13"
    assert model(values, "小米 14 的电池") == "小米 14"
    assert model(values, "小米14和小米13") is None  # two models
    assert model(values, "小米15") is None  # a member the store lacks
    assert model(["小米", "Galaxy S10"], "我的小米") is None  # a name of letters only is an ordinary word


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("ZFlip hinge", "Galaxy Z Flip"),
        ("GalaxyZFold hinge", "Galaxy Z Fold"),
        ("TabA8.0 screen", "Galaxy Tab A 8.0"),
        ("Tab A 8 screen", "Galaxy Tab A 8.0"),  # 8 and 8.0 are one number
        ("TabA10.5 screen", "Galaxy Tab A 10.5"),
        ("TabS5e screen", "Galaxy Tab S5e"),
        ("tabs5e screen", "Galaxy Tab S5e"),  # glued to the mention's number: the seam is clear
        ("GalaxyS10 battery", "Galaxy S10"),
        ("zflip hinge", None),  # two runs of letters glued without a sign of the seam
        ("Z Flip 3 hinge", None),  # a number after the name: another model
        ("ZFlip3 hinge", None),
        ("Z Fold v3 hinge", None),  # a filler and a number after the name: another model too
        ("ZFold version 3 hinge", None),
    ],
)
def test_glued_forms(question: str, expected: str | None) -> None:
    assert model(PHONES, question) == expected


def test_an_ordinary_word_is_no_glued_form_of_two_words() -> None:
    cars = ["Model 3", "Model S", "Model X"]
    assert model(cars, "How many models are there?") is None
    assert model(cars, "ModelS range") == "Model S"
    assert model(cars, "Set mode 3") is None  # ``mode`` is no abbreviation where the family word may not go
    assert model(cars, "model version 3 seats") == "Model 3"


@pytest.mark.parametrize(
    "question", ["XYv3 setup", "XY v3 setup", "XY version 3 setup", "XY ver 3 setup", "XY-3.0 setup", "XY 3.0 setup"]
)
def test_version_fillers_and_trailing_zeros(question: str) -> None:
    assert model(["XY 3", "Name 3.11", "QZ 7"], question) == "XY 3"


@pytest.mark.parametrize("question", ["XY 4 setup", "XY v4 setup", "XY 3.0.1 setup", "XY 3.1 setup", "XY 33 setup"])
def test_a_version_the_store_lacks_reads_nothing(question: str) -> None:
    assert model(["XY 3", "Name 3.11", "QZ 7"], question) is None


def test_a_filler_in_the_value_is_optional_in_the_question() -> None:
    assert model(["XY v3", "QZ 7"], "XY 3 setup") == "XY v3"
    assert model(["XY v3", "QZ 7"], "xy version 3 setup") == "XY v3"
    assert NameIndex(["XY v3", "QZ 7"]).exact("XY v3") == "XY v3"  # an LLM's answer spelled as the value


def test_a_name_glued_to_its_version() -> None:
    assert model(["Name 3.11", "XY 3"], "name3.11 release notes") == "Name 3.11"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is new in 3.11?", "Python 3.11"),
        ("What is new in v3.11?", "Python 3.11"),
        ("What is new in version 3.11?", "Python 3.11"),
        ("py 3.11 features", "Python 3.11"),
        ("Py3.11 features", "Python 3.11"),
        ("pyth-3.11 features", "Python 3.11"),
        ("python3.11 features", "Python 3.11"),
        ("What is new in 3?", None),  # a bare integer never names a member
        ("What is new in 3.11.2?", None),  # another version
        ("What is new in 3.13?", None),
        ("Compare 3.11 and 3.12", None),
    ],
)
def test_a_bare_dotted_version_names_a_member_when_all_values_share_one_family(
    question: str, expected: str | None
) -> None:
    assert model(VERSIONS, question) == expected


def test_a_bare_version_needs_one_family_and_the_member() -> None:
    assert model(["Python 3.10", "Python 3.12"], "What is new in 3.11?") is None  # the store lacks 3.11
    assert model([*VERSIONS, "Django 4.2"], "What is new in 3.11?") is None  # two families: 3.11 of which?
    assert model([*VERSIONS, "Django 4.2"], "Python 3.11 news") == "Python 3.11"


def test_an_abbreviation_must_be_unique_among_family_words() -> None:
    values = ["Python 3.11 Docs", "Python 3.12 Docs", "Pyramid 2 Guide", "Pyramid 3 Guide"]
    assert model(values, "py3.11 docs") is None  # ``py`` starts both family words
    assert model(values, "pyth3.11 docs") == "Python 3.11 Docs"
    assert model(values, "pyr2 guide") == "Pyramid 2 Guide"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Galaxy S20 Ultra battery", "Galaxy S20 Ultra 5G"),
        ("S20 Ultra battery", "Galaxy S20 Ultra 5G"),
        ("S20+ camera", "Galaxy S20+ 5G"),
        ("S20 Ultra 5G battery", "Galaxy S20 Ultra 5G"),
        ("S20 Ultra 4G battery", None),  # another number after the shortened form: another model
        ("S20 camera", None),
    ],
)
def test_a_trailing_qualifier_shared_by_several_values_may_be_left_out(question: str, expected: str | None) -> None:
    assert model(PHONES, question) == expected


def test_a_trailing_qualifier_is_kept_where_it_tells_values_apart_or_is_not_shared() -> None:
    both = ["Galaxy S20 Ultra", "Galaxy S20 Ultra 5G", "Galaxy S20+ 5G", "Galaxy S10"]
    assert model(both, "S20 Ultra battery") == "Galaxy S20 Ultra"
    assert model(both, "S20 Ultra 5G battery") == "Galaxy S20 Ultra 5G"
    assert model(both, "S20+ camera") is None  # 5G tells two known values apart: never left out
    assert model(["Galaxy S20 Ultra 5G", "Galaxy S10"], "S20 Ultra battery") is None  # one value: no qualifier
    assert model(["Galaxy S7 Active", "Galaxy S8 Active"], "S7 battery") is None  # letters only: no qualifier


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("my S10e battery", None),
        ("S30 battery", None),
        ("S10 Lite battery", "Galaxy S10 Lite"),
        ("S10\u2011e battery", "Galaxy S10"),  # a hyphen then a word: as with an ASCII hyphen
        ("Compare the S10 and the S20", None),
        ("What about the battery?", None),
    ],
)
def test_members_the_store_lacks_and_two_members_read_nothing(question: str, expected: str | None) -> None:
    assert model(["Galaxy S10", "Galaxy S10 Lite", "Galaxy S20"], question) == expected


def test_aliases_read_as_their_value() -> None:
    licences = ["Mozilla Public License 2.0", "Apache License 2.0", "GNU General Public License 3"]
    aliases = {"MPL 2.0": licences[0], "mozilla-2.0.txt": licences[0], "AL2": licences[1], "GPL-3": licences[2]}
    reader = QueryReader(licences, aliases=aliases)
    assert reader.read("Does MPL 2.0 allow it?") == QueryReading(licences[0], None, "MPL 2.0")
    assert reader.read("see mozilla-2.0.txt").model == licences[0]
    assert reader.read("the mpl-2.0 terms").model == licences[0]
    assert reader.read("What does AL2 say?").model == licences[1]
    assert reader.read("GPLv3 section 7").model == licences[2]
    assert reader.read("MPL 2.0 or GPL-3?").model is None  # two values
    assert reader.read("MPL 3.0 terms").model is None
    assert QueryReader(licences).read("Does MPL 2.0 allow it?").model is None  # no alias, no reading


def test_an_alias_two_values_claim_or_of_an_unknown_value_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    values = ["Galaxy S10", "Galaxy S20"]
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        reader = QueryReader(values, aliases={"SM-G97": "Galaxy S10", "sm g97": "Galaxy S20", "X9 Pro": "Galaxy S99"})
    assert reader.read("SM-G97 battery").model is None
    assert reader.read("X9 Pro battery").model is None
    assert "X9 Pro" in caplog.text and "ignored" in caplog.text
    assert QueryReader(values, aliases={"Galaxy S20": "Galaxy S10"}).read("Galaxy S20 camera").model == "Galaxy S20"


def test_from_catalog_passes_the_catalog_s_aliases() -> None:
    catalog = SimpleNamespace(
        models={"Galaxy S10": 3, "Galaxy S20": 2}, categories={}, aliases={"SM-G973": "Galaxy S10"}
    )
    assert QueryReader.from_catalog(catalog).read("SM-G973 battery").model == "Galaxy S10"  # type: ignore[arg-type]
    assert QueryReader.from_catalog(SignatureCatalog(["Galaxy S10"])).read("my S10").model is None  # no family


@pytest.mark.parametrize("models", ["Galaxy S10", b"Galaxy S10", 12, [1, "Galaxy S10"], ["Galaxy S10", None]])
def test_models_must_be_an_iterable_of_strings(models: object) -> None:
    with pytest.raises(ConfigurationError, match="models must"):
        QueryReader(models)  # type: ignore[arg-type]


def test_values_that_cannot_name_anything_are_ignored_with_a_reason(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        reader = QueryReader(["2", "X", "10.5", "Galaxy S10", "--"])
    assert reader.models == ["Galaxy S10"]
    assert "'10.5' is ignored: it is only a number" in caplog.text
    assert "'2' is ignored: it is one character" in caplog.text and "'--' is ignored" in caplog.text
    assert reader.read("My S10 has 2 SIM slots").model is None  # no family word with one value
    assert QueryReader(["2", "X"]).read("My X has 2 SIM slots") == QueryReading()


@pytest.mark.parametrize("question", [None, b"S10", 10, ["S10"]])
async def test_a_question_must_be_a_string(question: object) -> None:
    reader = QueryReader(PHONES)
    for read in (reader.read, reader.read_offline):
        with pytest.raises(InputError, match="question must be a string"):
            read(question)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="question must be a string"):
        await reader.aread(question)  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [math.nan, math.inf, -math.inf, -1, 0, "abc", True])
def test_timeout_must_be_none_or_a_finite_positive_number(timeout: object) -> None:
    with pytest.raises(
        ConfigurationError, match=r"timeout must be a number of seconds > 0 and <= 1e\+09 \(None: no limit\)"
    ):
        QueryReader(PHONES, timeout=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [None, 0.5, 30])
def test_valid_timeouts(timeout: float | None) -> None:
    QueryReader(PHONES, timeout=timeout)


def test_reading_work_grows_with_the_question_not_with_the_number_of_values() -> None:
    """A hostile store (many values sharing a first word) and growing questions: count trie steps, not time."""

    def steps(count: int, repeats: int) -> int:
        values = [f"Galaxy X{n}" for n in range(count)] + ["Galaxy Note 10", "Nimbus AC-12", "Python 3.11"]
        index = NameIndex(values)
        index.find("galaxy galaxy-x x12 Galaxy X1999, note galaxyx7 the Galaxy X 12 and 3.11 " * repeats)
        return index.steps

    small, large = steps(20, 200), steps(2000, 200)
    assert large <= 1.5 * small  # the number of values does not multiply the work
    longer = steps(2000, 400)
    assert 1.9 * large <= longer <= 2.1 * large  # linear in the question
    words = len(tokens("galaxy galaxy-x x12 Galaxy X1999, note galaxyx7 the Galaxy X 12 and 3.11 ")) * 400
    assert longer <= 12 * words  # bounded by the longest key per token
