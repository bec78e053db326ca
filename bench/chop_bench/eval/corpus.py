"""Reading a benchmark corpus: ``manuals/*.txt``, an optional ``sections.jsonl``, and a queries file.

The corpus is never copied into the project; the benchmark takes its path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chop_integrations._errors import ConfigurationError, InputError

from .metrics import Gold


@dataclass(frozen=True)
class Query:
    """One benchmark question and its gold answer."""

    qid: str
    text: str
    gold: Gold


@dataclass
class Corpus:
    """Documents (name = file stem, text), gold sections per document, and the queries.

    Attributes:
        docs: ``(name, text)`` pairs in file-name order.
        sections: ``name -> [(start, end), ...]`` from ``sections.jsonl``, or ``None`` without one.
        queries: The queries whose gold document is among ``docs``.
    """

    docs: list[tuple[str, str]]
    sections: dict[str, list[tuple[int, int]]] | None
    queries: list[Query] = field(default_factory=list)

    @property
    def characters(self) -> int:
        """Total characters of the documents."""
        return sum(len(text) for _, text in self.docs)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise InputError(f"{path}:{number}: not valid JSON ({err})") from err
    return rows


def load_corpus(
    corpus_dir: Path, queries_file: Path | None, *, max_docs: int | None = None, max_queries: int | None = None
) -> Corpus:
    """Read the manuals (the first ``max_docs`` by file name), sections and queries.

    Queries whose gold manual was not loaded are dropped; then the first
    ``max_queries`` are kept.

    Raises:
        ConfigurationError: When the folder has no ``manuals/*.txt``.
        InputError: When a query names a span outside its manual or a file is malformed.
    """
    files = sorted((corpus_dir / "manuals").glob("*.txt"))
    if not files:
        raise ConfigurationError(f"{corpus_dir} has no manuals/*.txt: pass --corpus the folder that holds manuals/")
    if max_docs is not None:
        files = files[:max_docs]
    docs = [(f.stem, f.read_text(encoding="utf-8")) for f in files]
    lengths = {name: len(text) for name, text in docs}
    sections: dict[str, list[tuple[int, int]]] | None = None
    sections_file = corpus_dir / "sections.jsonl"
    if sections_file.is_file():
        sections = {}
        for row in _read_jsonl(sections_file):
            if row["manual"] in lengths:
                sections.setdefault(row["manual"], []).append((int(row["start"]), int(row["end"])))
    queries: list[Query] = []
    for row in _read_jsonl(queries_file) if queries_file is not None else []:
        manual = row["manual"]
        if manual not in lengths:
            continue
        start, end = int(row["start"]), int(row["end"])
        if not 0 <= start < end <= lengths[manual]:
            raise InputError(f"query {row.get('qid')}: span {start}-{end} lies outside {manual} ({lengths[manual]})")
        queries.append(Query(str(row.get("qid", len(queries))), str(row["query"]), Gold(manual, start, end)))
    if max_queries is not None:
        queries = queries[:max_queries]
    return Corpus(docs=docs, sections=sections, queries=queries)
