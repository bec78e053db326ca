"""The general-documents set: text nobody on this project wrote, with questions and gold spans made from headings.

Reproducible on a fresh machine after ``pip install -e '.[dev]'``, with no
network and nothing copied into the repository: the documents are read from
files that install puts on the machine (a fixed list, :data:`SOURCES`):

- ``readme``/``changelog``: a distribution's long description (its PyPI page:
  the README, for some with the changelog appended) from ``importlib.metadata``;
- ``licence``: a distribution's licence file, Python's own ``LICENSE.txt``, and
  ``/usr/share/common-licenses/*`` where present (Debian and Ubuntu).

A source that is missing on this machine is skipped; every document used is
recorded with its origin, version and SHA-256 (:attr:`GeneralSet.manifest`),
so two runs can tell whether they read the same text. Several documents are
near-identical on purpose (the Apache-2.0 text ships with several packages and
in common-licenses; MIT licences differ only in their copyright line), as in a
real folder of documents.

Two lists: :data:`SOURCES` (the general set, a development set since it was used to fix the heading reader) and
:data:`HELDOUT_SOURCES` (other documents, fixed before anything ran on them);
:func:`without_headings` blanks a set's heading lines for the ``headless`` suite.

Questions (see :func:`questions_for`): for every heading (:mod:`.headings`)
whose section has real body text (at least :data:`MIN_BODY_WORDS` words between
the heading and the next heading of any level), up to :data:`MAX_PER_DOC` per
document spread evenly over it, two questions with the same gold:

- ``plain``: the cleaned heading text (``"Grant of Patent License"``), only when
  no other document of the set has a heading with the same cleaned text (else the
  question could not tell which document it means);
- ``named``: the heading and the document as a user names it:
  ``"Grant of Patent License in the requests LICENSE"``.

Gold = that document and the section's span: from the heading's first
character to the start of the next heading (any level), trailing whitespace
dropped. Headings whose cleaned text occurs twice in one document are skipped
(ambiguous). Order and selection are deterministic: sources in list order,
headings in document order.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import sysconfig
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .anonymise import blank
from .corpus import Corpus, Query
from .headings import Heading, clean_heading, detect_headings
from .metrics import Gold

__all__ = [
    "HELDOUT_SOURCES",
    "SOURCES",
    "GeneralSet",
    "Source",
    "build_general_set",
    "questions_for",
    "sections_of",
    "without_headings",
]

#: A section needs this many words of body text to get a question (a structural floor, not tuned on any results:
#: a heading followed by one line has nothing to retrieve).
MIN_BODY_WORDS = 20
#: At most this many headings per document get questions, spread evenly, so one long changelog does not dominate.
MAX_PER_DOC = 8
#: Documents longer than this are cut at the last line break before it (a few long descriptions carry a whole
#: changelog of 100 000+ characters; the cut keeps the set's chunking time practical on two cores).
MAX_CHARS = 40_000


@dataclass(frozen=True)
class Source:
    """One entry of the fixed document list.

    Attributes:
        name: The document's name (its file stem in the benchmark).
        kind: ``"readme"``, ``"changelog"`` or ``"licence"``.
        label: How a user names the document in a question ("the requests LICENSE").
        dist: The distribution to read from (``None`` for a file on the system).
        file: Path inside the distribution (a suffix of one of its ``files``), ``"METADATA"`` for the long
            description, or an absolute path / ``"<python>/LICENSE.txt"`` without a distribution.
    """

    name: str
    kind: str
    label: str
    dist: str | None
    file: str


def _readme(dist: str, kind: str = "readme") -> Source:
    stem = dist.replace("-", "_")
    return Source(f"{stem}_README", kind, f"{dist} README", dist, "METADATA")


def _licence(dist: str, file: str = "LICENSE") -> Source:
    stem = dist.replace("-", "_")
    label = f"{dist} {file.removesuffix('.txt')}"
    return Source(f"{stem}_{file.replace('.', '_')}", "licence", label, dist, file)


def _common(name: str) -> Source:
    return Source(f"common-licenses_{name}", "licence", f"{name} licence", None, f"/usr/share/common-licenses/{name}")


#: The fixed list, in order. Every distribution here is installed by ``pip install -e '.[dev]'``.
SOURCES: tuple[Source, ...] = (
    *(
        _readme(d)
        for d in """numpy bm25s sentence-transformers langchain-core openai chonkie matplotlib tiktoken requests urllib3
        httpx huggingface-hub transformers torch pillow nbmake pytest tqdm packaging scikit-learn
        threadpoolctl dataclasses-json jiter ruff""".split()
    ),
    *(_readme(d, "changelog") for d in ("charset-normalizer", "httpcore", "frozenlist", "pydantic", "yarl")),
    Source("python_LICENSE", "licence", "Python LICENSE", None, "<python>/LICENSE.txt"),
    *(_common(n) for n in ("Apache-2.0", "MPL-2.0", "GPL-3", "GPL-2", "LGPL-2.1", "Artistic")),
    _licence("requests"),
    _licence("transformers"),
    _licence("sentence-transformers"),
    _licence("orjson", "LICENSE-MPL-2.0"),
    _licence("numpy", "LICENSE.txt"),
    _licence("matplotlib"),
    _licence("tqdm", "LICENCE"),
    _licence("tiktoken"),
    _licence("openai"),
    _licence("jinja2", "LICENSE.txt"),
    _licence("click", "LICENSE.txt"),
)


#: The held-out general set (``--suite general-heldout``), fixed on 2026-12-01 before any strategy ran on it, after the
#: general set above had become a development set (round 5 used its documents to find heading-reader mistakes). The
#: rule, applied to the distributions that ``pip install -e '.[dev]'`` installs, not to any result: every one not in
#: :data:`SOURCES` (and not this project or the bundled embedding model) whose long description gives at least 12
#: questions (six headings with body text), in alphabetical order; and the four licence files of over 20,000
#: characters among the installed distributions that are not one of :data:`SOURCES`'s texts (bundles of third-party
#: licences). Nothing may be changed because of what a run on it shows.
HELDOUT_SOURCES: tuple[Source, ...] = (
    *(
        _readme(d)
        for d in """aiohttp annotated-doc annotated-types asttokens attrs banks colorama defusedxml distro executing
        filetype fonttools fsspec httpcore2 httpx-sse httpx2 idna jedi joblib jupyter-client langsmith
        llama-index-llms-openai mpmath msgpack narwhals nbclient nltk pandas pathspec portalocker
        prompt-toolkit propcache psutil pydantic-core pytest-recording python-dateutil python-dotenv pyzmq
        qdrant-client regex requests-toolbelt rich sortedcontainers stack-data sympy tinytag tokenizers
        traitlets typer wcwidth xxhash""".split()
    ),
    _licence("pyarrow", "LICENSE.txt"),
    _licence("scipy", "LICENSE.txt"),
    _licence("fonttools", "LICENSE.external"),
    _licence("grpcio"),
)


def _read(source: Source) -> tuple[str, str] | None:
    """``(text, origin)`` of a source, or ``None`` when it is not on this machine."""
    try:
        if source.dist is None:
            path = Path(source.file.replace("<python>", sysconfig.get_paths()["stdlib"]))
            return (path.read_text(encoding="utf-8"), str(path)) if path.is_file() else None
        dist = md.distribution(source.dist)
        origin = f"{source.dist}=={dist.version}"
        if source.file == "METADATA":
            body = dist.metadata.get_payload() or dist.metadata.get("Description") or ""  # type: ignore[attr-defined]
            return (str(body), f"{origin} METADATA long description") if str(body).strip() else None
        for item in sorted(dist.files or [], key=lambda f: (len(str(f)), str(f))):
            if str(item) == source.file or str(item).endswith("/" + source.file):
                return item.read_text(encoding="utf-8"), f"{origin} {item}"
    except (md.PackageNotFoundError, OSError, UnicodeDecodeError):
        return None
    return None


def _cut(text: str) -> str:
    text = text.replace("\r\n", "\n")
    if len(text) <= MAX_CHARS:
        return text
    return text[: text.rfind("\n", 0, MAX_CHARS) + 1]


@dataclass(frozen=True)
class Section:
    """A heading's section: the heading, its cleaned title, and the gold span ``[start, end)``."""

    heading: Heading
    title: str
    start: int
    end: int
    body_words: int


