"""What a CHOP signature may say: the document's identity, checked names, and the heading path.

A signature is right or empty. The model slot names the *document* (what tells near-identical
documents apart), so it comes, first match wins, from

1. what the caller gives: ``metadata["model"]`` as it is, else ``title``, ``file_name``,
   ``file_path`` or ``source`` (LangChain and LlamaIndex put these), cleaned;
2. a confident title on the document's cover: a name line printed just above a
   document-type line (``Acme X-200`` above ``User Manual``) or a markdown title (``# Name``) opening
   the text;

and a value that is not a plausible name (:func:`plausible_name`: an id, a hash, a bare number,
a lone code such as ``"E21"`` or ``"IP68"``, a phone number, a citation, a generic file name)
never fills it. The same check applies to an LLM's answer. The nouns are the heading path of
the section a chunk opens in (:class:`Headings`). Nothing here names a product or brand.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Sequence
from pathlib import PurePosixPath, PureWindowsPath
from typing import NamedTuple

from ..deciders import DocContext
from ..text.segmentation import _LETTER, MAX_HEADING_CHARS, is_heading_line
from ..text.structure import FenceState

__all__ = [
    "IDENTITY_KEYS",
    "HeadingLevels",
    "Headings",
    "adornment",
    "caller_identity",
    "clean_file_stem",
    "cover_identity",
    "document_identity",
    "has_marked_headings",
    "heading_title",
    "is_doc_words",
    "is_indented",
    "marked_heading",
    "named_on_cover",
    "plausible_name",
    "same_name",
    "section_title",
]

#: Metadata keys that name a document, in the order they are trusted (``title`` first).
IDENTITY_KEYS = ("title", "file_name", "filename", "file_path", "source")

# Words that describe a document's type (or name a generic file), not the thing it is about.
DOC_WORDS = frozenset(
    """user users manual manuals guide guides handbook instructions instruction owner owners owner's quick start
    reference documentation docs doc contents table of the and for copy draft final version rev edition english
    en eng us uk de fr online pdf print full complete setup installation operating operation service
    readme license licence copying changelog changes history news notes index main contributing install authors
    todo untitled document file text""".split()
)
#: The words that make a line a document-type line (``User Manual``, ``Owner's Guide``), not a section (``Setup``).
DOC_TYPES = frozenset("manual manuals guide guides handbook instructions documentation reference".split())
_EXTENSIONS = re.compile(r"(?:\.(?:txt|md|markdown|rst|pdf|html?|docx?|odt|rtf|json|xml|csv|epub))+$", re.I)
_VERSION_TAIL = re.compile(r"(?:[\s_-]+(?:v\d+(?:\.\d+)*|\d{4}-\d{2}(?:-\d{2})?|\d{8}|copy|final|draft))+$", re.I)
_GENERIC_ID = re.compile(
    r"^(?:doc|docs|document|file|untitled|scan|img|image|page|chunk|item|id|record|part|node|section|text|tmp)"
    r"[\W_]*\d*$",
    re.I,
)
_HEX = re.compile(r"^[0-9a-f]{8,}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
#: Dotted or dashed numbers: versions, dates, arXiv ids (``2.3.1``, ``2023-10-01``, ``1706.03762v7``).
_DOTTED_NUMBER = re.compile(r"^v?\d+(?:[.-]\d+)+(?:v\d+)?$", re.I)
_PHONE = re.compile(r"^\+?\d[\d\s().-]{5,}[A-Za-z]*$|\b\d{1,3}-\d{3}-[\dA-Z]{3,}")
_CITATION = re.compile(r"\bet al\b|\bdoi\b|\bpp?\.\s*\d|\bvol\.\s*\d|\(\d{4}\)|^\[\d+\]|\bISBN\b|\bibid\b", re.I)
#: First headings that name a part of a document, not the document.
GENERIC_TITLES = frozenset(
    {
        *"introduction overview summary abstract preface foreword contents changelog changes history about".split(),
        *"license licence readme".split(),
        "getting started",
        "release notes",
        "table of contents",
    }
)
_MARKDOWN_TITLE = re.compile(r"^#\s+(\S.*?)\s*#*\s*$")
#: Longest plausible document name (characters / words): longer is a sentence, not a name.
MAX_NAME_CHARS, MAX_NAME_WORDS = 60, 8


def clean_file_stem(source: str) -> str | None:
    """Turn a file name or path into a readable name, or None when it names nothing.

    ``"/data/Acme_X-200_User_Manual.txt"`` -> ``"Acme X-200"``. Underscores become spaces,
    extensions, version tails and document-type words at the ends are dropped; hashes,
    numbers and generic names (``doc_1``, ``untitled``, ``README``) give None.
    """
    name = PureWindowsPath(PurePosixPath(str(source).strip()).name).name
    name = _EXTENSIONS.sub("", name)
    name = _VERSION_TAIL.sub("", name)
    cleaned = _strip_doc_words(re.split(r"[_\s]+", name))
    return cleaned if plausible_name(cleaned, code_ok=True) else None


def _strip_doc_words(parts: list[str]) -> str:
    """Drop document-type words at both ends (``User Manual``, ``final``) and join the rest with spaces."""
    parts = [p for p in parts if p]
    while parts and parts[-1].lower().strip(".-") in DOC_WORDS:
        parts.pop()
    while parts and parts[0].lower().strip(".-") in DOC_WORDS:
        parts.pop(0)
    return " ".join(parts).strip(" .-")


@functools.lru_cache(maxsize=4096)
def plausible_name(value: str | None, *, code_ok: bool = False) -> bool:
    """True when ``value`` can name a document: not an id, hash, number, lone code, phone number or citation.

    A single word must be letters only (``"Walden"``, ``"openssl"``) unless ``code_ok``: a lone
    token with digits is far more often a per-chunk code (``"E21"``, ``"IP68"``, ``"3DS"``) than
    a document's name; names with digits pass with a word beside them (``"Acme X-200"``).
    ``code_ok`` is for a code the caller (a file named ``X100.txt``) or the document's own
    cover gives as its name; ids, hashes and numbers are refused even then.
    """
    if not value:
        return False
    text = " ".join(str(value).split())
    words = text.split()
    if not text or len(text) > MAX_NAME_CHARS or len(words) > MAX_NAME_WORDS:
        return False
    letters = sum(c.isalpha() for c in text)
    if letters < 1 or (not code_ok and (letters < 2 or letters < sum(c.isdigit() for c in text))):
        return False  # a bare number; or, unless the name comes from the caller or the cover, mostly digits
    if _HEX.match(text.replace(" ", "")) or _GENERIC_ID.match(text) or _DOTTED_NUMBER.match(text):
        return False
    if _PHONE.search(text) or _CITATION.search(text):
        return False
    if all(w.lower().strip(".,:;-'") in DOC_WORDS for w in words):
        return False
    if len(words) == 1:
        word = words[0].strip(".,:;'\"")
        if len(word) < 3 or re.search(r"[^\w&'+.-]", word) or re.match(r"^\d+[a-z]", word):
            return False  # too short, stray symbols, or a number glued to a word ("201cmanagement")
        return code_ok or not any(c.isdigit() for c in word)
    return True


def named_on_cover(value: str, text: str, *, chars: int = 1000) -> bool:
    """True when ``value`` appears (as whole words) in the opening ``chars`` of ``text``: the document's own name."""
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, value.split())) + r"(?!\w)"
    return bool(re.search(pattern, text[:chars], re.I))


