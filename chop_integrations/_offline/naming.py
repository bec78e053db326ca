"""Where a document's name comes from: the caller, the document's own title block, its file name.

A document in a family of near-identical documents (one manual per model, one release note per
version) is told apart by its name, so the name must be the one the document gives itself or the
one its owner gave it, never a guess. :func:`document_name` looks, first readable wins, at

1. ``metadata["model"]``: the caller's own word, taken as given (source ``"model"``);
2. ``metadata["title"]`` as loaders set it (source ``"title"``);
3. the file name (``file_name``, ``filename``, ``file_path``, ``source``), only where it reads as a name:
   a word of letters in it, no counter (``lic_03``), record number, hash or generic stem (``doc_07``), and
   without language, region and document-type tails (``_UM_EU_Eng``, ``-user-manual``) (source ``"file"``);
4. the document's title block (source ``"text"``): a markdown or underlined title on the first lines
   (``Django 4.2.1 release notes`` over ``====``), a name printed above a document-type line (``Acme X-200`` over
   ``User Manual``), and a ``Version N`` line under a title (``Apache License`` / ``Version 2.0, January 2004``
   gives ``Apache License 2.0``); the document-type words at its end are left out;
5. a file name that is a lone code (``AB-C123D``, ``X100``): the caller's word still, but a weaker one than the
   document's own title (source ``"file"``).

Every other readable name found on the way is kept as an alias (the cover's title beside a file
name, the file name's code beside the cover's title, the title's initials with its number: ``MPL
2.0``), so a question may name the document either way. A name is the same whether the document
arrives alone or in a batch: nothing here looks at other documents. Nothing names a product or brand.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath

from .._deciders import DocContext
from .._text.headings import DOC_WORDS, atx_heading, heading_title, is_doc_words

__all__ = [
    "DocumentName",
    "clean_title",
    "document_name",
    "file_name",
    "plausible_name",
    "spelling_key",
    "title_block",
]

#: Where a name came from (recorded in the chunk metadata as ``chop_model_source``).
SOURCES = ("model", "title", "file", "text")
#: The metadata keys that hold a file's name or path, in the order they are trusted.
FILE_KEYS = ("file_name", "filename", "file_path", "source")

_EXTENSIONS = re.compile(r"(?:\.(?:txt|md|markdown|rst|pdf|html?|docx?|odt|rtf|json|xml|csv|epub))+$", re.I)
#: A serial number, not a name: six or more digits (a PubMed id, a record number), one to three letters glued to five
#: or more digits (``PMC7654321``, ``GSE12345``), or a zero-padded counter (``001``). Product models keep shorter
#: numbers (``Pixel 8``, ``X-200``, ``Latitude 7420``, ``IEC 62304``). A syntax rule, chosen on no data split.
_LONG_NUMBER = r"\d{6,}|[a-z]{1,3}\d{5,}"
_COUNTER = r"0\d+"
_SERIAL = re.compile(rf"^(?:{_LONG_NUMBER}|{_COUNTER})$", re.I)
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
#: Longest plausible document name (characters / words): longer is a sentence, not a name.
MAX_NAME_CHARS, MAX_NAME_WORDS = 60, 8


#: A counter or record number ends a file name: ``lic_03``, ``chat_001``, ``invoice-1234567`` (a number
#: glued to letters by a hyphen is a model's: ``AC-09``). Stripping it would
#: give nine documents one name, so such a file name names nothing. A syntax rule, chosen on no data split.
_COUNTER_TAIL = re.compile(r"[\s_.]0\d+$|[\s_.-](?:\d{6,}|[a-z]{1,3}\d{5,})$", re.I)
#: Tails that say a file's edit state, not what it is (``_final``, ``-copy``): dropped.
_STATE_TAIL = re.compile(r"(?:[\s_-]+(?:copy|final|draft|\(\d+\)))+$", re.I)
#: Language, region and document-type abbreviations at a file name's end (``_EN``, ``_EU``, ``_UM``, ``-eng``).
_LOCALE_WORDS = frozenset(
    """en eng english de deu ger german fr fra fre french es esp spa spanish it ita nl pt ru ja jp zh cn ko kr
    eu us uk gb ww intl global emea apac latam um ug qsg om""".split()
)
#: A revision or date after a document-type word (``User_Manual_v2``, ``Notes_2023-10-01``): the document's, not
#: its subject's, so it goes with the type words.
_REVISION = re.compile(r"^(?:v|rev|r)?\d+(?:[.-]\d+)*$", re.I)
#: Words a file name may end (or open) with that say nothing of which document it is.
_FILE_TRIM = DOC_WORDS | _LOCALE_WORDS | {"release", "releases", "whatsnew", "relnotes", "releasenotes"}
#: Words after a title that only name the document's type (``... release notes``, ``... User Manual``).
_TITLE_TAIL_WORDS = frozenset(
    """manual manuals guide guides handbook instructions documentation reference user users owner owners owner's
    quick start release releases notes operating""".split()
)
#: Words an acronym leaves out (``Mozilla Public License Version 2.0`` is ``MPL 2.0``).
_NOT_INITIALS = frozenset("of and the for version edition release".split())
#: Symbols at a title's ends (emoji, dingbats, variation selectors): ``🦛 Quill ✨`` is ``Quill``; ``+`` and
#: brackets stay (``Quill 10+``, ``Quill (Beta)``).
_EDGE_SYMBOLS = re.compile(r"^[^\w(\[]+|[^\w)\]+.!?,;]+$")
#: How much of a document's start its title block is read from.
_OPENING_CHARS = 4000
#: A dotted version in a title (``1.4.2``, ``v10.0``): a title with nothing else names a version only.
_DOTTED = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])")
#: How far under a version-only title its name is looked for (the first sentence or two).
_NAMED_VERSION_CHARS = 400
#: Words that stand before a version in a sentence without naming anything (``in 1.4.2``, ``version 1.4.2``).
_NOT_NAMES = frozenset(
    """in of for to from and or the a an at on by since until before after with version versions release
    releases changes notes is are was be v ver rev""".split()
)
#: A ``Version N`` (``Release N``, ``v N``) line under a title: its number, then anything (a date).
_VERSION_LINE = re.compile(r"^(?:version|release|v\.?|ver\.?)\s*(\d+(?:\.\d+)*[a-z]?)\b(?![.\d])", re.I)
#: A title's trailing date or parenthesis: ``(September 19, 2022)``, ``, January 2004``, `` - 2023-10-01``.
_TRAILING_DATE = re.compile(r"\s*(?:\([^()]*\)|[,–—-]\s*(?:\w+\.?\s+)?(?:\d{1,2},?\s+)?\d{4}(?:-\d\d){0,2})\s*$")
#: An underline (or overline) of a reStructuredText or setext title.
_UNDERLINE = re.compile(r"^([=\-~^*#+`'\"])\1{2,}\s*$")
#: Lines that open many READMEs before the title and say nothing: HTML tags, comments, badges, images, directives.
_DECORATION = re.compile(r"^(?:<[^>]*>?|<!--.*|\[!\[.*|!\[.*|\.\. .*|\|[^|]+\|.*|-->|:\w+:.*)$")
#: First headings that name a part of a document, not the document.
GENERIC_TITLES = frozenset(
    {
        *"introduction overview summary abstract preface foreword contents changelog changes history about".split(),
        *"license licence readme welcome news".split(),
        "getting started",
        "release notes",
        "table of contents",
        "what's new",
    }
)


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
    if any(_SERIAL.match(w.strip(".,:;'\"()")) for w in words):
        return False  # a record number or a counter in it (``PMC7654321``, ``Report 0042``)
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


def clean_title(value: str) -> str | None:
    """A ``title`` metadata value as a name (a title that is really a path is read as a file name), or None."""
    title = " ".join(str(value).split()).strip(" .:-")
    if re.search(r"[\\/]", title) or _EXTENSIONS.search(title):
        return file_name(title)[0]  # a title that is really a file name or path
    title = " ".join(_trim(re.split(r"[_\s]+", title), DOC_WORDS))  # a title spelt like a file stem: "Acme_X200"
    return title if plausible_name(title, code_ok=True) else None


@dataclass(frozen=True)
class DocumentName:
    """A document's name, where it came from, and the other names it gives itself.

    Attributes:
        value: The name (``None`` when nothing readable names the document).
        source: ``"model"``, ``"title"``, ``"file"`` or ``"text"`` (see :mod:`.naming`), ``""`` without a name.
        aliases: Other readable names of the same document, in the order found (never ``value`` itself).
    """

    value: str | None = None
    source: str = ""
    aliases: tuple[str, ...] = field(default=())


def file_name(source: str) -> tuple[str | None, bool]:
    """The name a file name or path reads as, and whether it is a lone code (``X100``); ``(None, False)`` if none.

    ``"/data/Acme_X-200_User_Manual.txt"`` -> ``("Acme X-200", False)``; ``"AB-C123D_UM_EU_Eng.pdf"`` ->
    ``("AB-C123D", True)``; ``"acme-x200-user-manual"`` -> ``("acme x200", False)``; ``"doc_07.txt"``,
    ``"lic_03.txt"``, ``"3f2a9c0d1e.txt"`` -> ``(None, False)``.
    """
    name = PureWindowsPath(PurePosixPath(str(source).strip()).name).name
    name = _STATE_TAIL.sub("", _EXTENSIONS.sub("", name)).strip(" ._-")
    if not name or _COUNTER_TAIL.search(name):
        return None, False
    parts = [p for p in re.split(r"[_\s]+", name) if p]
    if len(parts) == 1 and parts[0].count("-") >= 2:  # a slug: acme-x200-user-manual
        slug = parts[0].split("-")
        trimmed = _trim(slug, _FILE_TRIM)
        parts = trimmed if len(trimmed) < len(slug) else parts
    parts = _trim(parts, _FILE_TRIM)
    cleaned = " ".join(parts).strip(" .-")
    if not plausible_name(cleaned, code_ok=True):
        return None, False
    return cleaned, not any(word.isalpha() and len(word) >= 3 for word in re.split(r"[\W_]+", cleaned))


def _trim(parts: list[str], words: frozenset[str]) -> list[str]:
    """``parts`` without ``words`` at either end (case-insensitive); never all of them."""
    parts = list(parts)
    while len(parts) > 1 and (
        parts[-1].lower().strip(".-") in words
        or (_REVISION.match(parts[-1]) and parts[-2].lower().strip(".-") in words)  # the document's revision
    ):
        parts.pop()
    while len(parts) > 1 and parts[0].lower().strip(".-") in words:
        parts.pop(0)
    if len(parts) == 1 and parts[0].lower().strip(".-") in words:
        return []
    return parts


def _title_name(title: str) -> str | None:
    """A title line as a document's name: markup, a trailing date and document-type words left out; or None."""
    title = _EDGE_SYMBOLS.sub("", _TRAILING_DATE.sub("", heading_title(title))).strip(" :-")  # emoji are no part of it
    if title.endswith((".", "!", "?", ",", ";")):
        return None  # a sentence or a question (``What is this?``), not a name
    words = title.split()
    while len(words) > 1 and words[-1].lower().strip(".,:;-") in _TITLE_TAIL_WORDS:
        words.pop()
    name = " ".join(words)
    lower = name.lower()
    if not name or lower in GENERIC_TITLES or any(lower.startswith(f"{generic} ") for generic in GENERIC_TITLES):
        return None  # a part of a document (``Introduction``), or one named by a generic phrase (``What's new in 1.5``)
    return name if plausible_name(name, code_ok=True) else None


