"""The families' questions: what a question asks (a topic and its gold span) and the three ways it names the member.

A *topic* is made from one member's text, mechanically (:func:`topics_of`):

- a heading of :func:`~.general.sections_of` (the general sets' reader) whose section has at least
  :data:`~.general.MIN_BODY_WORDS` words of body, whose cleaned title has three letters and holds no version
  (the document's own title, ``"Django 3.2.4 release notes"``, names the member, so it is no topic), and that is
  not repeated within the document; at most :data:`MAX_PER_MEMBER`, spread evenly as the general sets do;
- when those are fewer than :data:`MAX_PER_MEMBER` (a patch release's notes often have one short section), the
  first sentence of other sections' bodies: reST roles and inline literals unwrapped, list markers dropped, cut
  to :data:`SENTENCE_WORDS` words, kept when it has at least five words and no three-part version (a sentence that
  names a release would name a member, or one the store lacks).

Gold = the member's document and the section's span (the heading to the next heading, trailing whitespace dropped).
Most topics are the same in every member (``Bugfixes``, ``Contributors``): only the name tells the members apart,
which is what the families measure.

Each topic gives three questions, ids ``<document>#<n>-<form>`` (:data:`FORMS`):

- ``exact``: ``"<topic> in <name>"``, the member named as its document's title writes it (``Django 3.2.4``;
  pandas' titles write the bare version, ``What's new in 1.4.2``, so ``1.4.2``);
- ``typed``: the member as people type it, one of six typings of (family word, version) chosen by
  ``SHA-256(<family>:<version>#<n>) // 2 % 6`` (:func:`typed_name`; the same in both layouts); the rule knows
  no family;
- ``absent``: the exact form naming a member the store lacks (:func:`absent_version`: the member's series, one
  patch beyond the highest the store holds of it). Gold stays the original document: a reader must read no member
  here, so ``chop+query`` must equal ``chop``.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .corpus import Query
from .general import MIN_BODY_WORDS, sections_of
from .metrics import Gold
from .splits import FORMS, Form

__all__ = [
    "FORMS",
    "MAX_PER_MEMBER",
    "SENTENCE_WORDS",
    "Form",
    "Topic",
    "absent_version",
    "first_sentence",
    "questions_of",
    "topics_of",
    "typed_name",
]

#: At most this many topics per member (a family has 20 to 30 members; two each keep a run within minutes).
MAX_PER_MEMBER = 2
#: A sentence topic is cut to this many words.
SENTENCE_WORDS = 16
_VERSION = re.compile(r"\d+\.\d+\.\d+")
_DOTTED = re.compile(r"\d+(?:\.\d+)+")
_ROLE = re.compile(r":[\w:.-]+:`~?\.?([^`<]*?)\s*(?:<[^>]*>)?`")
_LITERAL = re.compile(r"``([^`]*)``")
_TICKET = re.compile(r"\s*\(:?(?:ticket|issue|gh|pr)\b[^)]*\)", re.IGNORECASE)


@dataclass(frozen=True)
class Topic:
    """What a question asks: its words and the gold span ``[start, end)`` of the member's document."""

    text: str
    start: int
    end: int


def first_sentence(body: str) -> str:
    """The first sentence of a section's body, reST markup unwrapped, cut to :data:`SENTENCE_WORDS` words ("" if none).

    Directive lines (``.. x::``), template lines (``{{ header }}``), lines of one punctuation character and
    lines in italics only (a date: ``*July 3, 2023*``) are skipped.
    """
    lines: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if lines and not stripped:
            break
        if not stripped or stripped.startswith((".. ", "{{")) or len(set(stripped)) == 1:
            continue
        if stripped.startswith("*") and stripped.endswith("*") and not stripped.startswith("* "):
            continue
        lines.append(re.sub(r"^[*-]\s+", "", stripped))
    text = _TICKET.sub("", " ".join(lines))
    text = _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text))
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".:")
    return " ".join(sentence.split()[:SENTENCE_WORDS])