def _clean_title(value: str) -> str | None:
    title = " ".join(str(value).split()).strip(" .:-")
    if re.search(r"[\\/]", title) or _EXTENSIONS.search(title):
        return clean_file_stem(title)  # a title that is really a file name or path
    title = _strip_doc_words(re.split(r"[_\s]+", title))  # a title spelt like a file stem: "Acme_X200"
    return title if plausible_name(title, code_ok=True) else None


def caller_identity(doc: DocContext) -> str | None:
    """The document's name from what the caller gave (``model``, else title or file name keys), or None."""
    explicit = doc.hints.get("model")
    if explicit not in (None, ""):
        return str(explicit)  # the caller knows best: taken as given
    for key in IDENTITY_KEYS:
        value = doc.metadata.get(key)  # raw: the full path of a source; hints hold only its file name
        if value in (None, ""):
            continue
        name = _clean_title(str(value)) if key == "title" else clean_file_stem(str(value))
        if name:
            return name
    return None


def is_doc_words(line: str) -> bool:
    """True when ``line`` names a document's type: only :data:`DOC_WORDS`, one of them a type (``User Manual``)."""
    tokens = [t for t in re.split(r"[\W_]+", line.lower()) if len(t) > 1]  # "Owner's" leaves a lone "s"
    return bool(tokens) and all(t in DOC_WORDS for t in tokens) and any(t in DOC_TYPES for t in tokens)


