"""What a CHOP signature may say: the document's identity, checked names, and the heading path.

A signature is right or empty. The model slot names the *document* (what tells near-identical
documents apart): the name :func:`.naming.document_name` finds (the caller's ``model``, a loader's
``title``, a file name that reads as a name, the document's own title block, in that order), spelt as
the document spells it. A value that is not a plausible name (:func:`plausible_name`: an id, a hash, a
bare number, a lone code such as ``"E21"`` or ``"IP68"``, a phone number, a citation, a generic file
name) never fills it; the same check applies to an LLM's answer. Nothing here names a product or brand.
"""

from __future__ import annotations

import re

from .._deciders import DocContext
from .naming import document_name, file_name, plausible_name, spelling_key, title_block

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


def clean_file_stem(source: str) -> str | None:
    """Turn a file name or path into a readable name, or None when it names nothing.

    ``"/data/Acme_X-200_User_Manual.txt"`` -> ``"Acme X-200"``: the reading of :func:`.naming.file_name`
    (extensions, edit states and document-type, language and region words at the ends dropped; a counter,
    record number, hash or generic stem such as ``doc_1``, ``lic_03`` or ``README`` gives None).
    """
    return file_name(source)[0]


def named_on_cover(value: str, text: str, *, chars: int = 1000) -> bool:
    """True when ``value`` appears (as whole words) in the opening ``chars`` of ``text``: the document's own name."""
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, value.split())) + r"(?!\w)"
    return bool(re.search(pattern, text[:chars], re.I))


def caller_identity(doc: DocContext) -> str | None:
    """The document's name from what the caller gave (``model``, else title or a readable file name), or None."""
    name = document_name(doc)
    return name.value if name.source in ("model", "title", "file") else None


def cover_identity(text: str) -> str | None:
    """A title the document prints for itself, only when confident; else None (see :func:`.naming.title_block`)."""
    return title_block(text)


def document_identity(doc: DocContext) -> str | None:
    """The document's model slot: its name (:func:`.naming.document_name`) as the document spells it, else None.

    When the cover spells the name differently (``kx200.txt``, cover ``KX-200``), the cover's spelling is used:
    it is how the text and its readers write it.
    """
    name = document_name(doc).value
    return same_name(name, [title_block(doc.text), spelled_in(name, doc.text)]) if name else None


def spelled_in(name: str, text: str, *, chars: int = 1000) -> str | None:
    """How the opening ``chars`` of ``text`` spell ``name`` (``acme x 200`` -> ``Acme X-200``), or None."""
    parts = [re.escape(p) for p in re.split(r"[\W_]+", name) if p]
    if not parts:
        return None
    found = re.search(r"(?<!\w)" + r"[\W_]*".join(parts) + r"(?!\w)", text[:chars], re.I)
    return found.group() if found and "\n" not in found.group() else None


def same_name(name: str | None, spellings: list[str | None]) -> str | None:
    """The first of ``spellings`` that is ``name`` up to case, spaces, punctuation and a ``v`` before a version.

    ``acme v1.4.2`` (a file name) and ``Acme 1.4.2`` (the document's own words) are one name, spelt the second way.
    """
    key = _versionless(name)
    for spelling in spellings:
        if spelling and key and _versionless(spelling) == key:
            return spelling
    return name


def _versionless(value: str | None) -> str:
    """:func:`spelling_key` without a ``v``, ``ver`` or ``version`` before a number (``acme v1.4`` is ``acme 1.4``)."""
    return spelling_key(re.sub(r"(?i)(?<![^\W\d_])(?:v|ver|version)\.?\s*(?=\d)", " ", value or ""))
