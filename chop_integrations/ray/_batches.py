"""The callable class Ray Data runs in its actors: the engine built once per actor, batches of documents in.

``Dataset.map_batches(ChunkBatches, fn_constructor_kwargs={...}, compute=ActorPoolStrategy(size=W), ...)``
makes W actors; each builds its engine once, from the options (picklable: an engine name or class, its
keyword options, an LLM or a function that builds one), never from a pickled engine. Each call chunks one
batch of documents with the engine's ``chunk_many`` and returns its chunk rows
(:data:`~chop_integrations.ray.CHUNK_COLUMNS`, then the documents' other columns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import ray

from .._chop.chunker import CHOPChunker
from .._chop.config import CHOPConfig
from .._chop.corpus import CorpusState
from .._chop.prefix import ADAPTIVE, PrefixChoice, PrefixPolicy
from .._engines import ENGINES, engine_class
from .._engines import build_engine as build
from .._errors import ConfigurationError
from .._llm.progress import metering
from .._llm.protocol import as_llm
from ._progress import ActorProgress
from ._rows import (
    FrozenPrefixPolicy,
    PrefixStats,
    ProvisionalPrefixPolicy,
    chunk_table,
    doc_ids,
    documents_of,
    public,
)

__all__ = ["ENGINES", "ChunkBatches", "build_engine", "one_process_rows", "with_text"]


def build_engine(
    engine: str | type = "chop",
    *,
    llm: Any = None,
    llm_factory: Callable[[], Any] | None = None,
    llm_limit: Any = None,
    prefix_choice: PrefixChoice | None = None,
    defer_prefix: bool = False,
    corpus_names: Iterable[str] | None = None,
    **options: Any,
) -> Any:
    """Build the engine one actor (or one process) runs: the same object for a Ray run and its reference run.

    Args:
        engine: A registered engine's name (``"chop"``, ``"lumber"``...), or an engine class with ``chunk_many``.
        llm: The model (``None``: offline). It travels pickled to every actor; use ``llm_factory`` for a
            client that does not pickle.
        llm_factory: Builds the model inside the actor (instead of ``llm``).
        llm_limit: An :class:`~chop_integrations.ray.LLMLimit`: every call of this engine's model waits
            for one of its slots, shared by all actors.
        prefix_choice: CHOP with ``prefix="adaptive"``: render this choice (fitted on the whole corpus).
        defer_prefix: CHOP with ``prefix="adaptive"`` and no choice: render a provisional prefix (the actor's
            own adaptive choice, :class:`~chop_integrations.ray.ProvisionalPrefixPolicy`), to be settled
            once the whole corpus is known (:func:`~chop_integrations.ray.chunk_dataset` does it).
        corpus_names: CHOP with ``prefix="adaptive"``: the names of every document of the corpus
            (:func:`~chop_integrations.ray.find_corpus_names`), so that the built-in chunker sizes each document's
            chunks as one process would (it follows whether the prefix prints the name).
        **options: The engine's config fields (:class:`~chop_integrations.LumberConfig`,
            :class:`~chop_integrations.CHOPConfig`) by name, or ``config=`` a whole config.

    Raises:
        ConfigurationError: On an unknown engine, both ``llm`` and ``llm_factory``, ``new_document_resets=False``,
            or an adaptive prefix with neither a choice nor ``defer_prefix``.
    """
    cls = engine_class(engine)
    if llm is not None and llm_factory is not None:
        raise ConfigurationError("pass llm or llm_factory, not both")
    model = as_llm(llm_factory() if llm_factory is not None else llm)
    if model is not None and llm_limit is not None:
        model = llm_limit.wrap(model)
    if not issubclass(cls, CHOPChunker):
        return build(cls, model, **options)
    fields = {name: options.pop(name) for name in list(options) if name in CHOPConfig.model_fields}
    config = CHOPConfig.of(options.pop("config", None), fields)  # the rest: corpus=, a subclass's own options
    if not config.new_document_resets:
        raise ConfigurationError(
            "new_document_resets=False judges a document's first chunk against the previous document's last, "
            "but Ray batches have no order across actors; it is not supported here"
        )
    prefix = _prefix(config.prefix, prefix_choice, defer_prefix, corpus_names)
    if isinstance(prefix, ProvisionalPrefixPolicy):
        options.setdefault("corpus", CorpusState())  # the actor's provisional choice spans its batches
    return build(cls, model, config=CHOPConfig.of(config, {"prefix": prefix}), **options)


def _prefix(prefix: Any, choice: PrefixChoice | None, defer: bool, names: Iterable[str] | None) -> Any:
    adaptive = prefix == ADAPTIVE or (isinstance(prefix, PrefixPolicy) and prefix.template is None)
    if isinstance(prefix, FrozenPrefixPolicy) or not adaptive:
        return prefix  # fixed, a template, or already frozen: no corpus memory, the same in every actor
    if choice is not None:
        return FrozenPrefixPolicy(choice, names)
    if defer:
        return ProvisionalPrefixPolicy(names)
    raise ConfigurationError(
        "prefix='adaptive' chooses fields from the whole corpus, which one actor never sees: use chunk_dataset() "
        "(it fits the choice on all rows), pass prefix_choice= (e.g. from fit_prefix), or defer_prefix=True and "
        "render with apply_prefix() afterwards"
    )


class ChunkBatches:
    """A ``map_batches`` callable class: chunk a batch of documents (a pyarrow table) into chunk rows.

    Args:
        engine: A registered engine's name (``"chop"``, ``"lumber"``...) or an engine class (see :func:`build_engine`).
        text_column: The column holding each document's text.
        path_column: Where ``text_column`` is missing: a column of file paths the actor reads (UTF-8), so
            only paths travel through the object store.
        id_column: The column naming each document (``chop_document`` of its rows); without it the engine's
            ``source_key`` column (``"source"``) names it.
        prefix_stats: An actor with ``add(stats, fields)`` that sums up the rows' distinct models, categories and
            sections (:class:`~chop_integrations.ray.PrefixStats`) and the provisional fields each batch was
            rendered with (:func:`~chop_integrations.ray.chunk_dataset` passes one when it fits the prefix).
        show_progress: With an LLM, report the actor's decisions, calls and tokens on a Ray progress bar
            (:class:`~chop_integrations.ray._progress.ActorProgress`), as Ray Data reports its own.
        **options: :func:`build_engine`'s options (``llm``, ``llm_factory``, ``llm_limit``, ``prefix_choice``,
            ``defer_prefix``) and the engine's own (``max_tokens``, ``cache``, ``prefix``, ...).

    Every other column of the documents is the engine's metadata for the document and is repeated on each of
    its chunk rows. With ``defer_prefix=True`` the rows keep the :data:`~chop_integrations.ray.INTERNAL_COLUMNS`
    that :func:`~chop_integrations.ray.fit_prefix` and :func:`~chop_integrations.ray.apply_prefix` read (and
    ``apply_prefix`` drops); otherwise they are dropped here.

    Raises:
        ConfigurationError: On invalid options (when the actor starts).
    """

    #: The actor's Ray progress bar (``show_progress=True`` with an LLM), else None.
    progress: ActorProgress | None = None

    def __init__(
        self,
        engine: str | type = "chop",
        *,
        text_column: str = "text",
        path_column: str = "path",
        id_column: str = "id",
        prefix_stats: Any = None,
        show_progress: bool = False,
        **options: Any,
    ) -> None:
        self.keep_internal = bool(options.get("defer_prefix", False))
        self.engine = build_engine(engine, **options)
        live = show_progress and getattr(self.engine, "llm", None) is not None
        self.progress = ActorProgress(type(self.engine).__name__) if live else None
        self.prefix_stats = prefix_stats
        self.text_column = text_column
        self.path_column = path_column
        self.id_column = id_column
        self.source_key = str(getattr(getattr(self.engine, "config", None), "source_key", "source"))

    def __call__(self, batch: Any) -> pa.Table:
        """The chunk rows of one batch of documents (a pyarrow table; a pandas frame or numpy dict works too).

        Raises:
            InputError: On a missing text or id column, or a text that is not a string.
            LLMError: Under ``on_llm_error="raise"`` when a decision failed.
        """
        if isinstance(batch, dict):  # batch_format="numpy": column name -> array
            batch = pa.table({name: pa.array(list(values)) for name, values in batch.items()})
        elif not isinstance(batch, pa.Table):  # batch_format="pandas"
            batch = pa.Table.from_pandas(batch, preserve_index=False)
        batch = self._with_text(batch)
        texts, metadatas = documents_of(batch, text_column=self.text_column)
        ids = doc_ids(batch, metadatas, id_column=self.id_column, source_key=self.source_key)
        with metering(None if self.progress is None else self.progress.meter):
            per_doc = self.engine.chunk_many(texts, metadatas=metadatas)
        if self.progress is not None:
            self.progress.flush()
        rows = chunk_table(batch, per_doc, ids, text_column=self.text_column)
        if self.prefix_stats is not None:
            policy = getattr(getattr(self.engine, "settings", None), "policy", None)
            choice = policy.last_choice if isinstance(policy, ProvisionalPrefixPolicy) else None
            fields = None if choice is None else choice.fields
            ray.get(self.prefix_stats.add.remote(PrefixStats.of(rows), fields))  # waited for: in before the run ends
        return rows if self.keep_internal else public(rows)

    def _with_text(self, batch: pa.Table) -> pa.Table:
        return with_text(batch, text_column=self.text_column, path_column=self.path_column)


def with_text(batch: pa.Table, *, text_column: str, path_column: str) -> pa.Table:
    """``batch`` with its ``text_column``, read from the files of ``path_column`` when it has none (UTF-8)."""
    if text_column in batch.column_names or path_column not in batch.column_names:
        return batch
    texts = [Path(path).read_text(encoding="utf-8") for path in batch.column(path_column).to_pylist()]
    return batch.append_column(text_column, pa.array(texts, type=pa.string()))


def one_process_rows(
    documents: pa.Table,
    *,
    engine: str | type = "chop",
    llm: Any = None,
    text_column: str = "text",
    path_column: str = "path",
    id_column: str = "id",
    internal: bool = False,
    **options: Any,
) -> pa.Table:
    """The reference: one engine, built as a user builds it, runs ``chunk_many`` over all ``documents`` at once.

    Its rows are what :func:`~chop_integrations.ray.chunk_dataset` must give (in another order): the tests
    and ``bench-scale`` compare the two. ``internal=True`` keeps the
    :data:`~chop_integrations.ray.INTERNAL_COLUMNS` (to refit or render the prefix of these rows).

    Raises:
        ConfigurationError: On an unknown engine or invalid options.
    """
    reader = ChunkBatches.__new__(ChunkBatches)
    reader.engine = build(engine, llm, **options)
    reader.text_column, reader.path_column, reader.id_column = text_column, path_column, id_column
    reader.source_key = str(getattr(getattr(reader.engine, "config", None), "source_key", "source"))
    reader.prefix_stats, reader.keep_internal = None, internal
    return reader(documents)