def topics_of(text: str) -> list[Topic]:
    """A member's topics, headings first, then sentences (module docstring), at most :data:`MAX_PER_MEMBER`."""
    sections = sections_of(text)
    counts = Counter(s.title.lower() for s in sections)
    usable = [
        s
        for s in sections
        if s.body_words >= MIN_BODY_WORDS
        and counts[s.title.lower()] == 1
        and sum(c.isalpha() for c in s.title) >= 3
        and not _VERSION.search(s.title)
    ]
    if len(usable) > MAX_PER_MEMBER:
        step = (len(usable) - 1) / (MAX_PER_MEMBER - 1)
        usable = [usable[round(i * step)] for i in range(MAX_PER_MEMBER)]
    topics = [Topic(s.title, s.start, s.end) for s in usable]
    for section in sections:
        if len(topics) >= MAX_PER_MEMBER:
            break
        if section in usable:
            continue
        sentence = first_sentence(text[section.heading.body_start : max(section.end, section.heading.body_start)])
        if len(sentence.split()) >= 5 and not _VERSION.search(sentence):
            topics.append(Topic(sentence, section.start, section.end))
    return topics


def absent_version(version: str, members: Sequence[str]) -> str:
    """A version the store lacks: ``version``'s series with one patch beyond the highest member of that series.

    ``3.2.5`` among ``3.2.1`` .. ``3.2.23`` gives ``3.2.24``; a version of one part gets ``.1`` beyond the highest.
    """
    series, _, _ = version.rpartition(".")
    if not series:
        return f"{max(int(m) for m in members if m.isdigit())}.1"
    patches = [int(m.rpartition(".")[2]) for m in members if m.rpartition(".")[0] == series]
    return f"{series}.{max(patches) + 1}"


def typed_name(word: str, version: str, k: int) -> tuple[str, bool]:
    """The ``k``-th typing of a member (family ``word``, ``version``) and whether the whole question is lower-cased.

    ====  ==========================================  ==================
    k     typing                                      Django 3.2.4 as
    ====  ==========================================  ==================
    0     lower case (the whole question too)         ``django 3.2.4``
    1     word and version glued, lower case          ``django3.2.4``
    2     ``v`` before the version                    ``Django v3.2.4``
    3     a hyphen between                            ``Django-3.2.4``
    4     the version alone (a dotted version only)   ``3.2.4``
    5     lower case, ``version`` between             ``django version 3.2.4``
    ====  ==========================================  ==================

    A version that is not dotted numbers (``2024``, ``Jammy``) is never typed alone: ``k == 4`` falls back to 0.
    """
    bare = version.removeprefix("v")
    if k == 4 and not _DOTTED.fullmatch(bare):
        k = 0
    forms = (
        f"{word} {bare}".lower(),
        f"{word}{bare}".lower(),
        f"{word} v{bare}",
        f"{word}-{bare}",
        bare,
        f"{word} version {bare}".lower(),
    )
    return forms[k], k == 0


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def questions_of(
    doc: str,
    topics: Sequence[Topic],
    *,
    family: str,
    word: str,
    version: str,
    exact_name: str,
    absent_name: str,
) -> list[list[Query]]:
    """The three questions of each topic of one member, ``[[exact, typed, absent], ...]`` in topic order.

    Args:
        doc: The member's document name in this layout (the gold document, and the ids' stem).
        topics: The member's topics (:func:`topics_of`).
        family: The family's key (``django``): with the version and the topic's number it picks the typing.
        word: The family's word (``Django``), for the typed form.
        version: The member (``3.2.4``).
        exact_name: The member as its title writes it (``Django 3.2.4``).
        absent_name: A member the store lacks, written the same way (``Django 3.2.24``).
    """
    out = []
    for number, topic in enumerate(topics):
        base = f"{doc}#{number}"
        gold = Gold(doc, topic.start, topic.end)
        typed, lower = typed_name(word, version, _digest(f"{family}:{version}#{number}") // 2 % 6)
        typed_text = f"{topic.text} in {typed}"
        out.append(
            [
                Query(f"{base}-exact", f"{topic.text} in {exact_name}", gold),
                Query(f"{base}-typed", typed_text.lower() if lower else typed_text, gold),
                Query(f"{base}-absent", f"{topic.text} in {absent_name}", gold),
            ]
        )
    return out
