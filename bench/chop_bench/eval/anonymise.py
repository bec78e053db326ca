"""The anonymised manuals: covers blanked with every offset unchanged, files named by hashes.

Without a readable file name and without the cover that names the model, a
signature can only guess the document's identity; this corpus checks that CHOP
then does no harm (it must not fall below LumberChunker with no prefix).

Built in memory from the loaded :class:`.corpus.Corpus` (nothing is written,
least of all into the repository):

- the cover, i.e. the text before the manual's first section in ``sections.jsonl``,
  becomes spaces, newlines kept, so the text keeps its length and every offset
  (sections, gold spans) stays valid;
- each manual is renamed to the first 10 hex digits of the SHA-1 of its name
  (``Galaxy_A20`` -> ``c4c5d8a1e5``-style), and the queries' gold documents and
  the sections are mapped to the new names; the query texts are unchanged.

:func:`coded` only renames (``manuals-codes``): the manuals keep their covers and are named ``doc01`` ..
``doc30`` in file-name order, as a folder of exported files named by codes would be.
"""

from __future__ import annotations

import hashlib
import re

from chop_integrations._errors import InputError

from .corpus import Corpus, Query
from .metrics import Gold

__all__ = ["anonymise", "blank", "coded", "hashed_name"]

_NOT_NEWLINE = re.compile(r"[^\n]")


def hashed_name(name: str) -> str:
    """A document's anonymous name: the first 10 hex digits of the SHA-1 of its name."""
    return hashlib.sha1(name.encode("utf-8")).hexdigest()[:10]


def blank(text: str, end: int, start: int = 0) -> str:
    """``text`` with every character in ``[start, end)`` except newlines replaced by a space (same length)."""
    return text[:start] + _NOT_NEWLINE.sub(" ", text[start:end]) + text[end:]


def anonymise(corpus: Corpus) -> Corpus:
    """The corpus with covers blanked and documents renamed by :func:`hashed_name` (see the module docstring).

    Raises:
        InputError: When the corpus has no sections (the cover's end is unknown), when a manual has none,
            or when two names hash alike.
    """
    if not corpus.sections:
        raise InputError("anonymising needs sections.jsonl: the cover is the text before the first section")
    names = {name: hashed_name(name) for name, _ in corpus.docs}
    if len(set(names.values())) != len(names):
        raise InputError("two document names share the first 10 hex digits of their SHA-1")
    docs = []
    for name, text in corpus.docs:
        spans = corpus.sections.get(name)
        if not spans:
            raise InputError(f"anonymising: sections.jsonl has no sections for {name!r}")
        docs.append((names[name], blank(text, min(start for start, _ in spans))))
    sections = {names[name]: list(spans) for name, spans in corpus.sections.items() if name in names}
    queries = [Query(q.qid, q.text, Gold(names[q.gold.doc], q.gold.start, q.gold.end)) for q in corpus.queries]
    return Corpus(docs=docs, sections=sections, queries=queries)


def coded(corpus: Corpus, prefix: str = "doc") -> Corpus:
    """The corpus with its documents renamed ``doc01``, ``doc02`` .. in their order; texts and questions unchanged.

    The gold documents and the sections follow the new names (the map is the documents' order, so it is fixed by
    the file names).
    """
    width = max(2, len(str(len(corpus.docs))))
    names = {name: f"{prefix}{number:0{width}d}" for number, (name, _) in enumerate(corpus.docs, 1)}
    docs = [(names[name], text) for name, text in corpus.docs]
    sections = None
    if corpus.sections is not None:
        sections = {names[name]: list(spans) for name, spans in corpus.sections.items() if name in names}
    queries = [Query(q.qid, q.text, Gold(names[q.gold.doc], q.gold.start, q.gold.end)) for q in corpus.queries]
    return Corpus(docs=docs, sections=sections, queries=queries)
