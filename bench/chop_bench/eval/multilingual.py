"""The multilingual sets: German and Chinese manuals nobody on this project wrote, with heading-made questions.

The documents are the plain-text editions of three Debian manuals, each in German and in Chinese, read from the
Debian packages ``scripts/fetch_docs.py`` unpacks (never copied into the repository) into ``$CHOP_DOCS_DIR``, else
``.cache/docs`` in the checkout, or the folder given as ``--docs-dir``:

- ``multilingual`` (the development set): the Debian Reference (``debian-reference-de``, ``debian-reference-zh-cn``);
- ``multilingual-heldout``: the Debian New Maintainers' Guide (``maint-guide-de``, ``maint-guide-zh-cn``) and the
  Debian FAQ (``debian-faq-de``, ``debian-faq-zh-cn``), fixed on 2026-12-01 with the development set, before
  anything was tuned on either.

Each manual is split into one document per chapter (its ``Kapitel N.`` / ``第 N 章`` heading of
:func:`~.headings.gold_headings` up to the next one); the front matter before the first chapter (title page, the
table of contents, the preface) is dropped. A chapter longer than :data:`MAX_CHARS` is cut at the last line break
before it, as the general set's documents are (the cut keeps a run practical on two cores). A document's name is
the manual's and the chapter's number (``debian-reference.de#02``), so its language is in every question id.

Questions, as the general sets make them (:mod:`.general`): for every heading of :func:`~.headings.gold_headings`
with at least :data:`~.general.MIN_BODY_WORDS` words of body before the next heading (a Chinese text has no spaces:
there two ideographs count as one word), at most :data:`~.general.MAX_PER_DOC` per document spread evenly, a
``plain`` question (the heading without its number) when no other document has the same heading, and a ``named``
one that also names the manual in the document's language (``"Debian-Referenz: Paketabhängigkeiten"``). Gold = the
document and the section's span, from the heading to the next heading. Headings that occur twice in a document are
skipped. The report gives each language (``de``, ``zh``) its own table (:data:`.splits.LANGS`).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .corpus import Corpus, Query
from .general import MAX_PER_DOC, MIN_BODY_WORDS
from .headings import Heading, clean_heading, gold_headings
from .metrics import Gold

__all__ = [
    "DEV_SOURCES",
    "HELDOUT_SOURCES",
    "MAX_CHARS",
    "ManualSource",
    "MultilingualSet",
    "build_multilingual_set",
    "chapters",
    "docs_dir",
    "questions_for",
]

#: A chapter longer than this is cut at the last line break before it (chapters of the Debian Reference run to
#: 150 000 characters; the cut keeps the two sets at about 0.6 and 0.5 million characters).
MAX_CHARS = 20_000
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER = re.compile(
    r"^(?:(?:Kapitel|Chapter|Anhang|Appendix|附录)\s+)?(?:\d{1,3}(?:\.\d{1,3})*\.?|[A-Z](?:\.\d{1,3})*\.)\s+|^第\s*\d+\s*章\s*"
)


@dataclass(frozen=True)
class ManualSource:
    """One manual in one language.

    Attributes:
        name: The manual's name in document names (``debian-reference.de``).
        lang: ``"de"`` or ``"zh"``.
        label: How a reader of that language names the manual (``"Debian-Referenz"``).
        package: The Debian package that holds it.
        file: The gzipped plain-text file inside the package.
    """

    name: str
    lang: str
    label: str
    package: str
    file: str


DEV_SOURCES: tuple[ManualSource, ...] = (
    ManualSource(
        "debian-reference.de",
        "de",
        "Debian-Referenz",
        "debian-reference-de",
        "usr/share/debian-reference/debian-reference.de.txt.gz",
    ),
    ManualSource(
        "debian-reference.zh-cn",
        "zh",
        "Debian 参考手册",
        "debian-reference-zh-cn",
        "usr/share/debian-reference/debian-reference.zh-cn.txt.gz",
    ),
)
HELDOUT_SOURCES: tuple[ManualSource, ...] = (
    ManualSource(
        "maint-guide.de",
        "de",
        "Leitfaden für neue Debian-Betreuer",
        "maint-guide-de",
        "usr/share/doc/maint-guide-de/maint-guide.de.txt.gz",
    ),
    ManualSource(
        "maint-guide.zh-cn",
        "zh",
        "Debian 新维护人员手册",
        "maint-guide-zh-cn",
        "usr/share/doc/maint-guide-zh-cn/maint-guide.zh-cn.txt.gz",
    ),
    ManualSource("debian-faq.de", "de", "Debian-FAQ", "debian-faq-de", "usr/share/doc/debian/FAQ/debian-faq.de.txt.gz"),
    ManualSource(
        "debian-faq.zh-cn",
        "zh",
        "Debian 常见问题",
        "debian-faq-zh-cn",
        "usr/share/doc/debian/FAQ/debian-faq.zh-cn.txt.gz",
    ),
)


def docs_dir(override: Path | None = None) -> Path:
    """Where the unpacked packages are: ``override``, else ``$CHOP_DOCS_DIR``, else ``.cache/docs`` (the checkout's)."""
    if override is not None:
        return override
    env = os.environ.get("CHOP_DOCS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".cache" / "docs"


def _chapter(heading: Heading) -> bool:
    return heading.level == 1 and heading.title.startswith(("Kapitel", "Chapter", "Anhang", "Appendix", "附录", "第"))


def chapters(text: str) -> list[str]:
    """The chapters of a manual's text (front matter dropped), each cut at :data:`MAX_CHARS`."""
    text = text.replace("\r\n", "\n")
    starts = [h.start for h in gold_headings(text) if _chapter(h)]
    out = []
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        chapter = text[start:end]
        if len(chapter) > MAX_CHARS:
            chapter = chapter[: chapter.rfind("\n", 0, MAX_CHARS) + 1]
        out.append(chapter)
    return out


def _words(text: str) -> int:
    """Words of ``text``; two CJK ideographs count as one (Chinese has no spaces between words)."""
    ideographs = len(_CJK.findall(text))
    return len(_CJK.sub(" ", text).split()) + ideographs // 2


def _title(heading: Heading) -> str:
    """A heading as a question: cleaned, its number (``2.1.6.``, ``Kapitel 2.``, ``第 2 章``) dropped."""
    return _NUMBER.sub("", clean_heading(heading.title).replace("\xa0", " ")).strip()


def _sections(text: str) -> list[tuple[Heading, str, int]]:
    """``(heading, title, gold end)`` of every gold heading with :data:`MIN_BODY_WORDS` words of body."""
    headings = gold_headings(text)
    out = []
    for index, heading in enumerate(headings):
        limit = headings[index + 1].start if index + 1 < len(headings) else len(text)
        end = len(text[:limit].rstrip())
        if _words(text[heading.body_start : max(end, heading.body_start)]) >= MIN_BODY_WORDS:
            out.append((heading, _title(heading), end))
    return out


def questions_for(name: str, label: str, text: str, *, taken_elsewhere: frozenset[str] = frozenset()) -> list[Query]:
    """The questions of one document (module docstring), ids ``<name>#<n>-plain`` / ``-named``.

    Args:
        name: The document's name (the gold document).
        label: How a reader names the manual, for the ``named`` variant.
        text: The document.
        taken_elsewhere: Lower-cased titles found in other documents (no ``plain`` variant for those).
    """
    counts = Counter(_title(h).lower() for h in gold_headings(text))
    usable = [s for s in _sections(text) if counts[s[1].lower()] == 1 and sum(c.isalpha() for c in s[1]) >= 2]
    if len(usable) > MAX_PER_DOC:
        step = (len(usable) - 1) / (MAX_PER_DOC - 1)
        usable = [usable[round(i * step)] for i in range(MAX_PER_DOC)]
    queries = []
    for number, (heading, title, end) in enumerate(usable):
        gold = Gold(name, heading.start, end)
        if title.lower() not in taken_elsewhere:
            queries.append(Query(f"{name}#{number}-plain", title, gold))
        queries.append(Query(f"{name}#{number}-named", f"{label}: {title}", gold))
    return queries


@dataclass
class MultilingualSet:
    """The built set: a :class:`Corpus` (no ``sections``), each document's language, and what was read.

    Attributes:
        corpus: One document per chapter, manuals in list order, and their questions.
        langs: Document name -> ``"de"`` or ``"zh"``.
        manifest: One entry per manual: name, file, chapters, characters and SHA-256 of the text used, or
            ``"missing": True``.
    """

    corpus: Corpus
    langs: dict[str, str] = field(default_factory=dict)
    manifest: list[dict[str, Any]] = field(default_factory=list)


def build_multilingual_set(
    sources: tuple[ManualSource, ...] = DEV_SOURCES, *, folder: Path | None = None
) -> MultilingualSet:
    """Read the manuals found under :func:`docs_dir` and make the questions (deterministic for the same files)."""
    root = docs_dir(folder)
    docs: list[tuple[str, str]] = []
    labels: dict[str, str] = {}
    langs: dict[str, str] = {}
    manifest: list[dict[str, Any]] = []
    for source in sources:
        path = root / source.package / source.file
        if not path.is_file():
            manifest.append({"name": source.name, "file": str(path), "missing": True})
            continue
        parts = chapters(gzip.decompress(path.read_bytes()).decode("utf-8"))
        for number, text in enumerate(parts, 1):
            name = f"{source.name}#{number:02d}"
            docs.append((name, text))
            labels[name], langs[name] = source.label, source.lang
        joined = "".join(parts)
        manifest.append(
            {
                "name": source.name,
                "file": str(path),
                "chapters": len(parts),
                "characters": len(joined),
                "sha256": hashlib.sha256(joined.encode("utf-8")).hexdigest(),
            }
        )
    titles = {name: {_title(h).lower() for h in gold_headings(text)} for name, text in docs}
    queries: list[Query] = []
    for name, text in docs:
        elsewhere = frozenset().union(*(t for other, t in titles.items() if other != name))
        queries.extend(questions_for(name, labels[name], text, taken_elsewhere=elsewhere))
    return MultilingualSet(Corpus(docs=docs, sections=None, queries=queries), langs, manifest)
