r"""Fair baselines: what a user gets for free by putting the document's name or headings in front of each chunk.

A chunk's embedded text alone rarely says which document it comes from; users
with file names get that for free (LangChain users keep ``source`` in front,
LlamaIndex's ``SimpleDirectoryReader`` embeds ``file_path``). CHOP must beat
these, not only bare chunks. Each suffix below wraps any base strategy (the same
chunks, the same offsets; only the embedded text changes):

- ``<base>+name``: ``"<title>\n\n"`` in front of every chunk, the title being the
  file name's stem with ``_`` as spaces (``Galaxy_A20.txt`` -> ``Galaxy A20``): the
  same information as the ``source`` that CHOP receives
  (:meth:`.strategies.Engine.metadata`), in the form a user who sets a title from
  the file name has. (The literal ``Galaxy_A20.txt`` would be weaker under BM25,
  whose tokeniser keeps ``galaxy_a20`` as one word that no question contains.)
- ``<base>+header``: a contextual chunk header, the no-LLM form of dsRAG's
  AutoContext and Anthropic's Contextual Retrieval: ``"<title>\n<heading
  path>\n\n"``, the heading path (``Section > Subsection``) read at the chunk's
  first non-blank character with the standard markdown/setext/rst/numbered
  detector of :mod:`.headings`. On the plain-text manuals that detector finds
  nothing (0 headings in the 30 manuals: their headings are plain lines), so
  there this row is ``+name``.
- ``<base>+header-ours``: the same with this package's structural heading
  detector (:func:`chop_integrations.split_units`' heading units),
  which does find the manuals' plain-line headings (11 954 heading units in the
  30 manuals, against 8 860 sections in ``sections.jsonl``); the strongest form
  of the baseline.

``llamaindex``: LlamaIndex's default ingestion, through real LlamaIndex objects:
the documents written to files and read by ``SimpleDirectoryReader`` (so its own
metadata and its own excluded keys apply), split by ``SentenceSplitter()`` with
its defaults (1024 tokens, 200 overlap, metadata-aware), each node's embedded
text rendered with ``MetadataMode.EMBED`` (``"file_path: ...\n\n<text>"``).
``file_path`` is rewritten from the temporary folder to ``/data/docs/<file
name>`` so the embedded text, and the embedding cache, do not change between runs.
"""

from __future__ import annotations

import bisect
import gc
import logging
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chop_integrations._errors import InputError

from .headings import detect_headings, heading_path
from .strategies import Piece, Strategy, align_starts, corpus_key, model_name

__all__ = [
    "PREFIX_KINDS",
    "LlamaIndexDefault",
    "Prefixed",
    "file_name",
    "header_text",
    "our_heading_paths",
    "timed_pieces",
]

#: The suffixes :class:`Prefixed` understands.
PREFIX_KINDS: tuple[str, ...] = ("name", "header", "header-ours")
#: Most headings a path keeps (the innermost ones).
MAX_PATH = 3
#: Where the ``llamaindex`` baseline says its files lie (a stable stand-in for the user's folder).
LLAMAINDEX_DIR = "/data/docs"


def file_name(doc_name: str) -> str:
    """The file name a document has in the benchmark: ``<name>.txt`` (CHOP's ``source``, LlamaIndex's file)."""
    return f"{doc_name}.txt"


def title_of(doc_name: str) -> str:
    """The title a user derives from the file name: the stem with ``_`` as spaces (``Galaxy_A20`` -> ``Galaxy A20``)."""
    return model_name(doc_name)


def name_text(doc_name: str) -> str:
    """The ``+name`` prefix: the title and a blank line."""
    return f"{title_of(doc_name)}\n\n"


def header_text(doc_name: str, path: Sequence[str]) -> str:
    """A contextual chunk header: the title, then the heading path on its own line when there is one."""
    lines = [title_of(doc_name)]
    if path:
        lines.append(" > ".join(path[-MAX_PATH:]))
    return "\n".join(lines) + "\n\n"


