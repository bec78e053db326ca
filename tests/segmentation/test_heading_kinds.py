"""The heading reader, kind by kind: what heads a section and what never does.

Every case is read three ways, which must agree: the document's heading outline (:class:`Headings`, CHOP's
section label), segmentation's ``Unit.heading`` (a unit that opens with a heading line) and LumberChunker's
``header_path``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations import LumberChunker
from chop_integrations._text.headings import Headings, HeadingStream, markdown_within
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.structure import fence_spans
from chop_integrations._text.tokens import default_counter

LONG_TITLE = "Added ``(?(DEFINE)...)`` to define named groups (Hg issue 152) for later use in one pattern"
BODY = "This paragraph is the body of the section and says what it is about in a full sentence."


def _titles(text: str) -> list[str]:
    """The innermost title of every heading the outline reads."""
    return [path[-1] for path in Headings(text).paths]


def _heading_units(text: str) -> list[str]:
    """The first line of every unit segmentation marks as opening with a heading."""
    units = split_units(text, max_tokens=200, token_counter=default_counter())
    return [unit.text.strip().splitlines()[0] for unit in units if unit.heading]


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("4. Conveying Verbatim Copies.", "4. Conveying Verbatim Copies."),
        ("4. Conveying Verbatim Copies", "4. Conveying Verbatim Copies"),
        ("2.1.6. Paketabhängigkeiten", "2.1.6. Paketabhängigkeiten"),
        ("2.1.6 Paketabhängigkeiten", "2.1.6 Paketabhängigkeiten"),
        ("A. HISTORY OF THE SOFTWARE", "A. HISTORY OF THE SOFTWARE"),
        ("B. TERMS AND CONDITIONS FOR ACCESSING OR OTHERWISE USING PYTHON", None),
        ("Kapitel 9. Systemtipps", "Kapitel 9. Systemtipps"),
        ("Kapitel 9.", "Kapitel 9."),
        ("第 9 章 系统技巧", "第 9 章 系统技巧"),
        ("(a) Scope of the licence", "(a) Scope of the licence"),
        ("v2.0.0", "v2.0.0"),
        ("Version 1.63.0 (2022-08-11)", "Version 1.63.0 (2022-08-11)"),
        ("1.7. Wie spricht man Debian aus und was bedeutet das?", None),
        ("1.3. OK, jetzt weiß ich, was Debian ist ... aber was ist Linux?!", None),
        ("3.1.8. Vom Standpunkt eines Systemverwalters her gesehen: Welche Distribution verlangt mehr?", None),
        ("2.1 如何安装软件包？", None),
        # a chapter's title may end with its own mark (the German maintainer's guide)
        ("Kapitel 1. Einstieg, aber richtig!", None),
        ("Chapter 3. Why Debian?", None),
        ("第 1 章 为什么选择 Debian？", None),
    ],
)
def test_plain_headings_that_stand_alone(heading: str, title: str | None) -> None:
    text = f"{BODY}\n\n{heading}\n\n{BODY}\n"
    assert _titles(text) == [title or heading]
    assert _heading_units(text) == [heading]


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Install\n=======\n\n", "Install"),
        ("Install\n-------\n\n", "Install"),
        ("Install\n~~~~~~~\n\n", "Install"),
        ("=======\nInstall\n=======\n\n", "Install"),
        ("## Install\n\n", "Install"),
        ("1.26.12 (2022-08-22)\n--------------------\n\n", "1.26.12 (2022-08-22)"),
        ("Version 1.63.0 (2022-08-11)\n===========================\n\n", "Version 1.63.0 (2022-08-11)"),
        ("## [1.2.0] - 2020-01-01\n\n", "[1.2.0] - 2020-01-01"),
        ("## Pydantic Logfire :fire:\n\n", "Pydantic Logfire"),
        (f"{LONG_TITLE}\n" + "^" * len(LONG_TITLE) + "\n\n", LONG_TITLE),
        ("filetype.py |Build Status| |PyPI|\n=================================\n\n", "filetype.py"),
        ("2. License Grants and Conditions\n--------------------------------\n\n", "2. License Grants and Conditions"),
        # a numbered question underlined as long as itself (reStructuredText), though it ends with its mark
        (
            "1. How do I ignore files like *.gitignore*?\n" + "+" * 43 + "\n\n",
            "1. How do I ignore files like *.gitignore*?",
        ),
        # a markdown heading of numbers alone: the mark makes it one (a year, a release)
        ("# 2024\n\n", "2024"),
        ("## 3.5 3.5\n\n", "3.5 3.5"),
        # reStructuredText's part title framed by ``#`` lines (Python's documentation, jedi's README)
        ("#" * 26 + "\nJedi - an autocompletion tool\n" + "#" * 26 + "\n\n", "Jedi - an autocompletion tool"),
    ],
)
def test_marked_headings(text: str, title: str) -> None:
    document = f"{text}{BODY}\n"
    assert _titles(document) == [title]
    units = split_units(document, max_tokens=200, token_counter=default_counter())
    assert units[0].heading and title in units[0].text  # the unit opens with the heading (its markup included)


@pytest.mark.parametrize(
    "text",
    [
        # a comment inside fenced code
        f"{BODY}\n\n```sh\n# Install the package\npip install x\n```\n\n{BODY}\n",
        # an indented example under a column-0 heading (the Debian Reference's layout), spaces or no-break spaces
        f"1.4.2. Anpassen der bash\n\n    {BODY}\n\n    # set CDPATH to a good one\n    CDPATH=.:/usr/share/doc\n",
        f"1.4.2. Anpassen der bash\n\n    {BODY}\n\n\xa0\xa0\xa0 # chvt 3\n\n    {BODY}\n",
        f"1.4.2. Anpassen der bash\n\n    {BODY}\n\n    Tipp\n\n    {BODY}\n",
        # a shell prompt
        f"1.4.2. Anpassen der bash\n\n{BODY}\n\n$ ls -l /dev/mapper\n\n{BODY}\n",
    ],
)
def test_code_examples_and_prompts_head_nothing(text: str) -> None:
    assert _titles(text) in ([], ["1.4.2. Anpassen der bash"])
    assert _heading_units(text) in ([], ["1.4.2. Anpassen der bash"])


def test_a_wrapped_line_is_the_middle_of_a_paragraph() -> None:
    text = (
        "b) The work must carry prominent notices stating that it is\n"
        "released under this License and any conditions added under section\n"
        "7. This requirement modifies the requirement in section 4 to\n"
        '"keep intact all notices".\n'
    )
    assert _titles(text) == []
    assert _heading_units(text) == []


def test_table_rows_and_prose_lists_head_nothing() -> None:
    table = "| Name | Size |\n|------|------|\n| zsh | 2436 |\n"
    assert _titles(f"{BODY}\n\n{table}\n{BODY}\n") == []
    assert _titles(f"{BODY}\n\n1 2 3\n-----\n\n{BODY}\n") == []  # underlined figures: no mark says heading
    loose_list = "1. Install the package\n\n2. Run the tool\n\n3. Read the output\n"
    # segmentation asks the outline: a loose numbered list of title-like items is what the outline reads it as
    assert _heading_units(f"{BODY}\n\n{loose_list}\n{BODY}\n") == _titles(f"{BODY}\n\n{loose_list}\n{BODY}\n")
    assert _titles("- Install the package\n- Run the tool\n") == []


def test_header_path_names_the_section_with_its_parents() -> None:
    text = (
        "2. Methodik\n\n" + f"{BODY}\n\n" + "A. Extraktor\n\n" + f"{BODY} " * 6 + "\n\n"
        "B. Kontinuität\n\n" + f"{BODY} " * 6 + "\n\n" + "3. Ergebnisse\n\n" + f"{BODY}\n"
    )
    chunks = LumberChunker(max_tokens=60).chunk(text)
    paths = {chunk.metadata["header_path"] for chunk in chunks}
    # never a neighbour's: B's chunks under 2., not under A.
    assert "/2. Methodik/A. Extraktor/B. Kontinuität/" not in paths
    assert "/2. Methodik/B. Kontinuität/" in paths
    assert "/2. Methodik/A. Extraktor/" in paths


_PIECES = st.lists(
    st.sampled_from(
        [
            "# Title\n",
            "## 1.2.0\n",
            "```\n",
            "~~~~\n",
            "    # comment\n",
            "\xa0\xa0\xa0 # comment\n",
            "2.1.6. Numbered\n",
            "A. Lettered\n",
            "Version 1.0.0 (2020-01-01)\n",
            "-----\n",
            "=====\n",
            "\n",
            f"{BODY}\n",
            "$ ls\n",
            "| a | b |\n",
            "Short Title\n",
            "wrapped line that runs on without any end of sentence here\n",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=_PIECES)
def test_no_heading_inside_fenced_code_and_offsets_are_exact(text: str) -> None:
    headings = Headings(text)
    fences = fence_spans(text)
    for offset, path in zip(headings.offsets, headings.paths, strict=True):
        assert not any(start <= offset < end for start, end in fences)  # code is never a heading
        line = text[offset:].splitlines()[0]
        assert (
            offset == 0
            or text[offset - 1] in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
            or text[text.rfind("\n", 0, offset) + 1 : offset].isspace()
        )  # a heading starts where its line's text does
        assert re.sub(r"\W", "", path[-1]) in re.sub(r"\W", "", line + text[offset:][len(line) :][:200])
    units = split_units(text, max_tokens=50, token_counter=default_counter()) if text else []
    assert "".join(unit.text for unit in units) == text  # lossless
    for unit in units:
        assert not (unit.heading and any(start < unit.start < end for start, end in fences))
    stream = HeadingStream(markdown=markdown_within(text))
    stream.feed(text)
    stream.finish()
    assert (stream.offsets, stream.paths) == (headings.offsets, headings.paths)  # the stream reads the same


def test_a_restructuredtext_link_in_a_title_is_its_text() -> None:
    text = f"Added K (`Hg issue 151 <https://example.org/151>`_)\n{'^' * 52}\n\n{BODY}\n"
    assert _titles(text) == ["Added K (Hg issue 151)"]


def test_a_line_over_80_characters_heads_only_with_an_underline_as_long() -> None:
    line = "A paragraph line of more than eighty characters that only sits above a short horizontal rule"
    assert _titles(f"Intro\n=====\n\n{BODY}\n\n{line}\n----\n\n{BODY}\n") == ["Intro"]


def test_six_hashes_are_an_atx_heading_not_an_underline() -> None:
    text = f"Intro\n=====\n\n{BODY}\nTrailing words\n######\n\n{BODY}\n"
    assert _titles(text) == ["Intro"]


def test_restructuredtext_underlines_of_any_common_punctuation() -> None:
    text = f"Usage\n-----\n\nInitialisation\n..............\n\n{BODY}\n\nColored Output\n..............\n\n{BODY}\n"
    assert Headings(text).paths == [("Usage",), ("Usage", "Initialisation"), ("Usage", "Colored Output")]


@pytest.mark.parametrize(
    "line", ["3. Is the light on?", "3. Is the light on?!", "Is the light on?", "IV. Go!", "A. Really?", "3. Go!"]
)
def test_a_question_heads_nothing_without_a_section_number_of_two_levels_or_a_chapter(line: str) -> None:
    text = f"{BODY}\n\n{line}\n\n{BODY}\n"
    assert _titles(text) == []
    assert _heading_units(text) == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("4.1. Auf welchen Hardware-Architekturen/Systemen läuft Debian GNU/", "Linux?"),
        ("4.4. In welchem Maße ist der Quellcode von Debian mit anderen", "Unix-Systemen kompatibel?"),
        ("3.1.6. Hier ist die Rede davon, dass Testing kaputt gehen kann.", "Was soll das heißen?"),
        ("3.1.11. Augenblicklich verwende ich Stable. Kann ich zu Testing oder Unstable", "wechseln? Und wenn, wie?"),
        ("3.1.12. I track testing. What happens when a new release comes out?", "Will I still track testing?"),
    ],
)
def test_a_numbered_question_wrapped_onto_a_second_line_is_one_title(first: str, second: str) -> None:
    text = f"{BODY}\n\n{first}\n{second}\n\n    {BODY}\n"
    assert _titles(text) == [f"{first} {second}"]
    stream = HeadingStream(markdown=markdown_within(text))
    for k in range(0, len(text), 23):
        stream.feed(text[k : k + 23])
    stream.finish()
    assert stream.paths == Headings(text).paths


@pytest.mark.parametrize(
    "text",
    [
        # a numbered list item's wrapped sentence, a plain number (a step), a question inside a paragraph
        "1.2. Open the menu and choose the option labelled\nNetwork.\n",
        "3. Open the menu and check whether the light next to the switch is\non?\n",
        "1.2. Open the menu and choose the option labelled\nNetwork? Then press the button.\nIt clicks.\n",
        "1.2. Open the menu and choose the option labelled\n- Network?\n",
    ],
)
def test_a_wrapped_sentence_of_a_numbered_item_is_no_question(text: str) -> None:
    titles = _titles(f"{BODY}\n\n{text}\n{BODY}\n")
    assert not [title for title in titles if "Network" in title or "on?" in title]