def _opening(text: str, limit: int = 10) -> list[str]:
    """The first ``limit`` non-empty lines, stripped, after the lines that only decorate (logos, badges, comments)."""
    out: list[str] = []
    for line in text[:_OPENING_CHARS].splitlines():
        line = line.strip()
        if not line or (not out and _DECORATION.match(line)):
            continue
        out.append(line)
        if len(out) >= limit:
            break
    return out


def title_block(text: str) -> str | None:
    """The name the document's title block gives it, only when confident; else None.

    Confident means one of: a level-one markdown title (``# Name``) or an underlined title (``Name`` over
    ``====``, with or without an overline) as the first line; a short name line printed just above a line of
    document-type words (``Acme X200`` over ``User Manual``); a title over a ``Version N`` line (the number is
    added: ``Apache License 2.0``). Anything else (a table of contents, a first section, a sentence) gives None:
    a wrong name on every chunk is worse than none.
    """
    return _title_block(text[:_OPENING_CHARS])  # the memo keeps openings, never whole documents


@functools.lru_cache(maxsize=1024)
def _title_block(opening: str) -> str | None:
    lines = _opening(opening)
    if not lines:
        return None
    first, rest = lines[0], lines[1:]
    if _UNDERLINE.match(first) and rest:  # an overline: the title is the next line
        first, rest = rest[0], rest[1:]
    atx = atx_heading(first)
    underlined = bool(rest) and _UNDERLINE.match(rest[0]) is not None
    title = atx[1] if atx and atx[0] == 1 else first if underlined else None
    after = rest[1:] if underlined else rest
    if title is not None:
        version = _VERSION_LINE.match(after[0]) if after else None
        name = _title_name(title)
        if name and version and not re.search(rf"(?<![\w.]){re.escape(version.group(1))}(?![\w.])", name):
            return f"{name} {version.group(1)}"
        return name or _named_version(title, after[:4])
    for line, below in itertools.pairwise(lines[:7]):
        if is_doc_words(below) and not is_doc_words(line) and line[-1] not in ".!?:;,":
            return _title_name(line)
        version = _VERSION_LINE.match(below)
        if version and line == lines[0] and len(line.split()) <= 6 and line[-1] not in ".!?:;,":
            name = _title_name(line)
            return f"{name} {version.group(1)}" if name else None
    return None


