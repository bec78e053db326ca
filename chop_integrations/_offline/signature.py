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
never fills it. The same check applies to an LLM's answer. The nouns (the heading path) come
from :mod:`.headings`. Nothing here names a product or brand.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import PurePosixPath, PureWindowsPath

from .._deciders import DocContext
from .._text.headings import DOC_WORDS, atx_heading, is_doc_words

__all__ = [
    "IDENTITY_KEYS",
    "caller_identity",
    "clean_file_stem",
    "cover_identity",
    "document_identity",
    "named_on_cover",
    "plausible_name",
    "same_name",
    "spelling_key",
]

#: Metadata keys that name a document, in the order they are trusted (``title`` first).
IDENTITY_KEYS = ("title", "file_name", "filename", "file_path", "source")

_EXTENSIONS = re.compile(r"(?:\.(?:txt|md|markdown|rst|pdf|html?|docx?|odt|rtf|json|xml|csv|epub))+$", re.I)
#: A serial number, not a name: six or more digits (a PubMed id, a record number), one to three letters glued to five
#: or more digits (``PMC7654321``, ``GSE12345``), or a zero-padded counter (``001``). Product models keep shorter
#: numbers (``Pixel 8``, ``X-200``, ``Latitude 7420``, ``IEC 62304``). A syntax rule, chosen on no data split.
_LONG_NUMBER = r"\d{6,}|[a-z]{1,3}\d{5,}"
_COUNTER = r"0\d+"
_SERIAL = re.compile(rf"^(?:{_LONG_NUMBER}|{_COUNTER})$", re.I)
#: A counter glued to letters by a hyphen is a model's number (``AC-09``, ``SM-05``), not a counter: only ``_`` or a
#: space sets a zero-padded counter apart (``chat_001``).
_VERSION_TAIL = re.compile(
    rf"(?:[\s_-]+(?:v\d+(?:\.\d+)*|\d{{4}}-\d{{2}}(?:-\d{{2}})?|{_LONG_NUMBER}|copy|final|draft)"
    rf"|[\s_]+{_COUNTER})+$",
    re.I,
)
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
#: Longest plausible document name (characters / words): longer is a sentence, not a name.
MAX_NAME_CHARS, MAX_NAME_WORDS = 60, 8


def clean_file_stem(source: str) -> str | None:
    """Turn a file name or path into a readable name, or None when it names nothing.

    ``"/data/Acme_X-200_User_Manual.txt"`` -> ``"Acme X-200"``. Underscores become spaces,
    extensions, version tails, trailing serial numbers (``chat_001`` -> ``chat``) and document-type
    words at the ends are dropped; hashes, numbers and generic names (``doc_1``, ``untitled``,
    ``README``, ``PMC7654321``) give None.
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
        atx = atx_heading(lines[0])
        title = atx[1] if atx and atx[0] == 1 else ""
        if plausible_name(title) and title.lower() not in GENERIC_TITLES:
            return title
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


def spelling_key(value: str | None) -> str:
    """``value``'s letters and digits, case-folded: ``"Acme X-200"`` and ``"ACME X200"`` are one name."""
    return re.sub(r"[\W_]+", "", (value or "").casefold())


def same_name(name: str | None, spellings: list[str | None]) -> str | None:
    """The first of ``spellings`` that is ``name`` up to case, spaces and punctuation; else ``name``."""
    key = spelling_key(name)
    for spelling in spellings:
        if spelling and key and spelling_key(spelling) == key:
            return spelling
    return name