def _first_content(text: str, start: int, end: int) -> int:
    """The offset of the first non-blank character of ``text[start:end]`` (``start`` when there is none)."""
    stripped = len(text[start:end]) - len(text[start:end].lstrip())
    return start + stripped if stripped < end - start else start


def standard_heading_paths(text: str, offsets: Sequence[int]) -> list[list[str]]:
    """The :mod:`.headings` path at each offset."""
    headings = detect_headings(text)
    return [heading_path(headings, offset) for offset in offsets]


def our_heading_paths(text: str, offsets: Sequence[int]) -> list[list[str]]:
    """The heading path at each offset from this package's structural segmentation.

    The segmentation marks units that open with a heading-like line but gives no
    levels; the path is the chain of heading units that ends at the last one at
    or before the offset: that heading, and the heading-only units directly
    before it (``Getting started`` / ``Charge the battery``), at most
    :data:`MAX_PATH`.
    """
    from chop_integrations._text.segmentation import split_units
    from chop_integrations._text.tokens import default_counter

    units = split_units(text, max_tokens=100_000, token_counter=default_counter())
    heads = [u for u in units if u.heading]
    starts = [u.start for u in heads]
    titles = [u.text.strip().splitlines()[0].lstrip("#").strip() for u in heads]
    bare = [len(u.text.strip().splitlines()) == 1 for u in heads]
    contiguous = [i > 0 and heads[i - 1].end == heads[i].start for i in range(len(heads))]
    paths = []
    for offset in offsets:
        index = bisect.bisect_right(starts, offset) - 1
        path: list[str] = []
        while index >= 0 and len(path) < MAX_PATH:
            path.insert(0, titles[index])
            if not (contiguous[index] and bare[index - 1]):
                break
            index -= 1
        paths.append(path)
    return paths