def _named_version(title: str, below: list[str]) -> str | None:
    """The name of a title that gives only a version, as the lines under it write it; else None.

    ``What's new in 1.4.2 (April 2, 2022)`` or ``10.0.0`` name a version of something the title leaves out; when
    the opening lines under it name that very version after a word (``These are the changes in Acme 1.4.2``),
    that word and the version are the name (``Acme 1.4.2``). A rule of syntax, no word list of products.
    """
    found = _DOTTED.search(heading_title(title))
    if found is None or not below:
        return None
    version = found.group(0)
    pattern = rf"(?<![\w.-])([A-Za-z][\w+-]*)\s+v?{re.escape(version)}(?![\w]|\.\d)"
    for word in re.findall(pattern, " ".join(below)[:_NAMED_VERSION_CHARS]):
        if word.lower() not in _NOT_NAMES:
            name = f"{word} {version}"
            return name if plausible_name(name, code_ok=True) else None
    return None


def _acronyms(name: str) -> list[str]:
    """The initials of a name's words with its number: ``Mozilla Public License 2.0`` -> ``MPL 2.0``.

    Only for names of at least three words of letters (two make too many chance acronyms). A short leading word in
    capitals (``GNU`` in ``GNU General Public License 3``) gives a second form without it (``GGPL 3``, ``GPL 3``).
    """
    words = name.split()
    letters = [w for w in words if w.isalpha() and w.lower() not in _NOT_INITIALS]
    numbers = [w for w in words if w[0].isdigit()]
    if len(letters) < 3:
        return []
    forms = [letters]
    if letters[0].isupper() and len(letters[0]) <= 4 and len(letters) >= 4:
        forms.append(letters[1:])
    tail = f" {numbers[-1]}" if numbers else ""
    return ["".join(w[0].upper() for w in form) + tail for form in forms]


