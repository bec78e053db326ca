"""Offline CNM extraction: the document's identity as model, a category on strong evidence, the heading path.

* model: the document's name, as :func:`~chop_integrations._offline.signature.document_identity`
  finds it (the caller's ``model``, title or file name, else a confident cover title), or
  nothing. Never a token found in a chunk, and never the previous document's: a chunk of a
  manual that mentions an accessory, an error code or a standard (``"USB 3.1"``, ``"E21"``)
  must not take it for the manual's model.
* category: the caller's ``category``, else the :class:`Lexicon`'s answer on strong
  evidence only (the document names its kind), else nothing.
* nouns: the heading path of the section the chunk opens in (section > subsection), or
  nothing where the text has no headings.

Everything is generic: no rule names a product, brand or model.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._deciders import DocContext
from .._text.headings import Headings, is_doc_words, opening_titles
from .._types import CNM, Chunk, clean_cnm, sanitize_field
from ._text import content_lines
from .lexicon import CategoryEntry, Lexicon
from .signature import IDENTITY_KEYS, clean_file_stem, document_identity

__all__ = ["OfflineCNMExtractor", "clean_file_stem", "document_model", "find_model_tokens"]
_ = clean_file_stem  # re-exported from offline.signature

# A model-number-like token: letters and digits mixed (X-200, 225B, SM-G950U), at most 16 characters.
_MODEL_TOKEN = re.compile(r"(?<![\w-])(?=[\w+-]*\d)(?=[\w+-]*[A-Za-z])[A-Za-z0-9][\w+-]{1,15}(?![\w-])")
# Tokens that look like models but are units, standards or codes.
_NOT_MODEL = re.compile(
    r"^(?:\d+(?:[kmgt]i?b|[kmg]?bps|[kmg]?hz|w|v|a|mah|mm|cm|m|kg|g|mp|p|x|s|fps|db|nm)|"
    r"\d+(?:st|nd|rd|th)|mp\d|[a-z]+\d{6,}|\d{1,2}[a-z]\d*)$",
    re.I,
)


def find_model_tokens(text: str) -> list[str]:
    """Model-number-like tokens in ``text`` (``"X-200"``, ``"225B"``), most frequent first.

    A helper for callers who want candidates to review; the extractor never puts one in a
    signature on its own (a token in a chunk is as often an error code or an accessory).
    """
    counts: Counter[str] = Counter()
    for match in _MODEL_TOKEN.finditer(text):
        token = match.group().strip("-+")
        if len(token) >= 3 and not _NOT_MODEL.match(token) and not token.isdigit():
            counts[token] += 1
    return [token for token, _ in counts.most_common()]


def document_model(doc: DocContext) -> str | None:
    """The model a document names for itself (hints, file name, a confident cover title), or None."""
    return document_identity(doc)


def _cover_lines(text: str, limit: int = 8) -> list[str]:
    """The title block that opens a document: the lines down to a document-type line (``User Manual``), else the first.

    A table of contents or the first section's heading is not the cover: a cue there
    (``Camera``) is a section of the document, not its kind.
    """
    lines: list[str] = []
    for line in content_lines(text[:4000], limit):
        if len(line) > 60 or line[-1] in ".!?:;," or len(line.split()) > 8:
            break
        lines.append(line)
        if is_doc_words(line) and len(lines) > 1:
            return lines
    return lines[:1]


@dataclass(frozen=True)
class _Profile:
    """A document's own signature fields (category, model; no nouns) and its headings."""

    fields: CNM
    headings: Headings
    #: The signature for each heading path found so far: the chunks of one section share one (frozen) object, so a
    #: run copies the fields once per section and renders each section's prefix once. Keyed by the path's headings
    #: joined with a line break (clean headings hold none): a str, where a tuple is one more object per section for
    #: the garbage collector to count.
    signatures: dict[str, CNM] = field(default_factory=dict)


