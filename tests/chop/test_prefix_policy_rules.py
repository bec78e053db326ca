"""PrefixPolicy rule by rule: which fields a run keeps and why, the section path it prints, repeated titles."""

from __future__ import annotations

import pytest

from chop_integrations._chop.prefix import ADAPTIVE, PrefixChoice, PrefixPolicy
from chop_integrations._errors import ConfigurationError
from chop_integrations._types import CNM

ALL = PrefixChoice(ADAPTIVE, ("category", "model", "nouns"))
NAMED = PrefixChoice(ADAPTIVE, ("model", "nouns"))


def sig(*nouns: str, model: str | None = "Requests", category: str | None = "Air Conditioner") -> CNM:
    return CNM(category=category, nouns=list(nouns), model=model)


# -- choose and describe ---------------------------------------------------------------------------------------


def test_a_run_with_names_sections_and_two_categories_keeps_every_field() -> None:
    docs = [CNM(category="kettle", model="K1"), CNM(category="fridge", model="F2")]
    choice = PrefixPolicy().choose(docs, [None, sig("Setup"), CNM()])
    assert choice == PrefixChoice(
        ADAPTIVE, ("category", "model", "nouns"), (("category", "kept"), ("model", "kept"), ("nouns", "kept"))
    )
    assert choice.describe() == "adaptive: category, model, nouns"


def test_one_category_is_dropped_with_its_reason() -> None:
    choice = PrefixPolicy().choose([CNM(category="kettle", model="K1")], [sig("Setup")])
    assert choice.fields == ("model", "nouns")
    assert choice.describe() == "adaptive: model, nouns (category dropped: one value among the categories seen)"


def test_without_sections_nouns_are_dropped() -> None:
    choice = PrefixPolicy().choose([CNM(model="K1")], [CNM(model="K1"), None])
    assert choice.describe() == (
        "adaptive: model (category dropped: no categories found; nouns dropped: no sections found)"
    )


def test_without_names_nothing_is_kept_and_each_reason_is_said() -> None:
    choice = PrefixPolicy().choose([CNM(category="kettle"), None], [sig("Setup", model=None)])
    assert choice.fields == ()
    assert choice.describe() == (
        "adaptive: nothing (category dropped: one value among the categories seen; model dropped: no document names "
        "found; nouns dropped: no document name to print it beside)"
    )


def test_fixed_and_templates_keep_the_fields_they_name() -> None:
    assert PrefixPolicy("fixed").choose([], []) == PrefixChoice("fixed", ("category", "model", "nouns"))
    assert PrefixPolicy("fixed").prefix == "fixed"
    assert PrefixPolicy("[{nouns}] ").choose([], []) == PrefixChoice("template", ("nouns",))
    assert PrefixPolicy("[{nouns}] ").render(sig("Setup"), ALL) == "[Setup] "


def test_a_prefix_that_is_not_a_str_is_refused() -> None:
    with pytest.raises(ConfigurationError) as caught:
        PrefixPolicy(3)  # type: ignore[arg-type]
    assert str(caught.value) == "prefix must be 'adaptive', 'fixed' or a template str, got 3"


def test_only_a_named_document_carries_its_name() -> None:
    assert PrefixPolicy().carries_name([None, "", ".", "Requests", "E.G."]) == [False, False, False, True, True]
    assert PrefixPolicy("fixed").carries_name([None, ""]) == [True, True]


# -- render ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("memo", [True, False])
def test_render_prints_the_innermost_heading_beside_the_name(memo: bool) -> None:
    policy = PrefixPolicy()
    assert policy.render(sig("Guide", "Setup"), ALL, memo=memo) == "Requests: [Air Conditioner | Setup | Requests] "
    assert policy.render(sig("Guide", "Usage"), ALL, memo=memo) == "Requests: [Air Conditioner | Usage | Requests] "
    assert policy.render(sig("Guide", "Setup"), NAMED, memo=memo) == "Requests: [Setup | Requests] "
    assert policy.render(sig("Setup"), NAMED, memo=memo) == "Requests: [Setup | Requests] "
    assert policy.render(sig("Requests"), NAMED, memo=memo) == "Requests: [Requests] "  # the name again: no section
    assert policy.render(sig("-"), NAMED, memo=memo) == "Requests: [Requests] "  # no letter: no section
    assert policy.render(None, ALL, memo=memo) == ""
    assert policy.render(sig("Setup", model=None), ALL, memo=memo) == "[Air Conditioner] "  # no name: no section


