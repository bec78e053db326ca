"""The families: stores of near-identical documents, one per member of a family, to measure reading names.

CHOP is for stores where documents differ mostly by which member of a family they are (one release note per
version, one manual per model). Four families of per-version release notes, fetched by
``scripts/fetch_families.py`` into ``$CHOP_DOCS_DIR/families``, else ``.cache/docs/families`` (never copied into
the repository), each member's notes one document; the members are fixed here (:data:`FAMILIES`), patch (or
point) releases of neighbouring series, so the documents share their headings (``Bugfixes``, ``Contributors``,
``Security``) and their shape:

- ``django``: Django 3.2.1 .. 3.2.23 (23 members; ``docs/releases/3.2.N.txt`` of the Django 5.0 sdist), titled
  ``Django 3.2.4 release notes``;
- ``numpy``: NumPy 1.19.1 .. 1.24.4, the patch releases (27; ``doc/source/release/*-notes.rst`` of the 1.24.4 sdist),
  titled ``NumPy 1.21.3 Release Notes``;
- ``pandas``: pandas 1.0.1 .. 1.5.3, the patch releases (27; ``whatsnew/v*.rst`` of Debian's python-pandas-doc
  1.5.3), titled ``What's new in 1.4.2 (April 2, 2022)``: the title writes the bare version, the family word only
  in the body;
- ``pillow``: Pillow 8.0.0 .. 10.4.0, every release with notes (24: the quarterly releases and their patch
  releases; ``docs/releasenotes/*.rst`` of the Pillow 10.4.0 sdist), titled with the bare version alone (``10.0.1``,
  no family word, no "release notes"); the project names its releases ``Pillow 10.0.1``, so the exact questions do.

The split BY FAMILY. Fixed on 2026-12-06 before anything ran on any family: ``django`` and ``numpy`` tune,
``pandas`` held out. ``pandas`` was looked at on 2026-12-06 after the first run, so it is a development family now,
with ``django`` and ``numpy`` (:data:`TUNE_FAMILIES`). ``pillow`` is held out (:data:`HELDOUT_FAMILIES`), fixed on
2026-12-06 before anything ran on it: its shape (a title of the bare version alone, point releases of a quarterly
cycle, one document of 500 to 11,000 characters per release) is one the development families lack, and nothing
may be changed because of what a run on it shows.

Two layouts (:data:`LAYOUTS`) of the same documents and questions: ``named``, files named as people name them
(``django-3.2.4-release-notes.txt``, ``numpy_1.21.3_notes.txt``, ``pandas-v1.4.2-whatsnew.txt``,
``pillow-10.0.1-release-notes.txt``), and ``codes``, files named by codes (``doc_07.txt``, numbered in the order
of SHA-256(``<family>:<version>``), so a code says nothing of the version). The document name (the
benchmark's ``metadata["source"]`` is ``<name>.txt``) is the layout's; :attr:`FamilySet.names` maps each member to
it, and the gold documents follow.

Questions: :mod:`.family_questions` (a topic per heading or sentence, asked in the forms ``exact``, ``typed`` and
``absent``); at most :data:`MAX_PER_FORM` per form, taken member by member in turns (every member's first topic,
then every member's second), so each family has at most 150 (django 87, numpy 150, pandas 147, pillow 138; two
members, Django 3.2.20 and NumPy 1.21.6, give no topic and stay in the store as near-identical neighbours).

Suites (:data:`FAMILY_SUITES`): ``family-<key>`` and ``family-<key>-codes``; ``families`` runs the development
families' suites and ``families-heldout`` the held-out one's.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from chop_integrations._errors import ConfigurationError

from .corpus import Corpus, Query
from .family_questions import absent_version, questions_of, topics_of

__all__ = [
    "FAMILIES",
    "FAMILY_SUITES",
    "HELDOUT_FAMILIES",
    "LAYOUTS",
    "MAX_CHARS",
    "MAX_PER_FORM",
    "SUITE_GROUPS",
    "TUNE_FAMILIES",
    "Family",
    "FamilySet",
    "build_family_set",
    "code_names",
    "families_dir",
]

Layout = Literal["named", "codes"]
LAYOUTS: tuple[Layout, ...] = ("named", "codes")
#: At most this many questions of each form per family (three forms: at most 150 questions).
MAX_PER_FORM = 50
#: A member's notes longer than this are cut at the last line break before it (no chosen member is this long).
MAX_CHARS = 20_000
FETCH = "python scripts/fetch_families.py"


def _patches(series: dict[str, int]) -> tuple[str, ...]:
    """``{"3.2": 3}`` -> ``("3.2.1", "3.2.2", "3.2.3")``: the patch releases of each series, in order."""
    return tuple(f"{s}.{n}" for s, last in series.items() for n in range(1, last + 1))


@dataclass(frozen=True)
class Family:
    """One family and its fixed members.

    Attributes:
        key: The family's key (``django``), its folder under :func:`families_dir`.
        word: The family's word as its documents write it (``Django``), for typed questions.
        title: How the exact questions name a member, ``{v}`` the version: as its title writes it (``"Django {v}"``;
            pandas: ``"{v}"``), or, where the title is the bare version alone, as the project names its releases
            (pillow: ``"Pillow {v}"``, the family word known here though the title lacks it).
        file: The member's file in the fetched folder (``"{v}.txt"``).
        named: The member's document name in the ``named`` layout (``"django-{v}-release-notes"``).
        members: The versions, in order.
    """

    key: str
    word: str
    title: str
    file: str
    named: str
    members: tuple[str, ...]


FAMILIES: dict[str, Family] = {
    "django": Family("django", "Django", "Django {v}", "{v}.txt", "django-{v}-release-notes", _patches({"3.2": 23})),
    "numpy": Family(
        "numpy",
        "NumPy",
        "NumPy {v}",
        "{v}-notes.rst",
        "numpy_{v}_notes",
        _patches({"1.19": 5, "1.20": 3, "1.21": 6, "1.22": 4, "1.23": 5, "1.24": 4}),
    ),
    "pandas": Family(
        "pandas",
        "pandas",
        "{v}",
        "v{v}.rst.txt",
        "pandas-v{v}-whatsnew",
        _patches({"1.0": 5, "1.1": 5, "1.2": 5, "1.3": 5, "1.4": 4, "1.5": 3}),
    ),
    "pillow": Family(
        "pillow",
        "Pillow",
        "Pillow {v}",
        "{v}.rst",
        "pillow-{v}-release-notes",
        (
            *("8.0.0", "8.0.1", "8.1.0", "8.1.1", "8.1.2", "8.2.0", "8.3.0", "8.3.1", "8.3.2", "8.4.0"),
            *("9.0.0", "9.0.1", "9.1.0", "9.1.1", "9.2.0", "9.3.0", "9.4.0", "9.5.0"),
            *("10.0.0", "10.0.1", "10.1.0", "10.2.0", "10.3.0", "10.4.0"),
        ),
    ),
}
#: The development families (tuned on; ``pandas`` was held out until it was looked at after the first run).
TUNE_FAMILIES: tuple[str, ...] = ("django", "numpy", "pandas")
#: Held out: fixed before anything ran on it; nothing is changed because of what a run on it shows.
HELDOUT_FAMILIES: tuple[str, ...] = ("pillow",)
#: Suite name -> (family, layout).
FAMILY_SUITES: dict[str, tuple[str, Layout]] = {
    f"family-{key}{'' if layout == 'named' else '-' + layout}": (key, layout)
    for key in (*TUNE_FAMILIES, *HELDOUT_FAMILIES)
    for layout in LAYOUTS
}
#: Names that run several family suites.
SUITE_GROUPS: dict[str, tuple[str, ...]] = {
    "families": tuple(s for s, (key, _) in FAMILY_SUITES.items() if key in TUNE_FAMILIES),
    "families-heldout": tuple(s for s, (key, _) in FAMILY_SUITES.items() if key in HELDOUT_FAMILIES),
}


def families_dir(docs_dir: Path | None = None) -> Path:
    """Where the families are: ``<docs_dir>/families`` (by default ``$CHOP_DOCS_DIR``, else ``.cache/docs``)."""
    if docs_dir is None:
        env = os.environ.get("CHOP_DOCS_DIR")
        docs_dir = Path(env) if env else Path(__file__).resolve().parents[3] / ".cache" / "docs"
    return docs_dir / "families"


def code_names(family: Family) -> dict[str, str]:
    """Member -> ``doc_NN``, numbered in the order of SHA-256(``<key>:<version>``) (from 01)."""
    order = sorted(family.members, key=lambda v: hashlib.sha256(f"{family.key}:{v}".encode()).hexdigest())
    width = max(2, len(str(len(order))))
    return {version: f"doc_{number:0{width}d}" for number, version in enumerate(order, 1)}


def _cut(text: str) -> str:
    text = text.replace("\r\n", "\n")
    return text if len(text) <= MAX_CHARS else text[: text.rfind("\n", 0, MAX_CHARS) + 1]


@dataclass
class FamilySet:
    """A built family: its :class:`Corpus` in one layout, the member -> document name map, and what was read.

    Attributes:
        family: The family's key.
        layout: ``"named"`` or ``"codes"``.
        corpus: One document per member, in member order, and the questions (ids end in ``-exact``, ``-typed``,
            ``-absent``).
        names: Member (version) -> document name in this layout.
        manifest: The archive (``ORIGIN.json``), then one entry per member: version, file, document name,
            characters and SHA-256 of the text used.
    """

    family: str
    layout: str
    corpus: Corpus
    names: dict[str, str] = field(default_factory=dict)
    manifest: list[dict[str, Any]] = field(default_factory=list)


def build_family_set(
    family: str | Family, layout: Layout = "named", *, folder: Path | None = None, max_per_form: int = MAX_PER_FORM
) -> FamilySet:
    """Read a family's members and make its questions (deterministic for the same files).

    Args:
        family: A key of :data:`FAMILIES`, or a :class:`Family` (tests).
        layout: ``"named"`` or ``"codes"``.
        folder: The folder that holds the family's folder (default :func:`families_dir`).
        max_per_form: At most this many questions of each form.

    Raises:
        ConfigurationError: For an unknown family or layout, or a family (or member) not fetched: the message
            names the fetch command.
    """
    spec = FAMILIES.get(family) if isinstance(family, str) else family
    if spec is None:
        raise ConfigurationError(f"unknown family {family!r}: choose from {', '.join(FAMILIES)}")
    if layout not in LAYOUTS:
        raise ConfigurationError(f"unknown layout {layout!r}: choose from {', '.join(LAYOUTS)}")
    root = (folder if folder is not None else families_dir()) / spec.key
    paths = {v: root / spec.file.format(v=v) for v in spec.members}
    missing = [p.name for p in paths.values() if not p.is_file()]
    if missing:
        raise ConfigurationError(
            f"family {spec.key!r} is not fetched ({len(missing)} of {len(paths)} members missing, e.g. {missing[0]}): "
            f"run `{FETCH} {spec.key}` or pass --docs-dir (looked in {root})"
        )
    codes = code_names(spec)
    names = {v: spec.named.format(v=v) if layout == "named" else codes[v] for v in spec.members}
    origin = root / "ORIGIN.json"
    manifest: list[dict[str, Any]] = [
        {"family": spec.key, **(json.loads(origin.read_text(encoding="utf-8")) if origin.is_file() else {})}
    ]
    docs: list[tuple[str, str]] = []
    per_member: list[list[list[Query]]] = []
    for version in spec.members:
        text = _cut(paths[version].read_text(encoding="utf-8"))
        doc = names[version]
        docs.append((doc, text))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        manifest.append(
            {"member": version, "file": paths[version].name, "name": doc, "characters": len(text), "sha256": digest}
        )
        per_member.append(
            questions_of(
                doc,
                topics_of(text),
                family=spec.key,
                word=spec.word,
                version=version,
                exact_name=spec.title.format(v=version),
                absent_name=spec.title.format(v=absent_version(version, spec.members)),
            )
        )
    depth = max((len(q) for q in per_member), default=0)
    in_turns = [member[n] for n in range(depth) for member in per_member if n < len(member)][:max_per_form]
    queries = [q for triple in in_turns for q in triple]
    return FamilySet(spec.key, layout, Corpus(docs=docs, sections=None, queries=queries), names, manifest)
