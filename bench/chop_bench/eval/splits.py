"""The fixed split of the dev questions into a tuning half and a held-out half.

Fixed on 2026-11-30, before any tuning against the fair baselines, and never to be
changed: a question is held out when the SHA-256 of its ``qid`` is odd. On
``queries-dev.jsonl`` that holds out 173 of 320 questions and leaves 147 to tune on. Every
constant chosen by looking at the manuals names the split it was chosen on ("tune"); the
held-out figures are reported beside it and never used to choose anything.

The general-documents set (:mod:`.general`) is reported by question *style* instead: ``plain``
questions give only a section's heading, ``named`` ones also name the document (ids end in
``-plain`` / ``-named``). A prefix that prints the document's name helps the second kind and can
cost the first; a reader sees both (:data:`STYLES`, :func:`in_view`). The multilingual sets are also reported per
language (:data:`LANGS`: the document name in the id says it, ``debian-reference.de#02#3-plain`` is ``"de"``).
The families (:mod:`.families`) are reported per question *form* (:data:`FORMS`: ids end in ``-exact``, ``-typed``,
``-absent``): how the question names the member of the family, and whether the store holds it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal, TypeVar

__all__ = [
    "FORMS",
    "LANGS",
    "SPLITS",
    "STYLES",
    "Form",
    "Lang",
    "Split",
    "Style",
    "View",
    "form_of",
    "in_split",
    "in_view",
    "lang_of",
    "split_of",
    "style_of",
]

Split = Literal["tune", "heldout", "all"]
SPLITS: tuple[Split, ...] = ("tune", "heldout", "all")
Style = Literal["plain", "named"]
#: The general set's question styles, each reported beside ``all``.
STYLES: tuple[Style, ...] = ("plain", "named")
Lang = Literal["de", "zh"]
#: The multilingual sets' languages, each reported beside the styles and ``all``.
LANGS: tuple[Lang, ...] = ("de", "zh")
Form = Literal["exact", "typed", "absent"]
#: The families' question forms, each reported beside ``all``.
FORMS: tuple[Form, ...] = ("exact", "typed", "absent")
#: A subset of a suite's questions that the report gives its own table: a split, a style, a language or a form.
View = Split | Style | Lang | Form

_Q = TypeVar("_Q")


def split_of(qid: str) -> Literal["tune", "heldout"]:
    """The half a question belongs to: ``"heldout"`` when SHA-256(qid) is odd, else ``"tune"``."""
    return "heldout" if int(hashlib.sha256(qid.encode("utf-8")).hexdigest(), 16) % 2 else "tune"


def style_of(qid: str) -> Style | None:
    """A general-set question's style from its id (``"requests_README#3-plain"`` is ``"plain"``), else None."""
    for style in STYLES:
        if qid.endswith(f"-{style}"):
            return style
    return None


def form_of(qid: str) -> Form | None:
    """A family question's form from its id (``"doc_07#1-typed"`` is ``"typed"``), else None."""
    for form in FORMS:
        if qid.endswith(f"-{form}"):
            return form
    return None


def lang_of(qid: str) -> Lang | None:
    """A multilingual question's language from its document's name (``.de#`` German, ``.zh-cn#`` Chinese), else None."""
    if ".de#" in qid:
        return "de"
    if ".zh-cn#" in qid:
        return "zh"
    return None


def in_view(qid: str, view: View) -> bool:
    """Whether the question ``qid`` belongs to ``view`` (``"all"`` holds every question)."""
    if view == "all":
        return True
    if view in STYLES:
        return style_of(qid) == view
    if view in LANGS:
        return lang_of(qid) == view
    if view in FORMS:
        return form_of(qid) == view
    return split_of(qid) == view


def in_split(queries: Iterable[_Q], split: Split, *, qid: str = "qid") -> list[_Q]:
    """The queries of one split (``"all"`` keeps every one); ``qid`` names the id attribute."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    return [q for q in queries if in_view(str(getattr(q, qid)), split)]