def test_a_choice_without_the_name_prints_no_name_and_no_section() -> None:
    category_only = PrefixChoice(ADAPTIVE, ("category",))
    assert PrefixPolicy().render(sig("Guide", "Setup"), category_only) == "[Air Conditioner] "
    assert PrefixPolicy().render(sig("Setup"), PrefixChoice(ADAPTIVE, ("category", "model"))) == (
        "Requests: [Air Conditioner | Requests] "
    )


def test_the_path_separator_never_comes_from_a_value() -> None:
    assert PrefixPolicy().render(sig("A>B", model="X>Y"), NAMED) == "X Y: [A B | X Y] "


@pytest.mark.parametrize(
    ("nouns", "alone", "repeated"),
    [
        (("Usage", "Examples"), "Examples", "Usage > Examples"),
        (("Version 1.63.0 (2022-08-11)", "Bug fixes"), "Version 1.63.0 (2022-08-11) > Bug fixes", None),  # a version
        (("Kapitel 9. Systemtipps", "Beispiele"), "Kapitel 9. Systemtipps > Beispiele", None),  # a number above
        (("9. Systemtipps", "9.2. Tipps"), "9.2. Tipps", "9. Systemtipps > 9.2. Tipps"),  # numbered itself
        (("v2.0", "v2.1"), "v2.0 > v2.1", None),
        (("Requests", "Examples"), "Examples", "Examples"),  # a parent that is the name tells nothing
    ],
)
def test_a_parent_is_printed_where_it_tells_the_section_apart(
    nouns: tuple[str, str], alone: str, repeated: str | None
) -> None:
    for memo in (True, False):
        policy = PrefixPolicy()
        assert policy.render(sig(*nouns), NAMED, memo=memo) == f"Requests: [{alone} | Requests] "
        assert policy.render(sig(*nouns), NAMED, True, memo=memo) == f"Requests: [{repeated or alone} | Requests] "
        assert policy.render(sig(*nouns), NAMED, memo=memo) == f"Requests: [{alone} | Requests] "  # not remembered
    choice = PrefixChoice(ADAPTIVE, ("model",))  # no section printed: nothing repeated to tell apart
    assert PrefixPolicy().render(sig(*nouns), choice, True) == "Requests: [Requests] "


# -- repeats -----------------------------------------------------------------------------------------------------


def test_a_title_repeats_under_another_parent_only_after_its_first_parent() -> None:
    policy, seen = PrefixPolicy(), {}  # type: ignore[var-annotated]
    answers = [
        policy.repeats(sig(parent, own), seen)
        for parent, own in [
            ("Usage", "Examples"),  # first: keeps the title alone
            ("API", "Examples"),  # another parent: repeated
            ("API", "Examples"),
            ("usage", "EXAMPLES"),  # the first parent again (by spelling): not
            ("Requests", "Examples"),  # a parent that only repeats the name: not
            ("v1.2", "Notes"),  # a version tells apart anyway: not
            ("Other", "Notes"),
            ("9. A", "Tipps"),  # a number above an unnumbered title: printed anyway, not
            ("B", "Tipps"),
            ("C", "9.2 Tipps"),  # a numbered title tells itself apart
            ("D", "9.2 Tipps"),
            ("X", "Setup"),
            ("-", "Setup"),  # a parent with no letter is no parent
            ("Y", "Setup"),
        ]
    ]
    assert answers == [False, True, True, False, False, False, False, False, False, False, False, False, False, True]
    assert seen == {("examples",): "usage", ("notes",): "other", ("tipps",): "b", ("setup",): "x"}


def test_no_repeat_without_a_name_a_parent_or_a_signature() -> None:
    policy = PrefixPolicy()
    assert policy.repeats(None, {}) is False
    assert policy.repeats(sig("Usage", "Examples", model=None), {("examples",): "api"}) is False
    assert policy.repeats(sig("Examples"), {("examples",): "api"}) is False
    assert policy.repeats(sig("-", "Examples"), {("examples",): "api"}) is False
    assert policy.repeats(sig("!!", "Examples"), {("examples",): "api"}) is False  # a parent without a letter
    assert policy.repeats(sig("Usage", "Examples", model="Usage"), {("examples",): "api"}) is False
    assert policy.repeats(sig("Usage", "Examples"), {("examples",): "api"}) is True
