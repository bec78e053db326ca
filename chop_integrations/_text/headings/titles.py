"""A heading's title: its words without markup, and whether they only name a document's type.

Shared by the document reader (:mod:`~chop_integrations._text.headings.outline`) and the stream's
:class:`~chop_integrations._text.headings.stream.HeadingStream`.
"""

from __future__ import annotations

import re

from .lines import LETTER, VERSION

__all__ = ["DOC_TYPES", "DOC_WORDS", "heading_title", "is_doc_words"]

#: Words that describe a document's type (or name a generic file), not the thing it is about.
DOC_WORDS = frozenset(
    """user users manual manuals guide guides handbook instructions instruction owner owners owner's quick start
    reference documentation docs doc contents table of the and for copy draft final version rev edition english
    en eng us uk de fr online pdf print full complete setup installation operating operation service
    readme license licence copying changelog changes history news notes index main contributing install authors
    todo untitled document file text""".split()
)
#: The words that make a line a document-type line (``User Manual``, ``Owner's Guide``), not a section (``Setup``).
DOC_TYPES = frozenset("manual manuals guide guides handbook instructions documentation reference".split())

#: Every word of :data:`DOC_TYPES` holds one of these (one pattern: a single look per line).
_TYPE_STEMS = re.compile("manual|guide|handbook|instructions|documentation|reference")
_NON_WORD = re.compile(r"[\W_]+")


def is_doc_words(line: str) -> bool:
    """True when ``line`` names a document's type: only :data:`DOC_WORDS`, one of them a type (``User Manual``)."""
    lower = line.lower()
    if _TYPE_STEMS.search(lower) is None:
        return False  # (most titles: no type word)
    tokens = [t for t in _NON_WORD.split(lower) if len(t) > 1]  # "Owner's" leaves a lone "s"
    return bool(tokens) and all(t in DOC_WORDS for t in tokens) and any(t in DOC_TYPES for t in tokens)


#: Markup a heading line may carry that is no part of its title: markdown images (badges) and link targets,
#: HTML tags (common ones only, so a placeholder such as ``<device name>`` stays), bare URLs, and wikitext ``==``
#: or emphasis wrapped around the whole line; each after the text it cannot match without (a cheap look first).
_MARKUP = (
    (("![",), re.compile(r"!\[[^\]]*\]\([^)]*\)"), " "),
    (("](",), re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (("`",), re.compile(r"`([^`<]*?)\s*<[^<>`]*>`__?"), r"\1"),  # reStructuredText's link: `text <target>`_
    (
        ("<",),
        re.compile(
            r"</?(?:h[1-6]|p|div|span|img|br|hr|a|b|i|em|strong|code|pre|sup|sub|center|picture|source|details|"
            r"summary|table|thead|tbody|tr|td|th|ul|ol|li)\b[^<>]*/?>",
            re.I,
        ),
        " ",
    ),
    (("://",), re.compile(r"\b(?:https?|ftp)://\S+"), " "),
    # reStructuredText's substitutions (badges: ``|PyPI|``) and GitHub's emoji codes (``:fire:``), each a word alone.
    (("|", ":"), re.compile(r"(?<!\S)(?:\|[^|\s][^|]*\||:[a-z0-9_+-]+:)(?!\S)"), " "),
    # A line wrapped whole in wikitext ``== History ==`` or markdown emphasis ``**Install**``: its words.
    (("=", "**", "__"), re.compile(r"^\s*(=+|\*\*|__)\s*(.*?)\s*\1\s*$"), r"\2"),
)

#: The first characters of the texts the patterns need.
_MARKS = frozenset(needle[0] for needles, _, _ in _MARKUP for needle in needles)


def heading_title(line: str, *, numbers: bool = False) -> str:
    """A heading line's title without markup (badges, links' targets, HTML tags, URLs, emoji codes); ``""`` if no word.

    ``# Thread-pool Controls [![Build Status](https://...)](https://...)`` -> ``Thread-pool Controls``;
    ``<h1 align="center">`` -> ``""`` (not a heading: a README's logo block); ``== History ==`` -> ``History``.
    With ``numbers`` (a line marked as a heading, ``# 2024``), a title of numbers counts too: the mark says it is
    one, where an underlined row of figures may be a table's.
    """
    if not _MARKS.isdisjoint(line):  # (most lines: none of the marks the patterns need)
        for needles, pattern, replacement in _MARKUP:
            if any(needle in line for needle in needles):
                line = pattern.sub(replacement, line)
    title = " ".join(line.split())
    if LETTER.search(title) or VERSION.match(title) or (numbers and any(c.isdigit() for c in title)):
        return title
    return ""