def sections_of(text: str) -> list[Section]:
    """Every heading's section: from the heading to the next heading (trailing whitespace dropped)."""
    headings = detect_headings(text)
    out = []
    for index, heading in enumerate(headings):
        limit = headings[index + 1].start if index + 1 < len(headings) else len(text)
        end = len(text[:limit].rstrip())
        body = text[heading.body_start : max(end, heading.body_start)]
        out.append(Section(heading, clean_heading(heading.title), heading.start, end, len(body.split())))
    return out


def questions_for(
    name: str, label: str, text: str, *, taken_elsewhere: set[str] | frozenset[str] = frozenset()
) -> list[Query]:
    """The questions of one document (see the module docstring), ids ``<name>#<n>-plain`` / ``-named``.

    Args:
        name: The document's name (the gold document).
        label: How a user names it, for the ``named`` variant.
        text: The document.
        taken_elsewhere: Lower-cased cleaned headings found in other documents (no ``plain`` variant for those).
    """
    sections = sections_of(text)
    counts = Counter(s.title.lower() for s in sections)
    usable = [
        s
        for s in sections
        if s.body_words >= MIN_BODY_WORDS and counts[s.title.lower()] == 1 and sum(c.isalpha() for c in s.title) >= 3
    ]
    if len(usable) > MAX_PER_DOC:
        step = (len(usable) - 1) / (MAX_PER_DOC - 1)
        usable = [usable[round(i * step)] for i in range(MAX_PER_DOC)]
    queries = []
    for number, section in enumerate(usable):
        gold = Gold(name, section.start, section.end)
        if section.title.lower() not in taken_elsewhere:
            queries.append(Query(f"{name}#{number}-plain", section.title, gold))
        queries.append(Query(f"{name}#{number}-named", f"{section.title} in the {label}", gold))
    return queries