def _opening_lines(text: str, limit: int = 8) -> list[str]:
    out: list[str] = []
    for line in text[:4000].splitlines():
        if line.strip():
            out.append(line.strip())
            if len(out) >= limit:
                break
    return out


def cover_identity(text: str) -> str | None:
    """A title the document prints for itself, only when confident; else None.

    Confident means a short name line printed just above a line made only of
    document-type words (``"User Manual"``, ``"Owner's Guide"``) among the opening lines,
    or a markdown title (``# Name``) as the very first line. Any other opening line (a table
    of contents, a first heading, a logo) is not taken: a wrong name on every chunk of a
    document is worse than none.
    """
    lines = _opening_lines(text)
    if lines:
        match = _MARKDOWN_TITLE.match(lines[0])
        if match and plausible_name(match.group(1)) and match.group(1).lower() not in GENERIC_TITLES:
            return match.group(1)
    for line, below in itertools.pairwise(lines):
        if is_doc_words(below) and not is_doc_words(line) and line[-1] not in ".!?:;," and plausible_name(line):
            return line
    return None


def document_identity(doc: DocContext) -> str | None:
    """The document's model slot: the caller's name for it, else a confident cover title, else None.

    When the cover spells the caller's name differently (``kx200.txt``, cover ``KX-200``), the
    cover's spelling is used: it is how the text and its readers write it.
    """
    caller, cover = caller_identity(doc), cover_identity(doc.text)
    return same_name(caller, [cover, spelled_in(caller, doc.text)]) if caller else cover


def spelled_in(name: str, text: str, *, chars: int = 1000) -> str | None:
    """How the opening ``chars`` of ``text`` spell ``name`` (``acme x 200`` -> ``Acme X-200``), or None."""
    parts = [re.escape(p) for p in re.split(r"[\W_]+", name) if p]
    if not parts:
        return None
    found = re.search(r"(?<!\w)" + r"[\W_]*".join(parts) + r"(?!\w)", text[:chars], re.I)
    return found.group() if found and "\n" not in found.group() else None


def same_name(name: str | None, spellings: list[str | None]) -> str | None:
    """The first of ``spellings`` that is ``name`` up to case, spaces and punctuation; else ``name``."""
    key = re.sub(r"[\W_]+", "", (name or "").casefold())
    for spelling in spellings:
        if spelling and key and re.sub(r"[\W_]+", "", spelling.casefold()) == key:
            return spelling
    return name


# -- the heading path ------------------------------------------------------------------------------

_MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s+(\S.*?)\s*#*\s*$")
#: Markup a heading line may carry that is no part of its title: markdown images (badges) and link targets,
#: HTML tags (common ones only, so a placeholder such as ``<device name>`` stays) and bare URLs.
_MARKUP = (
    (re.compile(r"!\[[^\]]*\]\([^)]*\)"), " "),
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (
        re.compile(
            r"</?(?:h[1-6]|p|div|span|img|br|hr|a|b|i|em|strong|code|pre|sup|sub|center|picture|source|details|"
            r"summary|table|thead|tbody|tr|td|th|ul|ol|li)\b[^<>]*/?>",
            re.I,
        ),
        " ",
    ),
    (re.compile(r"\b(?:https?|ftp)://\S+"), " "),
)