class OfflineCNMExtractor:
    """A CNM extractor that needs no LLM.

    Args:
        lexicon: A :class:`Lexicon`, or None for the default one.
        extra_categories: More categories for the default lexicon: entries or a mapping
            ``{category: [trigger words]}``.
        body_chars: How much of the document's text the category scoring reads.
        max_nouns: How many nouns to return (1 or 2).
    """

    def __init__(
        self,
        *,
        lexicon: Lexicon | None = None,
        extra_categories: Iterable[CategoryEntry] | Mapping[str, Iterable[str]] | None = None,
        body_chars: int = 400_000,
        max_nouns: int = 2,
    ) -> None:
        self.lexicon = lexicon if lexicon is not None else Lexicon(extra=extra_categories)
        self.body_chars = body_chars
        self.max_nouns = max(1, min(2, max_nouns))
        self._profiles: dict[tuple[object, ...], _Profile] = {}
        self._cursors: dict[int, int] = {}
        self._last: tuple[DocContext, _Profile] | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings, not the lock or the per-document profile cache (workers rebuild them)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_profiles", "_cursors", "_last")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._profiles = {}
        self._cursors = {}
        self._last = None
        self._lock = threading.Lock()

    def extract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Return a signature of its own for ``chunk`` (see the module docstring); ``previous`` is not inherited.

        The chunks of one section get the same (frozen) object.
        """
        profile = self._profile(doc)
        nouns = [clean for noun in self._path(chunk, doc, profile) if (clean := sanitize_field(noun))][:2]
        key = "\n".join(nouns)
        signature = profile.signatures.get(key)
        if signature is None:
            # The nouns cleaned as CNM's validator cleans them, beside the document's fields validated once:
            # validating all three again per chunk is most of a signature's cost. The signatures of a document share
            # its fields' set of set fields: a set per signature, kept to the end of the run, would outlive the
            # collector's young generations and set off its full passes over every object of the process.
            fields = profile.fields
            signature = profile.signatures[key] = clean_cnm(
                fields.category, nouns, fields.model, fields.model_fields_set
            )
        return signature

    def nouns(self, text: str) -> list[str]:
        """The heading path a text opens with (its last ``max_nouns`` opening headings), or ``[]``."""
        return opening_titles(text, self.max_nouns)

    def _path(self, chunk: Chunk, doc: DocContext, profile: _Profile) -> list[str]:
        """The chunk's heading path in its document; from its own opening headings when offsets do not match."""
        start, key, text = chunk.start, id(profile), chunk.text
        exact = start >= 0 and chunk.end - start == len(text) and doc.text.startswith(text, start)  # (no copy)
        if not exact and doc.text[start : chunk.end] != text:
            # Already-chunked texts (annotate): the document is their concatenation, so look the chunk up,
            # searching on from where the last one ended (chunks come in order; searching from where it
            # started found a repeated sentence inside the previous chunk).
            start = doc.text.find(chunk.text, self._cursors.get(key, 0))
            if start < 0:
                start = doc.text.find(chunk.text)
            if start < 0:
                return self.nouns(chunk.text)
        self._cursors[key] = start + len(chunk.text)
        return profile.headings.path(start, start + len(chunk.text), depth=self.max_nouns)

    def _profile(self, doc: DocContext) -> _Profile:
        last = self._last
        if last is not None and last[0] is doc:
            return last[1]  # the chunks of one document come one after another: skip the key
        key = (doc.doc_id, len(doc.text), hash(doc.text[:4096]), tuple(sorted(doc.hints.items())))
        with self._lock:
            cached = self._profiles.get(key)
        if cached is not None:
            self._last = (doc, cached)
            return cached
        fields = CNM(category=self._category(doc), nouns=[], model=document_model(doc))
        profile = _Profile(fields=fields, headings=Headings(doc.text))
        with self._lock:
            if len(self._profiles) > 512:
                self._profiles.clear()
                self._cursors.clear()
            self._profiles[key] = profile
        self._last = (doc, profile)
        return profile

    def category(self, doc: DocContext) -> str | None:
        """The document's category: the caller's, else the lexicon's on its names, cover and opening ``body_chars``."""
        return self._category(doc)

    def _category(self, doc: DocContext) -> str | None:
        hinted = doc.hints.get("category")
        if hinted:
            return str(hinted)
        names = " ".join(str(doc.metadata.get(k) or "") for k in IDENTITY_KEYS)
        names = names.replace("_", " ")
        cover = "\n".join(_cover_lines(doc.text))
        return self.lexicon.categorize(names=names, cover=cover, body=doc.text[: self.body_chars])
