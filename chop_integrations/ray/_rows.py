"""Documents in, chunk rows out: the column layout of the Ray adapter, and the prefix fitted on a whole corpus.

Nothing here imports Ray: a batch is a :class:`pyarrow.Table` (what Ray Data hands a ``map_batches`` function
with ``batch_format="pyarrow"``), so the same functions turn a one-process run into the very rows a Ray run
gives, which is how the tests compare the two.

**The adaptive prefix over a split corpus.** ``CHOPChunker(prefix="adaptive")`` chooses the prefix fields from
what a run has seen: the distinct document names (model) and categories of its documents, and the distinct
sections of its chunks (:class:`~chop_integrations._chop.prefix.PrefixPolicy`). Split over actors, each actor
would judge only its share. Every chunk row carries its full signature (category, nouns, model; a chunk's
model and category are its document's own), so the choice a one-process run makes is a function of the rows:
:class:`PrefixStats` gathers the distinct values (a few per field suffice), :func:`fit_choice` asks a fresh
``PrefixPolicy`` to choose from them, exactly as the engine does, and :func:`render_prefixes` renders every
row's prefix under that choice with the policy's own renderer. The chunking itself never depends on the
prefix, so rows rendered afterwards are the one-process rows. The one part of a prefix that needs the document
read in order, whether a section's title came earlier in it under another parent heading (then printed, as
``API > Examples``), is decided by the actor that chunks the whole document and kept in the row
(``_chop_repeated``): the second pass sees rows in blocks, in any order, and never decides it again.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .._checks import batch
from .._chop.base_chunks import METADATA_KEYS, signature_metadata
from .._chop.corpus import CorpusState
from .._chop.prefix import ADAPTIVE, PrefixChoice, PrefixPolicy
from .._chop.records import DOCUMENT_KEY, INDEX_KEY, TEXT_KEY
from .._errors import ConfigurationError, InputError
from .._offline.signature import document_identity
from .._types import CNM, Chunk

__all__ = [
    "CHUNK_COLUMNS",
    "INTERNAL_COLUMNS",
    "FrozenPrefixPolicy",
    "PrefixStats",
    "ProvisionalPrefixPolicy",
    "chunk_table",
    "fit_choice",
    "identity_names",
    "public",
    "render_prefixes",
]

#: The columns every chunk row has, in order; the document's other columns follow them. They are the chunk
#: record every output shares (:data:`~chop_integrations._chop.records.RECORD_KEYS`): the position keys
#: ``chop_document`` (the document's id), ``chop_index`` and ``chop_text`` (the chunk's original text), as the
#: LangChain adapter and the CLI write them and context by continuity reads them, then the offsets, the size,
#: ``embed_text`` and the signature keys with the adapters' names and types
#: (:data:`~chop_integrations._chop.base_chunks.METADATA_KEYS`; null on LumberChunker's rows, which have no
#: signature). So a row's columns, ``embed_text`` aside, are a store's metadata as the retrievers read it.
CHUNK_COLUMNS: dict[str, pa.DataType] = {
    DOCUMENT_KEY: pa.string(),
    INDEX_KEY: pa.int64(),
    TEXT_KEY: pa.string(),
    "start": pa.int64(),
    "end": pa.int64(),
    "token_count": pa.int64(),
    "embed_text": pa.string(),
    "chop_category": pa.string(),
    "chop_nouns": pa.string(),
    "chop_model": pa.string(),
    "chop_prefix": pa.string(),
    "chop_continues": pa.bool_(),
    "chop_model_source": pa.string(),
    "chop_aliases": pa.string(),
}
#: Columns the prefix's second pass needs and no output keeps (:func:`public`): ``_chop_nouns``, the nouns as a
#: list (which ``chop_nouns`` joins) for refitting the prefix, and ``_chop_repeated``, whether the chunk's
#: section title came earlier in its document under another parent
#: (:meth:`~chop_integrations._chop.prefix.PrefixPolicy.repeats`), for rendering it again.
INTERNAL_COLUMNS: dict[str, pa.DataType] = {"_chop_nouns": pa.list_(pa.string()), "_chop_repeated": pa.bool_()}
_ALL_COLUMNS = {**CHUNK_COLUMNS, **INTERNAL_COLUMNS}
#: Distinct values kept per field: the policy only asks "one, or two and more?" (see ``PrefixPolicy.observe``).
_KEEP = 64
#: Joins a heading path into one string to find the distinct paths (CNM values never hold control characters).
_UNIT = "\x1f"


class _CorpusNamesPolicy(PrefixPolicy):
    """An adaptive policy that keeps the corpus's document names it was given.

    Whether a document's prefix prints its name (``PrefixPolicy.carries_name``, by which CHOPChunker's built-in
    chunker sizes its chunks) depends on the document alone, so an actor answers as the one process does without
    them; ``corpus_names`` is kept for callers that pass it (:func:`identity_names`).
    """

    def __init__(self, corpus_names: Iterable[str] | None = None) -> None:
        super().__init__(ADAPTIVE)
        self.corpus_names = None if corpus_names is None else frozenset(n.casefold() for n in corpus_names)


class ProvisionalPrefixPolicy(_CorpusNamesPolicy):
    """The adaptive policy of one actor, remembering its last choice.

    The actor's engine keeps one :class:`~chop_integrations.CorpusState` across its batches
    (see :func:`~chop_integrations.ray.build_engine`).

    Its rows are provisional: right when the choice fitted on the whole corpus renders the same fields
    (usual for large batches: two names and two sections are soon seen), re-rendered otherwise.

    Args:
        corpus_names: The names of every document of the corpus (see :class:`_CorpusNamesPolicy`).
    """

    def __init__(self, corpus_names: Iterable[str] | None = None) -> None:
        super().__init__(corpus_names)
        self.last_choice: PrefixChoice | None = None

    def choose(
        self, documents: Sequence[CNM | None], signatures: Sequence[CNM | None], corpus: CorpusState | None = None
    ) -> PrefixChoice:
        """The adaptive choice, remembered."""
        self.last_choice = super().choose(documents, signatures, corpus)
        return self.last_choice


class FrozenPrefixPolicy(_CorpusNamesPolicy):
    """An adaptive prefix policy whose choice is fixed in advance: every actor renders the same fields.

    Args:
        choice: The choice to render (from :func:`fit_choice`, or ``PrefixChoice("adaptive", ("model", "nouns"))``).
        corpus_names: The names of every document of the corpus (see :class:`_CorpusNamesPolicy`).
    """

    def __init__(self, choice: PrefixChoice, corpus_names: Iterable[str] | None = None) -> None:
        super().__init__(corpus_names)
        self.choice = choice

    def choose(
        self, documents: Sequence[CNM | None], signatures: Sequence[CNM | None], corpus: CorpusState | None = None
    ) -> PrefixChoice:
        """The frozen choice, whatever the run saw."""
        return self.choice


def documents_of(table: pa.Table, *, text_column: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The texts and the metadata (every other column) of a batch of documents.

    Raises:
        InputError: When the text column is missing or a text is not a string.
    """
    if text_column not in table.column_names:
        raise InputError(f"the documents have no {text_column!r} column (columns: {', '.join(table.column_names)})")
    texts = table.column(text_column).to_pylist()
    for number, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(f"document {number} of the batch: {text_column!r} is {type(text).__name__}, not str")
    others = table.drop_columns([text_column])
    metadatas = others.to_pylist() if others.num_columns else [{} for _ in texts]
    return texts, metadatas