def heading_title(line: str) -> str:
    """A heading line's title without markup (badges, links' targets, HTML tags, URLs); ``""`` when no word is left.

    ``# Thread-pool Controls [![Build Status](https://...)](https://...)`` -> ``Thread-pool Controls``;
    ``<h1 align="center">`` -> ``""`` (not a heading: a README's logo block).
    """
    for pattern, replacement in _MARKUP:
        line = pattern.sub(replacement, line)
    title = " ".join(line.split())
    return title if _LETTER.search(title) else ""


def section_title(line: str, following: str | None) -> str:
    """The title of a plain-text heading line (no markdown), or ``""`` when the line heads no section.

    ``following`` is the next line of its block (None when it stands alone). A line naming the
    document's type ("User Manual" under the title) heads no section. Shared by :class:`Headings`
    and the stream's :class:`~chop_integrations.offline.headings_stream.HeadingStream`.
    """
    title = heading_title(line) if is_heading_line(line, following) else ""
    return "" if is_doc_words(title) else title


#: Underline (and overline) characters of setext and reStructuredText headings (``~`` under a title is an
#: underline, not a fence: :class:`~chop_integrations.text.structure.FenceState`).
_ADORNMENT = re.compile(r'^([=\-~^"])\1{2,}$')


def adornment(line: str) -> str:
    """The character of a heading underline or overline (``"====="`` -> ``"="``); ``""`` for any other line."""
    match = _ADORNMENT.match(line)
    if match is None or (match.group(1) == "~" and len(line) < 4):  # three "~" open a code block
        return ""
    return match.group(1)


def marked_heading(line: str, following: str | None, *, opens_block: bool, above: str) -> tuple[str, str] | None:
    """A markdown (``## Title``) or setext/reStructuredText (``Title`` over ``=====``) heading: ``(style, title)``.

    ``line`` and ``following`` (the next line of its block; None when a blank line or the end
    comes next) are stripped lines outside fenced code; ``above`` is the adornment character of
    the line just above (``""`` if none, or a blank line between). ``style`` is the ``#`` run of
    a markdown heading, else the underline's character, with ``"/"`` added when the same
    character overlines the title. An underlined title must open its block and hold a word; a
    markdown heading of markup alone (a badge row) is still a marked line, with title ``""``.
    None for any other line. Shared by :class:`Headings` and the stream's ``HeadingStream``.
    """
    match = _MARKDOWN_HEADING.match(line)
    if match:
        return match.group(1), heading_title(match.group(2))
    char = adornment(following or "")
    if not char or not opens_block or adornment(line) or len(line) > MAX_HEADING_CHARS:
        return None
    title = heading_title(line)
    return (char + "/" if above == char else char, title) if title else None


class HeadingLevels:
    """Heading levels: a markdown heading's is its number of ``#``; underline styles rank in order of first use."""

    def __init__(self) -> None:
        self.styles: dict[str, int] = {}

    def of(self, style: str) -> int:
        """The level of a :func:`marked_heading` style (reStructuredText has no fixed order of underlines)."""
        if style.startswith("#"):
            return len(style)
        return self.styles.setdefault(style, len(self.styles) + 1)


class _Line(NamedTuple):
    """One non-blank line of a document."""

    offset: int
    text: str  # stripped
    fenced: bool  # inside fenced code
    indented: bool  # four columns or more: indented code in markdown and reStructuredText, never a marked heading
    alone: bool = False  # a blank line follows


def is_indented(raw: str) -> bool:
    """True when ``raw`` opens with a tab or four spaces (code in markdown and reStructuredText, not a heading)."""
    indent = raw[: len(raw) - len(raw.lstrip(" \t"))]
    return "\t" in indent or len(indent) >= 4


