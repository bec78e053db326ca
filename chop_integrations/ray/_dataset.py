"""``chunk_dataset``: a Ray Dataset of documents in, a Dataset of chunk rows out, the same rows as one process.

The chunking runs in a pool of actors (each builds its engine once; see :class:`~chop_integrations.ray.ChunkBatches`)
on large batches of whole documents, as Arrow tables (``batch_format="pyarrow"``: no per-row Python objects
between stages). With CHOP's adaptive prefix (the default) the choice of prefix fields depends on the whole
corpus (see :mod:`chop_integrations.ray._rows`), so the run has two passes:

1. the actors chunk and sign every document, with a provisional prefix (each actor's own adaptive choice),
   and send the distinct models, categories and sections of each batch (a few values each) and the fields
   they rendered to one small actor; the rows are materialised;
2. :func:`~chop_integrations.ray.fit_choice` makes the one-process choice from the union of those
   values. Where every batch rendered exactly its fields (the usual case: two names and two sections are
   soon seen) the rows are final; otherwise a task pass renders every row's prefix under the fitted choice.
   That pass reads rows in blocks, in any order; what needs a document read in order (whether a section title
   came earlier in it under another parent, printed then as ``API > Examples``) the actor decided and the row
   carries (``_chop_repeated``).

With ``prefix="fixed"``, a template, or a known ``prefix_choice=``, there is one lazy, streaming pass.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable
from typing import Any

import pyarrow as pa
import ray
from ray.data.dataset import MaterializedDataset

from .._chop.prefix import ADAPTIVE, PrefixChoice
from .._engines import engine_class
from .._errors import ConfigurationError
from ._batches import ChunkBatches, with_text
from ._limit import LLMLimit
from ._rows import PrefixStats, fit_choice, identity_names, public, render_prefixes

__all__ = ["DEFAULT_BATCH_SIZE", "apply_prefix", "chunk_dataset", "find_corpus_names", "fit_prefix"]

logger = logging.getLogger("chop_integrations")

#: Documents per batch. A batch is one ``chunk_many`` call; large batches keep the per-batch overhead of Ray
#: Data (scheduling, Arrow conversion) small against the chunking itself (a manual of ~120 KB takes about
#: 70 ms offline), and with an LLM they give each actor's engine more calls to overlap.
DEFAULT_BATCH_SIZE = 16


def chunk_dataset(
    ds: ray.data.Dataset,
    *,
    engine: str | type = "chop",
    workers: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    num_cpus: float = 1,
    llm: Any = None,
    llm_factory: Callable[[], Any] | None = None,
    llm_limit: int | LLMLimit | None = None,
    prefix_choice: PrefixChoice | None = None,
    corpus_names: Iterable[str] | None = None,
    text_column: str = "text",
    path_column: str = "path",
    id_column: str = "id",
    show_progress: bool = False,
    **options: Any,
) -> ray.data.Dataset:
    """Chunk every document of ``ds`` in a pool of actors; one row per chunk.

    Args:
        ds: Documents: a ``text`` column (or ``path`` to files the actors read) and an ``id`` (or ``source``)
            column; every other column is the document's metadata and is copied onto its chunk rows.
        engine: A registered engine's name (``"chop"``, the default; ``"lumber"``...), or an engine class.
        workers: Actors in the pool; ``None``: the cluster's CPUs divided by ``num_cpus``.
        batch_size: Documents per batch (see :data:`DEFAULT_BATCH_SIZE`).
        num_cpus: CPUs each actor reserves (with an LLM the work is mostly waiting: ``0.25`` packs four per CPU).
        llm: The model, pickled to every actor (``None``: offline).
        llm_factory: Builds the model inside each actor instead (for clients that do not pickle).
        llm_limit: Calls in flight at most over all actors: an int (a new :class:`~chop_integrations.ray.LLMLimit`)
            or a limit to share.
        prefix_choice: CHOP's adaptive prefix: render this choice instead of fitting one on the corpus.
        corpus_names: The corpus's document names (:func:`find_corpus_names`); accepted as before, no longer
            needed (a document's prefix prints its own name whatever the corpus holds), so no pass looks for them.
        text_column: The documents' text column.
        path_column: A column of file paths, read by the actors where ``text_column`` is missing.
        id_column: The documents' id column.
        show_progress: With an LLM, each actor reports its decisions, calls and tokens on a Ray progress bar
            (``tqdm_ray``, as Ray Data reports its own), so a long LLM run shows more than its row counts.
        **options: The engine's options (``max_tokens``, ``cache``, ``prefix``, ``max_concurrency``, ...).

    Returns:
        The chunk rows, columns :data:`~chop_integrations.ray.CHUNK_COLUMNS` then the documents' others.
        With the adaptive prefix and no ``prefix_choice`` the chunking has already run (it is materialised);
        otherwise the dataset is lazy.

    Raises:
        ConfigurationError: On invalid options (``workers``, ``batch_size``, ``llm_limit``, the engine's), or an
            ``llm`` that does not pickle (pass ``llm_factory`` then).
    """
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1) // max(num_cpus, 1e-9)))
    for name, value in (("workers", workers), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"{name} must be a positive int, got {value!r}")
    _check_pickles(llm)
    limit = LLMLimit(llm_limit) if isinstance(llm_limit, int) and not isinstance(llm_limit, bool) else llm_limit
    adaptive = _fits_prefix(engine, options)
    fitted = adaptive and prefix_choice is None
    ds = _spread(ds, batch_size)
    memory = _remembered(options) if adaptive else {}  # read before the actors add this run's names
    if adaptive and corpus_names is not None:  # (no pass to find them: a document's name is its own)
        corpus_names = sorted({*corpus_names, *memory.get("model", [])})
    collector = _Collector.remote() if fitted else None
    chunked = ds.map_batches(
        ChunkBatches,
        fn_constructor_kwargs={
            "engine": engine,
            "llm": llm,
            "llm_factory": llm_factory,
            "llm_limit": limit,
            "prefix_choice": prefix_choice,
            "defer_prefix": fitted,
            "prefix_stats": collector,
            "corpus_names": None if corpus_names is None else sorted(corpus_names),
            "text_column": text_column,
            "path_column": path_column,
            "id_column": id_column,
            "show_progress": show_progress,
            **options,
        },
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=num_cpus,
    )
    if not fitted:
        return chunked
    chunked = chunked.materialize()
    assert collector is not None
    stats, rendered = ray.get(collector.total.remote())
    choice = fit_choice(stats.merge(PrefixStats(set(memory.get("model", [])), set(memory.get("category", [])))))
    logger.info("chunk_dataset: prefix fitted on the whole corpus: %s", choice.describe())
    if rendered <= {choice.fields}:  # every batch already rendered the fitted fields
        return chunked.map_batches(public, batch_format="pyarrow", batch_size=None)
    return apply_prefix(chunked, choice)


def _check_pickles(llm: Any) -> None:
    """Refuse, before any actor starts, a model that cannot travel to the actors.

    Raises:
        ConfigurationError: When ``llm`` does not pickle (a client holding a lock or a socket).
    """
    if llm is None:
        return
    from ray import cloudpickle

    try:
        cloudpickle.dumps(llm)
    except Exception as exc:
        raise ConfigurationError(
            f"llm ({type(llm).__name__}) cannot be sent to the actors: it does not pickle ({exc}); "
            "pass llm_factory= (a function that builds it) to build one in each actor instead"
        ) from exc


def _remembered(options: dict[str, Any]) -> dict[str, list[str]]:
    """What the run's ``corpus`` (a CorpusState) already knows; ``{}`` without one.

    One process's run counts those names and categories too, and so must the fitted choice and the names
    every actor is told.
    """
    corpus = options.get("corpus")
    return corpus.to_dict() if corpus is not None else {}


def _spread(ds: ray.data.Dataset, batch_size: int) -> ray.data.Dataset:
    """A dataset already in memory (``from_items``, ``from_arrow``) in blocks of one batch each.

    Actors take work a block at a time, so a single block would keep all but one of them idle; one batch per
    block spreads the documents over every actor and balances their load. (``Dataset.repartition`` would do
    it too, but its tasks wait for CPUs the actor pool has reserved: on a small cluster it never runs.) A lazy
    dataset (a reader) keeps its own blocks.
    """
    if not isinstance(ds, MaterializedDataset) or ds.num_blocks() >= math.ceil(ds.count() / batch_size):
        return ds
    tables = [ray.get(ref) for ref in ds.to_arrow_refs()]
    pieces = [table.slice(at, batch_size) for table in tables for at in range(0, table.num_rows, batch_size)]
    return ray.data.from_arrow(pieces)


def _fits_prefix(engine: str | type, options: dict[str, Any]) -> bool:
    """True for CHOP with the adaptive prefix: the choice needs the whole corpus."""
    from .._chop.chunker import CHOPChunker
    from .._chop.prefix import PrefixPolicy
    from ._rows import FrozenPrefixPolicy

    if not issubclass(engine_class(engine), CHOPChunker):
        return False
    prefix = _option(options, "prefix", ADAPTIVE)
    if isinstance(prefix, FrozenPrefixPolicy):
        return False
    return prefix == ADAPTIVE or (isinstance(prefix, PrefixPolicy) and prefix.template is None)


def _option(options: dict[str, Any], name: str, default: Any = None) -> Any:
    """An engine option as the engine will hold it: given by name, else in ``config=``, else ``default``."""
    if name in options:
        return options[name]
    config = options.get("config")
    return default if config is None else getattr(config, name, default)


class _Stats:
    """Sums up the :class:`PrefixStats` of every batch and the fields each rendered (each actor waits for ``add``)."""

    def __init__(self) -> None:
        self.stats = PrefixStats()
        self.rendered: set[tuple[str, ...] | None] = set()

    def add(self, stats: PrefixStats, fields: tuple[str, ...] | None) -> None:
        self.stats = self.stats.merge(stats)
        self.rendered.add(fields)

    def total(self) -> tuple[PrefixStats, set[tuple[str, ...] | None]]:
        return self.stats, self.rendered


_Collector: Any = ray.remote(num_cpus=0)(_Stats)


def find_corpus_names(ds: ray.data.Dataset, *, text_column: str = "text", path_column: str = "path") -> list[str]:
    """The distinct document names (casefolded) CHOP finds in ``ds``: a cheap pass of tasks, a few names back.

    :func:`chunk_dataset` no longer needs them (a document's prefix prints its own name whatever the corpus holds);
    kept for callers who list a dataset's names.
    """
    names_of: Any = _names_of
    names = ds.map_batches(
        names_of, fn_kwargs={"text_column": text_column, "path_column": path_column}, batch_format="pyarrow"
    )
    found: set[str] = set()
    for row in names.take_all():
        found.update(row["names"])
    return sorted(found)


def _names_of(table: pa.Table, *, text_column: str, path_column: str) -> pa.Table:
    documents = with_text(table, text_column=text_column, path_column=path_column)
    return pa.table({"names": [sorted(identity_names(documents, text_column=text_column))]})


def fit_prefix(chunks: ray.data.Dataset) -> PrefixChoice:
    """The adaptive choice a one-process run makes for these chunk rows (summed up per block, merged here).

    For rows made elsewhere (``ChunkBatches(defer_prefix=True)`` in your own pipeline); :func:`chunk_dataset`
    gathers the same values while it chunks.
    """
    stats = chunks.map_batches(_block_stats, batch_format="pyarrow", batch_size=None)
    return fit_choice(PrefixStats.from_rows(stats.take_all()))


def _block_stats(table: pa.Table) -> pa.Table:
    return pa.Table.from_pydict(PrefixStats.of(table).to_row())


def apply_prefix(chunks: ray.data.Dataset, choice: PrefixChoice) -> ray.data.Dataset:
    """Render every chunk row's ``prefix`` and ``embed_text`` under ``choice`` (a cheap task pass).

    The rows may come in any blocks and order: each carries what its document's order decided (``_chop_repeated``).
    The rows come back without :data:`~chop_integrations.ray.INTERNAL_COLUMNS`.
    """
    render: Any = _rendered
    return chunks.map_batches(render, fn_args=(choice,), batch_format="pyarrow", batch_size=None)


def _rendered(table: pa.Table, choice: PrefixChoice) -> pa.Table:
    return public(render_prefixes(table, choice))