def identity_names(table: pa.Table, *, text_column: str) -> set[str]:
    """The distinct names (casefolded) the engine finds for these documents: what ``carries_name`` counts.

    The same :func:`~chop_integrations._offline.signature.document_identity` CHOPChunker asks before it
    chunks (the caller's name from the metadata, else a confident cover title), a cheap first pass.
    """
    texts, metadatas = documents_of(table, text_column=text_column)
    found: set[str] = set()
    for doc in batch(texts, metadatas):
        name = document_identity(doc)
        if name and len(found) < _KEEP:
            found.add(name.casefold())
    return found


def doc_ids(table: pa.Table, metadatas: Sequence[dict[str, Any]], *, id_column: str, source_key: str) -> list[str]:
    """Each document's id: its ``id_column``, else its ``source_key`` column.

    Raises:
        InputError: When neither column is there, or a document has an empty id.
    """
    key = id_column if id_column in table.column_names else source_key
    if key not in table.column_names:
        raise InputError(
            f"the documents need an id: a {id_column!r} or {source_key!r} column (columns: "
            f"{', '.join(table.column_names)}); Ray Data has no stable row number to fall back on"
        )
    ids = [meta.get(key) for meta in metadatas]
    for number, value in enumerate(ids):
        if value is None or value == "":
            raise InputError(f"document {number} of the batch has no {key!r}")
    return [str(value) for value in ids]