@dataclass
class GeneralSet:
    """The built set: a :class:`Corpus` (no ``sections``) and what was read from where.

    Attributes:
        corpus: Documents in :data:`SOURCES` order and their questions.
        manifest: One entry per source: name, kind, origin, characters and SHA-256 of the text used,
            or ``"missing": True``.
        kinds: Document name -> kind.
    """

    corpus: Corpus
    manifest: list[dict[str, Any]] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)


def build_general_set(sources: Sequence[Source] = SOURCES) -> GeneralSet:
    """Read the sources present on this machine and make the questions (deterministic for the same files)."""
    docs: list[tuple[str, str]] = []
    labels: dict[str, str] = {}
    manifest: list[dict[str, Any]] = []
    kinds: dict[str, str] = {}
    for source in sources:
        found = _read(source)
        if found is None:
            manifest.append({"name": source.name, "kind": source.kind, "missing": True})
            continue
        text, origin = _cut(found[0]), found[1]
        docs.append((source.name, text))
        labels[source.name], kinds[source.name] = source.label, source.kind
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        manifest.append(
            {"name": source.name, "kind": source.kind, "origin": origin, "characters": len(text), "sha256": digest}
        )
    titles = {name: {s.title.lower() for s in sections_of(text)} for name, text in docs}
    queries: list[Query] = []
    for name, text in docs:
        elsewhere = set().union(*(t for other, t in titles.items() if other != name))
        queries.extend(questions_for(name, labels[name], text, taken_elsewhere=elsewhere))
    return GeneralSet(Corpus(docs=docs, sections=None, queries=queries), manifest, kinds)


def without_headings(general: GeneralSet) -> GeneralSet:
    """The set with every heading line blanked (spaces, newlines kept, so every offset and gold span holds).

    Named documents without headings, as a speech, a chat log or a plain-text article are: a ``plain`` question (the
    heading's words) then describes its section's body, which no heading line repeats. The headings blanked are
    the ones the questions were made from (:func:`~.headings.detect_headings`); heading-like lines that detector
    does not read stay, as they would in such a text.
    """
    docs = []
    for name, text in general.corpus.docs:
        for heading in detect_headings(text):
            text = blank(text, heading.body_start, heading.start)
        docs.append((name, text))
    return GeneralSet(replace(general.corpus, docs=docs), general.manifest, general.kinds)
