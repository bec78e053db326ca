"""Offline CNM extraction: model from hints, cover text and patterns; category from a lexicon; nouns from headings.

Where the model comes from, first match wins:

1. ``doc.hints["model"]`` (the caller knows best);
2. the document's own name for itself: a cover line (the first lines of the text,
   before the body starts) that agrees with the title or file name hint, else a cover
   line holding a model-number-like token, else the cleaned file name
   (``"Acme_X-200_manual.txt"`` -> ``"Acme X-200"``) or title;
3. a model-number-like token in the chunk itself (``"XR-500"``, ``"225B"``);
4. the previous signature's model.

The document's name for itself outranks a token in a chunk on purpose: a chunk of a
manual that mentions an accessory or a standard (``"USB 3.1"``) must not take that for
the manual's model. Everything is generic: no rule names a product, brand or model.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from ..deciders import DocContext
from ..types import CNM, Chunk
from ._text import content_lines, leading_headings, words
from .lexicon import CategoryEntry, Lexicon

__all__ = ["OfflineCNMExtractor", "clean_file_stem", "document_model", "find_model_tokens"]

# Words that describe a document's type, not the thing it is about.
_DOC_WORDS = frozenset(
    """user users manual manuals guide guides handbook instructions instruction owner owners owner's quick start
    reference documentation docs doc contents table of the and for copy draft final version rev edition english
    en eng us uk de fr online pdf print full complete setup installation operating operation service""".split()
)
_EXTENSIONS = re.compile(r"(?:\.(?:txt|md|markdown|rst|pdf|html?|docx?|odt|rtf|json|xml|csv|epub))+$", re.I)
_VERSION_TAIL = re.compile(r"(?:[\s_-]+(?:v\d+(?:\.\d+)*|\d{4}-\d{2}(?:-\d{2})?|\d{8}|copy|final|draft))+$", re.I)
# A model-number-like token: letters and digits mixed (X-200, 225B, SM-G950U), at most 16 characters.
_MODEL_TOKEN = re.compile(r"(?<![\w-])(?=[\w+-]*\d)(?=[\w+-]*[A-Za-z])[A-Za-z0-9][\w+-]{1,15}(?![\w-])")
# Tokens that look like models but are units, standards or codes.
_NOT_MODEL = re.compile(
    r"^(?:\d+(?:[kmgt]i?b|[kmg]?bps|[kmg]?hz|w|v|a|mah|mm|cm|m|kg|g|mp|p|x|s|fps|db|nm)|"
    r"\d+(?:st|nd|rd|th)|mp\d|[a-z]+\d{6,}|\d{1,2}[a-z]\d*)$",
    re.I,
)
_HASHLIKE = re.compile(r"^[\W\d_]*$|^[0-9a-f]{8,}$|^(?:doc|document|file|untitled|scan|img)[\W_\d]*$", re.I)


def clean_file_stem(source: str) -> str | None:
    """Turn a file name or path into a readable name, or None when it names nothing.

    ``"/data/Acme_X-200_User_Manual.txt"`` -> ``"Acme X-200"``. Underscores become spaces,
    extensions, version tails and document-type words at the ends are dropped; hashes,
    numbers and generic names (``doc_1``, ``untitled``) give None.
    """
    name = PureWindowsPath(PurePosixPath(source.strip()).name).name
    name = _EXTENSIONS.sub("", name)
    name = _VERSION_TAIL.sub("", name)
    parts = [p for p in re.split(r"[_\s]+", name) if p]
    while parts and parts[-1].lower().strip(".-") in _DOC_WORDS:
        parts.pop()
    while parts and parts[0].lower().strip(".-") in _DOC_WORDS:
        parts.pop(0)
    cleaned = " ".join(parts).strip(" .-")
    if not cleaned or _HASHLIKE.match(cleaned):
        return None
    return cleaned


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _is_doc_words(line: str) -> bool:
    tokens = [t for t in re.split(r"[\W_]+", line.lower()) if t]
    return not tokens or all(t in _DOC_WORDS for t in tokens)


def find_model_tokens(text: str) -> list[str]:
    """Model-number-like tokens in ``text`` (``"X-200"``, ``"225B"``), most frequent first."""
    counts: Counter[str] = Counter()
    for match in _MODEL_TOKEN.finditer(text):
        token = match.group().strip("-+")
        if len(token) >= 3 and not _NOT_MODEL.match(token) and not token.isdigit():
            counts[token] += 1
    return [token for token, _ in counts.most_common()]


def _cover_lines(text: str, limit: int = 8) -> list[str]:
    """The short name-like lines that open a document.

    The cover ends at the first line of body text, or just after the first line made only
    of document-type words (``User Manual``) that follows a name line.
    """
    out: list[str] = []
    for line in content_lines(text[:4000], limit):
        if len(line) > 60 or line[-1] in ".!?:;," or len(line.split()) > 8:
            break
        out.append(line)
        if _is_doc_words(line) and any(not _is_doc_words(earlier) for earlier in out[:-1]):
            break
    return out


def _score_cover_line(line: str, names: list[str]) -> float:
    if _is_doc_words(line):
        return -5.0
    score = 0.0
    key = _norm(line)
    for name in names:
        other = _norm(name)
        if key and other and (key == other or key in other or other in key):
            score += 3.0
    if find_model_tokens(line) or re.search(r"[A-Za-z]\w*\s+\d", line):
        score += 2.0
    words_ = line.split()
    if len(words_) == 1 and line.isupper() and not any(c.isdigit() for c in line):
        score -= 3.0  # a lone capitalised word on a cover is usually a brand or logo
    elif len(words_) >= 2 and line[0].isupper():
        score += 0.5
    return score


def document_model(doc: DocContext) -> str | None:
    """The model a document names for itself (hints, cover text, file name), or None."""
    hint = doc.hints.get("model") or doc.metadata.get("model")
    if hint:
        return str(hint)
    names: list[str] = [str(n) for n in (doc.hints.get("title"), doc.metadata.get("title")) if n]
    source = doc.hints.get("source") or doc.metadata.get("source")
    stem = clean_file_stem(str(source)) if source else None
    if stem:
        names.append(stem)
    cover = _cover_lines(doc.text)
    scored = []
    for i, line in enumerate(cover):
        score = _score_cover_line(line, names)
        if i + 1 < len(cover) and _is_doc_words(cover[i + 1]) and not _is_doc_words(line):
            score += 1.5  # the name printed just above "User Manual" / "Owner's Guide"
        scored.append((score, -i, line))
    best = max(scored, default=None)
    if best is not None and best[0] >= 2.0:
        return best[2]
    for name in names:
        cleaned = clean_file_stem(name) if name is stem else name
        if cleaned and not _is_doc_words(cleaned):
            return cleaned
    return None


@dataclass(frozen=True)
class _Profile:
    category: str | None
    model: str | None


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
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings, not the lock or the per-document profile cache (workers rebuild them)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_profiles")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._profiles = {}
        self._lock = threading.Lock()

    def extract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Return a fresh signature for ``chunk`` (see the module docstring for the model's sources)."""
        profile = self._profile(doc)
        model = profile.model
        if model is None:
            tokens = find_model_tokens(chunk.text)
            model = tokens[0] if tokens else (previous.model if previous else None)
        category = profile.category or (previous.category if previous else None)
        return CNM(category=category, nouns=self.nouns(chunk.text), model=model)

    async def aextract(self, chunk: Chunk, doc: DocContext, previous: CNM | None) -> CNM:
        """Async :meth:`extract` (the work is CPU-only and quick)."""
        return self.extract(chunk, doc, previous)

    def nouns(self, text: str) -> list[str]:
        """One or two key nouns: the chunk's most specific opening heading, else its salient terms."""
        heads = leading_headings(text)
        if heads:
            return [heads[-1]]
        terms = [w for w, _ in Counter(words(text[:3000])).most_common(self.max_nouns * 3)]
        return terms[: self.max_nouns]

    def _profile(self, doc: DocContext) -> _Profile:
        key = (doc.doc_id, len(doc.text), hash(doc.text[:4096]), tuple(sorted(doc.hints.items())))
        with self._lock:
            cached = self._profiles.get(key)
        if cached is not None:
            return cached
        profile = _Profile(category=self._category(doc), model=document_model(doc))
        with self._lock:
            if len(self._profiles) > 512:
                self._profiles.clear()
            self._profiles[key] = profile
        return profile

    def _category(self, doc: DocContext) -> str | None:
        hinted = doc.hints.get("category") or doc.metadata.get("category")
        if hinted:
            return str(hinted)
        names = " ".join(str(doc.hints.get(k) or "") for k in ("title", "source"))
        names = names.replace("_", " ")
        cover = "\n".join(_cover_lines(doc.text))
        return self.lexicon.categorize(names=names, cover=cover, body=doc.text[: self.body_chars])
