"""Five real documents: every chunk's section label names its own section, for both methods and two sizes.

Each test finds the document's sections with its own simple rule written for that one document (a clause title,
an underlined line, a version line), never with the reader under test. A chunk's own section is the last one
that starts at or before the chunk's first character that is not white space. CHOP's offline signature must name
it (its ``nouns`` end with that title, the version above a changelog's subsection included); LumberChunker's
``header_path`` (LlamaIndex's form: the headings above the chunk, the one it opens with being in its text) must be
its ancestors, followed by the section itself when the chunk does not open with its heading.
"""

from __future__ import annotations

import itertools
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from tests.support.data import SHARED_DATA
from tests.support.docs import doc_text

GPL3 = Path("/usr/share/common-licenses/GPL-3")
SEED = SHARED_DATA.parent / "seeds" / "000_63bc3dc4a9e9d73b.txt"


@dataclass(frozen=True)
class Section:
    """A section the test found: where its heading starts, its title (None: no section judged) and its parents.

    ``versioned``: the first parent is a changelog's version, which the section label must name too.
    """

    offset: int
    title: str | None
    parents: tuple[str, ...] = ()
    versioned: bool = False


def _missing(path: Path) -> str:
    """Skip (fail in CI) when a document is not on this machine, as ``tests/support/docs.py`` does."""
    import os

    message = f"{path} is missing"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _gpl3() -> tuple[str, list[Section]]:
    if not GPL3.is_file():
        _missing(GPL3)
    text = GPL3.read_text(encoding="utf-8")
    # Clause titles: two spaces, a number, a title ending with a full stop, alone between blank lines.
    sections = [Section(m.start(1), m.group(1)) for m in re.finditer(r"(?<=\n\n)  (\d{1,2}\. [A-Z][^\n]*\.)\n\n", text)]
    sections.append(Section(text.index("END OF TERMS AND CONDITIONS"), None))
    return text, sections


def _python_licence() -> tuple[str, list[Section]]:
    path = Path(sysconfig.get_paths()["stdlib"], "LICENSE.txt")
    if not path.is_file():
        _missing(path)
    text = path.read_text(encoding="utf-8")
    sections: list[Section] = []
    part = ""
    for m in re.finditer(r"^(\S[^\n]*)\n([=-])\2{2,}\n", text, re.M):
        if m.group(2) == "=":
            part = m.group(1)
            sections.append(Section(m.start(), part))
        else:
            sections.append(Section(m.start(), m.group(1), (part,)))
    return text, sections


def _urllib3() -> tuple[str, list[Section]]:
    text = doc_text("python3-urllib3", "usr/share/doc/python3-urllib3/changelog.gz")
    versions = re.finditer(r"^(\d+\.\d+(?:\.\d+)? \(\d{4}-\d\d-\d\d\))\n-{3,}\n", text, re.M)
    return text, [Section(m.start(), m.group(1), ("Changes",)) for m in versions]


def _rust() -> tuple[str, list[Section]]:
    text = doc_text("rustc", "usr/share/doc/rustc/changelog.gz")
    sections: list[Section] = []
    version = part = ""
    # Versions over ``===``, their parts over ``---``, and a few ``#### std`` headings inside a part.
    for m in re.finditer(r"^([^\s=-][^\n]*)\n([=-])\2{2,}\n|^#### ([^\n]+)\n", text, re.M):
        if m.group(3):
            sections.append(Section(m.start(), m.group(3), (version, part), versioned=True))
        elif m.group(2) == "=":
            version = m.group(1)
            assert version.startswith("Version "), version
            sections.append(Section(m.start(), version))
        else:
            part = m.group(1)
            sections.append(Section(m.start(), part, (version,), versioned=True))
    return text, sections


def _seed() -> tuple[str, list[Section]]:
    if not SEED.is_file():
        _missing(SEED)
    text = SEED.read_text(encoding="utf-8")
    sections: list[Section] = []
    chapter = ""
    # Numbered (``2. Methodik``) and lettered (``A. CNM-Extractor``) titles, each a paragraph of its own.
    for m in re.finditer(r"(?<=\n\n)(([0-9]|[A-Z])\. [^\n]+)\n\n", text):
        if m.group(2).isdigit():
            chapter = m.group(1)
            sections.append(Section(m.start(1), chapter))
        else:
            sections.append(Section(m.start(1), m.group(1), (chapter,)))
    return text, sections


DOCUMENTS = {"gpl3": _gpl3, "python-licence": _python_licence, "urllib3": _urllib3, "rust": _rust, "seed": _seed}


def _own_section(text: str, sections: list[Section], start: int, end: int) -> tuple[Section, bool] | None:
    """The section a chunk ``[start, end)`` is in, and whether the chunk opens with its heading; None: not judged."""
    first = start + len(text[start:end]) - len(text[start:end].lstrip())
    if first == end:
        return None  # white space only: in no section
    own = [s for s in sections if s.offset <= first]
    if not own or own[-1].title is None:
        return None
    return own[-1], own[-1].offset == first


def _words(title: str) -> str:
    return " ".join(title.split())