def document_name(doc: DocContext) -> DocumentName:
    """The document's name, its source and its aliases (see the module docstring)."""
    found: list[tuple[str, str]] = []  # (name, source), in the order of trust
    explicit = doc.hints.get("model")
    if explicit not in (None, ""):
        found.append((str(explicit), "model"))
    title = doc.metadata.get("title")
    if title not in (None, ""):
        cleaned = clean_title(str(title))
        if cleaned:
            found.append((cleaned, "title"))
    codes: list[str] = []
    for key in FILE_KEYS:
        value = doc.metadata.get(key)
        if value in (None, ""):
            continue
        name, code = file_name(str(value))
        if name:
            (codes.append(name) if code else found.append((name, "file")))
    own = title_block(doc.text)
    if own:
        found.append((own, "text"))
    found.extend((code, "file") for code in codes)
    if not found:
        return DocumentName()
    value, source = found[0]
    names = [value, *(name for name, _ in found[1:])]
    if own:
        names.extend(_acronyms(own))
    return DocumentName(value, source, tuple(_distinct(names)[1:]))


def spelling_key(value: str | None) -> str:
    """``value``'s letters and digits, case-folded: ``"Acme X-200"`` and ``"ACME X200"`` are one name."""
    return re.sub(r"[\W_]+", "", (value or "").casefold())


def _distinct(names: list[str]) -> list[str]:
    """``names`` without blanks and without a second spelling of one name (case, spaces and punctuation aside)."""
    seen: set[str] = set()
    out = []
    for name in names:
        key = spelling_key(name)
        if key and key not in seen:
            seen.add(key)
            out.append(name)
    return out
