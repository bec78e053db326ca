"""Where a document's name comes from: the caller, a readable file name, the document's own title block.

Each case is a shape people give documents, never one family's words: underlined and overlined titles, a title
over a ``Version N`` line, a title that gives only a version and a sentence under it that names it, a cover, and
file names that are codes, counters, slugs or carry language and type tails.
"""

from __future__ import annotations

import pytest

from chop_integrations._deciders import DocContext
from chop_integrations._offline.naming import DocumentName, document_name, file_name, title_block
from chop_integrations._offline.signature import document_identity, same_name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "=======================\nQuill 4.2.1 release notes\n=======================\n\n*May 3*\n\nText.",
            "Quill 4.2.1",
        ),
        ("Quill 1.21.0 Release Notes\n==========================\n\nThe release.", "Quill 1.21.0"),
        ("   Open Widget License\n   Version 2.0, January 2004\n\n TERMS", "Open Widget License 2.0"),
        ("Quill Suite\nVersion 3\n\nThis guide covers", "Quill Suite 3"),
        ("ACME\nQuill X200\nUser Manual\n\nContents", "Quill X200"),
        ("# Quill\n\n[![badge](x)](y)\n\nText.", "Quill"),
        ('<p align="center">\n<img src=x>\n</p>\n\nQuill Board\n===========\n\nText', "Quill Board"),
        (
            "What's new in 1.4.2 (April 2, 2022)\n------\n\nThese are the changes in quill 1.4.2. See the log.",
            "quill 1.4.2",
        ),
        ("3.0.1\n-----\n\nThis release of Quill 3.0.1 fixes a crash.", "Quill 3.0.1"),
        # no confident name: a part of a document, a version with nothing naming it, a sentence, plain text
        ("Introduction\n============\n\ntext", None),
        ("What's new in 1.5.0\n-----\n\nIn 1.5.0 we changed the parser.", None),
        ("10.0.0\n------\n\nBackwards incompatible changes", None),
        ("Installation\n\nMount the unit on a solid wall.", None),
        ("", None),
    ],
)
def test_title_block(text: str, name: str | None) -> None:
    assert title_block(text) == name


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("AB-C123D_UM_EU_Eng.pdf", ("AB-C123D", True)),  # a lone code, once its tails are gone
        ("X100 User Manual.pdf", ("X100", True)),
        ("quill-x200-user-manual", ("quill x200", False)),
        ("quill-v1.4.2-whatsnew.txt", ("quill v1.4.2", False)),
        ("quill_4.2.1_release_notes.txt", ("quill 4.2.1", False)),
        ("doc_07.txt", (None, False)),
        ("lic_03.txt", (None, False)),
        ("report_2023_final.docx", ("report 2023", False)),
    ],
)
def test_file_name(source: str, expected: tuple[str | None, bool]) -> None:
    assert file_name(source) == expected


def _doc(text: str, **metadata: str) -> DocContext:
    return DocContext(doc_id="d", text=text, metadata=dict(metadata))


NOTES = "Quill 4.2.1 release notes\n=========================\n\nText.\n"
LICENCE = "Open Widget Public License Version 2.0\n====================================\n\n1. Definitions\n"


def test_the_order_of_trust_and_the_aliases() -> None:
    assert document_name(_doc(NOTES, model="QL-421")) == DocumentName("QL-421", "model", ("Quill 4.2.1",))
    assert document_name(_doc(NOTES, title="Quill notes, May")) == DocumentName(
        "Quill notes, May", "title", ("Quill 4.2.1",)
    )
    assert document_name(_doc(NOTES, source="quill-4.2.1-notes.txt")).source == "file"
    assert document_name(_doc(NOTES, source="doc_07.txt")) == DocumentName("Quill 4.2.1", "text", ())
    coded = document_name(_doc(NOTES, source="QL-421_EN.pdf"))  # a lone code ranks below the document's title
    assert coded == DocumentName("Quill 4.2.1", "text", ("QL-421",))
    licence = document_name(_doc(LICENCE, source="lic_03.txt"))
    assert licence.value == "Open Widget Public License Version 2.0" and "OWPL 2.0" in licence.aliases
    assert document_name(_doc("Plain text.\n", source="3f9a0c17d2e4b6a8.txt")) == DocumentName()


def test_nine_counters_never_share_a_name() -> None:
    names = {document_identity(_doc("Plain text.\n", source=f"lic_{n:02d}.txt")) for n in range(1, 10)}
    assert names == {None}


def test_the_document_spells_the_name() -> None:
    text = "What's new in 1.4.2\n---\n\nThese are the changes in quill 1.4.2.\n"
    assert document_identity(_doc(text, source="quill-v1.4.2-whatsnew.txt")) == "quill 1.4.2"
    assert same_name("quill v1.4.2", ["Quill 1.4.2"]) == "Quill 1.4.2"
    assert same_name("Dev 2", ["D 2"]) == "Dev 2"  # a word ending in v is no version mark


@pytest.mark.parametrize("title", ["What is this?", "Read me first!", "Notes, drafts;", "🦛 Why Quill? ✨"])
def test_a_title_that_is_a_sentence_or_a_question_names_nothing(title: str) -> None:
    assert title_block(f"|badge|\n\n{title}\n{'~' * len(title)}\n\nText.\n") is None