def chunk_table(
    table: pa.Table, per_doc: Sequence[Sequence[Chunk]], ids: Sequence[str], *, text_column: str
) -> pa.Table:
    """The chunk rows of a batch: :data:`CHUNK_COLUMNS` and :data:`INTERNAL_COLUMNS`, then the document's others.

    The internal columns stay for :func:`render_prefixes`; :func:`public` drops them.

    Raises:
        ConfigurationError: When a document column has a chunk column's name.
    """
    passed = [name for name in table.column_names if name != text_column]
    clash = sorted(set(passed) & set(_ALL_COLUMNS))
    if clash:
        raise ConfigurationError(
            f"document columns {clash} would clash with the chunk columns; rename them first "
            f"(chunk rows have {', '.join(CHUNK_COLUMNS)})"
        )
    chunks = [chunk for chunks in per_doc for chunk in chunks]
    owner = [number for number, chunks in enumerate(per_doc) for _ in chunks]
    signed = ["chop_continues" in chunk.metadata for chunk in chunks]  # LumberChunker's chunks have no signature
    metadata = [
        signature_metadata(c.cnm, c.prefix, c.continues_previous, c.metadata) if s else {}
        for c, s in zip(chunks, signed, strict=True)
    ]
    columns: dict[str, list[Any]] = {
        DOCUMENT_KEY: [ids[number] for number in owner],
        INDEX_KEY: list(itertools.chain.from_iterable(range(len(chunks)) for chunks in per_doc)),
        TEXT_KEY: [chunk.text for chunk in chunks],
        "start": [chunk.start for chunk in chunks],
        "end": [chunk.end for chunk in chunks],
        "token_count": [chunk.token_count for chunk in chunks],
        "embed_text": [chunk.prefix + chunk.text for chunk in chunks],
        **{key: [meta.get(key) for meta in metadata] for key in METADATA_KEYS},
        "_chop_nouns": [list(c.cnm.nouns) if s and c.cnm else None for c, s in zip(chunks, signed, strict=True)],
        "_chop_repeated": _repeated(per_doc),
    }
    arrays = [pa.array(columns[name], type=kind) for name, kind in _ALL_COLUMNS.items()]
    out = pa.Table.from_arrays(arrays, names=list(_ALL_COLUMNS))
    if passed:
        taken = table.select(passed).take(pa.array(owner, type=pa.int64()))
        for name in passed:
            out = out.append_column(name, taken.column(name))
    return out


def public(table: pa.Table) -> pa.Table:
    """``table`` without :data:`INTERNAL_COLUMNS` (the rows a user gets)."""
    return table.drop_columns([name for name in INTERNAL_COLUMNS if name in table.column_names])


def _check_internal(table: pa.Table) -> None:
    """Raise unless ``table``'s rows kept :data:`INTERNAL_COLUMNS` (what refitting and rendering the prefix read)."""
    missing = [name for name in INTERNAL_COLUMNS if name not in table.column_names]
    if missing:
        raise InputError(
            f"these chunk rows have no {', '.join(missing)}: the prefix can be fitted and rendered only on rows that "
            "kept them (ChunkBatches(defer_prefix=True), or one_process_rows(..., internal=True))"
        )


def _repeated(per_doc: Sequence[Sequence[Chunk]]) -> list[bool | None]:
    """Per chunk, :meth:`~chop_integrations._chop.prefix.PrefixPolicy.repeats` asked over its whole document in order.

    The answer CHOP's own render took (it asks the same, one document at a time); null on a chunk with no signature.
    """
    policy, flags = PrefixPolicy(ADAPTIVE), []
    for chunks in per_doc:
        seen: dict[tuple[str, ...], str] = {}
        flags += [policy.repeats(c.cnm, seen) if "chop_continues" in c.metadata else None for c in chunks]
    return flags