class Prefixed(Strategy):
    """A base strategy's chunks with the file name (``+name``) or a contextual header in front.

    The base's chunks are computed once per corpus and shared by every variant
    (see :meth:`base_pieces`), so ``lumber``, ``lumber+name`` and
    ``lumber+header`` are the very same chunks; the reported chunking time is the
    base's plus the time to build the prefixes.
    """

    def __init__(self, base: Strategy, kind: str) -> None:
        super().__init__()
        if kind not in PREFIX_KINDS:
            raise ValueError(f"unknown prefix kind {kind!r}: choose from {PREFIX_KINDS}")
        self.base, self.kind = base, kind
        self.name = f"{base.name}+{kind}"
        what = {
            "name": "the title (file name's stem)",
            "header": "title + heading path (markdown/setext/rst/numbered headings)",
            "header-ours": "title + heading path (this package's structural headings)",
        }[kind]
        self.description = f"{base.description}; {what} in front"

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        """The base's pieces with the prefix in front of each embedded text."""
        return timed_pieces(self, docs, progress=progress)[0]

    def add_prefixes(self, docs: Sequence[tuple[str, str]], per_doc: Sequence[Sequence[Piece]]) -> list[list[Piece]]:
        """The prefixed pieces, given the base's pieces of ``docs``."""
        return [self._prefix(name, text, pieces) for (name, text), pieces in zip(docs, per_doc, strict=True)]

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Chunk one document."""
        return self.chunk_corpus([(doc_name, text)], progress=False)[0]

    def _prefix(self, doc_name: str, text: str, pieces: Sequence[Piece]) -> list[Piece]:
        if self.kind == "name":
            return [(s, e, name_text(doc_name) + t) for s, e, t in pieces]
        offsets = [_first_content(text, s, e) for s, e, _ in pieces]
        finder = standard_heading_paths if self.kind == "header" else our_heading_paths
        paths = finder(text, offsets)
        return [(s, e, header_text(doc_name, p) + t) for (s, e, t), p in zip(pieces, paths, strict=True)]


def timed_pieces(
    strategy: Strategy, docs: Sequence[tuple[str, str]], *, progress: bool
) -> tuple[list[list[Piece]], float, float]:
    """A strategy's pieces of ``docs`` and the wall and CPU seconds they took, each base chunking done once.

    A plain strategy's pieces are memoised on the strategy object (``_memo``, keyed by the documents'
    names and text hashes) with the times the first call took; a :class:`Prefixed` one reuses its base's
    and adds the time of building its prefixes. So ``lumber`` and ``lumber+name`` report the same
    chunking time whichever runs first. CPU seconds are the process's (:func:`time.process_time`),
    which neighbours on a shared machine do not inflate as they do wall time. The objects the run holds
    already (the embedding cache, earlier strategies' chunks) are frozen out of the garbage collector while
    a strategy chunks (:func:`gc.freeze`): its full passes would scan them all, so a strategy that makes
    many objects was charged for the benchmark's own data, more the later it ran.
    """
    derive = strategy.add_prefixes if isinstance(strategy, Prefixed) else getattr(strategy, "derive", None)
    if derive is not None:  # a strategy built on a base's chunks (``+name``, ``chop+query``): the base's time too
        per_doc, base_wall, base_cpu = timed_pieces(strategy.base, docs, progress=progress)  # type: ignore[attr-defined]
        wall, cpu = time.perf_counter(), time.process_time()
        prefixed = derive(docs, per_doc)
        return prefixed, base_wall + time.perf_counter() - wall, base_cpu + time.process_time() - cpu
    memo: dict[Any, tuple[list[list[Piece]], float, float]] = strategy.__dict__.setdefault("_memo", {})
    key = corpus_key(docs)
    if key not in memo:
        gc.collect()
        gc.freeze()
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            per_doc = strategy.chunk_corpus(docs, progress=progress)
            memo[key] = (per_doc, time.perf_counter() - wall, time.process_time() - cpu)
        finally:
            gc.unfreeze()
    return memo[key]


class LlamaIndexDefault(Strategy):
    """LlamaIndex's default ingestion (see the module docstring): ``SentenceSplitter`` nodes, ``MetadataMode.EMBED``."""

    name = "llamaindex"
    description = "LlamaIndex SimpleDirectoryReader + SentenceSplitter() defaults, MetadataMode.EMBED (file_path)"
    loads_tiktoken = True

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        """Write the documents to a temporary folder, read them back with LlamaIndex, split, render."""
        from llama_index.core import SimpleDirectoryReader
        from llama_index.core.node_parser import SentenceSplitter

        # It warns, on every reader, that the optional llama-index-readers-file is missing (not needed for .txt).
        logging.getLogger("llama_index.core.readers.file.base").setLevel(logging.ERROR)

        splitter = SentenceSplitter()
        out = []
        with tempfile.TemporaryDirectory() as folder:
            for doc_name, text in docs:
                path = Path(folder) / file_name(doc_name)
                path.write_text(text, encoding="utf-8", newline="")
                (document,) = SimpleDirectoryReader(input_files=[str(path)]).load_data()
                if document.text != text:
                    raise InputError(f"llamaindex: SimpleDirectoryReader changed the text of {doc_name}")
                document.metadata["file_path"] = f"{LLAMAINDEX_DIR}/{file_name(doc_name)}"
                out.append(self._pieces(doc_name, text, splitter.get_nodes_from_documents([document])))
        return out

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Chunk one document."""
        return self.chunk_corpus([(doc_name, text)], progress=False)[0]

    @staticmethod
    def _pieces(doc_name: str, text: str, nodes: Sequence[Any]) -> list[Piece]:
        from llama_index.core.schema import MetadataMode

        pieces = []
        for node in nodes:
            body = node.get_content(metadata_mode=MetadataMode.NONE)
            start = node.start_char_idx
            if start is None or text[start : start + len(body)] != body:
                start = align_starts(text[start or 0 :], [body])[0] + (start or 0)
                if text[start : start + len(body)] != body:
                    raise InputError(f"llamaindex: a node of {doc_name} is not a span of the document")
            embed = node.get_content(metadata_mode=MetadataMode.EMBED)
            if not embed.endswith(body):
                raise InputError(f"llamaindex: the embedded text of a node of {doc_name} does not end with its text")
            if body.strip():
                pieces.append((start, start + len(body), embed))
        return pieces