def _lines(text: str) -> list[_Line]:
    """The non-blank lines of ``text``."""
    lines: list[_Line] = []
    offset, fences = 0, FenceState()
    for raw in text.splitlines(keepends=True):
        fenced = fences.step(raw)
        if raw.strip():
            lines.append(_Line(offset, raw.strip(), fenced, is_indented(raw)))
        elif lines:
            lines[-1] = lines[-1]._replace(alone=True)
        offset += len(raw)
    return lines


def _marked(lines: Sequence[_Line]) -> list[tuple[int, str, str]]:
    """``(offset, style, title)`` of every :func:`marked_heading` among ``lines``, in order."""
    marked = []
    for k, line in enumerate(lines):
        if line.fenced or line.indented:
            continue
        previous = lines[k - 1] if k else None
        following = None if line.alone or k + 1 == len(lines) else lines[k + 1].text
        above = adornment(previous.text) if previous is not None and not previous.alone else ""
        opens_block = previous is None or previous.alone or bool(above)
        heading = marked_heading(line.text, following, opens_block=opens_block, above=above)
        if heading is not None:
            marked.append((line.offset, *heading))
    return marked


def has_marked_headings(text: str) -> bool:
    """True when ``text`` has a markdown or underlined heading outside fenced code (:func:`marked_heading`)."""
    return bool(_marked(_lines(text)))


class Headings:
    """A document's headings, and the heading path at each of them, for quick look-ups.

    Markdown headings and underlined ones (setext, reStructuredText: ``Title`` over ``=====``)
    carry their level and the path is the usual stack (``#`` > ``##``; underline styles rank
    in order of first use, :class:`HeadingLevels`). In a text without them, every heading-like line
    (:func:`~chop_integrations.text.segmentation.is_heading_line`) counts, and a run of
    consecutive ones with no body between (chapter, section, subsection) is one path,
    outermost first. Lines of a fenced code block are code, never headings (a README's
    ``# 1. Load a model`` inside a Python example heads no section).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.offsets: list[int] = []
        self.blocks: list[int] = []
        self.paths: list[tuple[str, ...]] = []
        lines = _lines(text)
        marked = _marked(lines)
        if marked:
            levels = HeadingLevels()
            self._stack([(offset, levels.of(style), title) for offset, style, title in marked if title])
        else:
            self._runs(lines)

    def _stack(self, marked: list[tuple[int, int, str]]) -> None:
        stack: list[tuple[int, str]] = []
        for number, (offset, level, title) in enumerate(marked):
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            self.offsets.append(offset)
            self.blocks.append(number)
            self.paths.append(tuple(t for _, t in stack))

    def _runs(self, lines: list[_Line]) -> None:
        block, previous = -1, -2
        for k, (offset, line, fenced, _, alone) in enumerate(lines):
            following = None if alone or k + 1 == len(lines) else lines[k + 1].text
            title = "" if fenced else section_title(line, following)
            if not title:
                continue
            same_run = previous == k - 1
            block = block if same_run else block + 1
            self.offsets.append(offset)
            self.blocks.append(block)
            self.paths.append((*self.paths[-1], title) if same_run and self.paths else (title,))
            previous = k

    def path(self, start: int, end: int, *, depth: int = 2) -> list[str]:
        """The innermost ``depth`` headings of the section a chunk ``[start, end)`` opens in, outermost first.

        The headings a chunk opens with count (a chunk starting ``Setting up`` is in that
        section); a heading further inside the chunk does not.
        """
        j = bisect.bisect_left(self.offsets, start) - 1  # the last heading before the chunk
        k = j + 1
        if k < len(self.offsets) and self.offsets[k] < end and not self.text[start : self.offsets[k]].strip():
            j = k  # the chunk opens with a heading: take its whole opening run
            while j + 1 < len(self.offsets) and self.offsets[j + 1] < end and self.blocks[j + 1] == self.blocks[j]:
                j += 1
        return list(self.paths[j][-depth:]) if j >= 0 else []