def _same(titles: list[str], expected: list[str]) -> bool:
    return [t.rstrip(".") for t in titles] == [t.rstrip(".") for t in expected]


@pytest.mark.parametrize("max_tokens", [None, 100])
@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_chop_names_each_chunks_own_section(name: str, max_tokens: int | None) -> None:
    text, sections = DOCUMENTS[name]()
    assert len(sections) >= 5
    options = {} if max_tokens is None else {"max_tokens": max_tokens}
    chunks = CHOPChunker(prefix="fixed", **options).chunk(text, metadata={"source": f"{name}.txt"})
    judged = wrong = 0
    examples = []
    for chunk in chunks:
        found = _own_section(text, sections, chunk.start, chunk.end)
        if found is None:
            continue
        section = found[0]
        assert chunk.cnm is not None and section.title is not None
        expected = [_words(p) for p in (*section.parents, section.title) if p]
        nouns = [_words(n) for n in chunk.cnm.nouns]
        # the innermost noun is the section (a title's closing full stop may go); a changelog's version is there
        ok = _same(nouns[-1:], expected[-1:]) and (not section.versioned or nouns[0] == expected[0])
        judged += 1
        if not ok:
            wrong += 1
            examples.append((chunk.start, nouns, expected))
    assert judged >= 5
    assert wrong == 0, examples[:5]


@pytest.mark.parametrize("max_tokens", [None, 100])
@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_lumberchunker_header_path_is_the_chunks_own(name: str, max_tokens: int | None) -> None:
    text, sections = DOCUMENTS[name]()
    options = {} if max_tokens is None else {"max_tokens": max_tokens}
    chunks = LumberChunker(**options).chunk(text, metadata={"source": f"{name}.txt"})
    judged = 0
    wrong = []
    for chunk in chunks:
        found = _own_section(text, sections, chunk.start, chunk.end)
        if found is None:
            continue
        section, opens = found
        assert section.title is not None
        path = [*section.parents] + ([] if opens else [section.title])
        expected = "/" + "".join(f"{_words(p)}/" for p in path if p)
        judged += 1
        if chunk.metadata["header_path"] != expected:
            wrong.append((chunk.start, chunk.metadata["header_path"], expected))
    assert judged >= 5
    assert not wrong, wrong[:5]


def test_the_adaptive_prefix_names_a_changelogs_version_above_its_section() -> None:
    text = doc_text("rustc", "usr/share/doc/rustc/changelog.gz")
    start = text.index("Version 1.63.0 (2022-08-11)")
    part = text[start : text.index("Version 1.62.1", start)]
    other = part.replace("1.63.0", "9.63.0")
    chunks = CHOPChunker(max_tokens=100).chunk_many(
        [part, other], metadatas=[{"title": "Rust stable"}, {"title": "Rust nightly"}]
    )
    stabilized = [c.prefix for c in chunks[0] if c.cnm is not None and c.cnm.nouns[-1:] == ["Stabilized APIs"]]
    assert stabilized
    assert all("Version 1.63.0 (2022-08-11) > Stabilized APIs" in prefix for prefix in stabilized)


@pytest.mark.parametrize("language", ["de", "zh-cn"])
def test_debian_reference_labels_are_its_numbered_sections_never_its_shell_comments(language: str) -> None:
    # Sections start at column 0 (``2.1.6. Paketabhängigkeiten``, ``Kapitel 9.``, ``第 9 章``); the body and its
    # shell examples (``# set CDPATH to a good one``, ``$ ls``) are indented.
    text = doc_text(f"debian-reference-{language}", f"usr/share/debian-reference/debian-reference.{language}.txt.gz")
    lines = text.splitlines()
    titles = {re.sub(r"\W", "", line) for line in lines if line[:1].strip()}
    # a title wrapped onto a second column-0 line (``... Oberfläche`` / ``(GUI)``) is both lines
    titles |= {re.sub(r"\W", "", a + b) for a, b in itertools.pairwise(lines) if a[:1].strip() and b[:1].strip()}
    numbered = re.compile(
        r"^(?:\d+(?:\.\d+)*\.|[A-Z]\.\d+(?:\.\d+)*\.|Kapitel \d+\.|Anhang [A-Z]\.|第 \d+ 章|附录 [A-Z]\.)"
    )
    body = text.index("\n1.1. ") if language == "de" else text.index("\n1.1.")  # past the table of contents
    chunks = CHOPChunker(prefix="fixed").chunk(text, metadata={"source": "debian-reference.txt"})
    labels = [_words(c.cnm.nouns[-1]) for c in chunks if c.cnm is not None and c.cnm.nouns and c.start > body]
    # a column-0 line (or two: a wrapped title), never an example's; a signature keeps a long title's start
    assert all(any(title.startswith(re.sub(r"\W", "", label)) for title in titles) for label in labels)
    assert not [label for label in labels if label.startswith(("#", "$"))]
    in_body = [c for c in chunks if c.start > body]
    assert sum(1 for label in labels if numbered.match(label)) >= 0.9 * len(in_body)