@dataclass
class PrefixStats:
    """The distinct models, categories and sections of some chunk rows: all the adaptive choice depends on.

    Instances merge (:meth:`merge`), so each block of a dataset is summed up where it lies and only these few
    values travel to the driver.
    """

    models: set[str] = field(default_factory=set)
    categories: set[str] = field(default_factory=set)
    sections: set[tuple[str, ...]] = field(default_factory=set)

    @classmethod
    def of(cls, table: pa.Table) -> PrefixStats:
        """The distinct values of one table of chunk rows."""
        _check_internal(table)
        stats = cls()
        paths = pc.unique(pc.binary_join(table.column("_chop_nouns"), _UNIT)).to_pylist()
        stats.add(
            table.column("chop_model").unique().to_pylist(),
            table.column("chop_category").unique().to_pylist(),
            [path.split(_UNIT) for path in paths if path],
        )
        return stats

    def add(self, models: Iterable[str | None], categories: Iterable[str | None], nouns: Iterable[Any]) -> None:
        """Remember distinct values, up to a few per field (casefolded, as the policy compares them)."""
        _keep(self.models, (m.casefold() for m in models if m))
        _keep(self.categories, (c.casefold() for c in categories if c))
        if len(self.sections) < 2:
            for path in nouns:
                if path:
                    self.sections.add(tuple(path))
                    if len(self.sections) >= 2:
                        break

    def merge(self, other: PrefixStats) -> PrefixStats:
        """These values and ``other``'s together."""
        merged = PrefixStats(set(self.models), set(self.categories), set(self.sections))
        merged.add(other.models, other.categories, [list(s) for s in other.sections])
        return merged

    def to_row(self) -> dict[str, list[Any]]:
        """One row of lists, to carry the values as a dataset block."""
        return {
            "models": [sorted(self.models)],
            "categories": [sorted(self.categories)],
            "sections": [[list(s) for s in sorted(self.sections)]],
        }

    @classmethod
    def from_rows(cls, rows: Iterable[dict[str, Any]]) -> PrefixStats:
        """Merge rows written by :meth:`to_row`."""
        stats = cls()
        for row in rows:
            stats.add(row["models"], row["categories"], row["sections"])
        return stats


def _keep(values: set[str], new: Iterable[str]) -> None:
    for value in new:
        if len(values) >= _KEEP:
            return
        values.add(value)


def fit_choice(stats: PrefixStats) -> PrefixChoice:
    """The choice a fresh adaptive policy makes for a corpus with these distinct values (the engine's own rule)."""
    documents = [CNM.model_construct(category=None, nouns=[], model=m) for m in sorted(stats.models)]
    documents += [CNM.model_construct(category=c, nouns=[], model=None) for c in sorted(stats.categories)]
    signatures = [CNM.model_construct(category=None, nouns=list(s), model=None) for s in sorted(stats.sections)]
    return PrefixPolicy(ADAPTIVE).choose(documents, signatures)


def render_prefixes(table: pa.Table, choice: PrefixChoice, policy: PrefixPolicy | None = None) -> pa.Table:
    """``table`` with ``chop_prefix`` and ``embed_text`` rendered under ``choice``.

    Vectorised: rows are grouped by their signature (a dictionary encoding of category, heading path, model and
    ``_chop_repeated``; many chunks share a section), each distinct signature is rendered once with the policy's
    own renderer, and the prefixes are taken back per row. Whether a section title came earlier in its document
    under another parent is read from ``_chop_repeated`` (decided where the whole document was chunked), so
    the rows may come in any blocks and any order.
    """
    _check_internal(table)
    policy = policy or FrozenPrefixPolicy(choice)
    category, model = table.column("chop_category"), table.column("chop_model")
    nouns = table.column("_chop_nouns")
    signed = pc.is_valid(table.column("chop_continues"))
    key = pc.binary_join_element_wise(
        pc.fill_null(category, _NULL),
        pc.fill_null(pc.binary_join(nouns, _UNIT), _NULL),
        pc.fill_null(model, _NULL),
        pc.if_else(signed, "1", "0"),
        pc.if_else(pc.fill_null(table.column("_chop_repeated"), False), "1", "0"),
        _RECORD,
    )
    encoded = pc.dictionary_encode(key).combine_chunks()
    rendered = [_render_key(value, choice, policy) for value in encoded.dictionary.to_pylist()]
    prefix = pc.take(pa.array(rendered, type=pa.string()), encoded.indices)
    embed = pc.binary_join_element_wise(prefix, table.column(TEXT_KEY), "")
    table = table.set_column(table.column_names.index("chop_prefix"), "chop_prefix", prefix)
    return table.set_column(table.column_names.index("embed_text"), "embed_text", embed)


#: Stands for a null field in a signature key (CNM values never hold control characters).
_NULL = "\x00"
#: Separates the fields of a signature key.
_RECORD = "\x1e"


def _render_key(key: str, choice: PrefixChoice, policy: PrefixPolicy) -> str:
    category, path, model, signed, repeated = key.split(_RECORD)
    if signed == "0":
        return ""  # no signature: CHOP did not run on this row (LumberChunker rows)
    nouns = [] if path in (_NULL, "") else path.split(_UNIT)
    signature = CNM.model_construct(
        category=None if category in (_NULL, "") else category,
        nouns=nouns,
        model=None if model in (_NULL, "") else model,
    )
    return policy.render(signature, choice, repeated == "1")
