"""The benchmark's corpora ("suites") and what each runs by default.

- ``manuals``: the 30 manuals with the dev questions, reported per split of
  :mod:`.splits` (``tune``, ``heldout``, ``all``).
- ``anon``: the same manuals anonymised (:mod:`.anonymise`), same questions and splits.
- ``emma``: the GutenQA "Emma" smoke set (:mod:`.gutenqa`).
- ``general``: the general-documents set (:mod:`.general`), reported per question style
  (``plain``, ``named``: :data:`.splits.STYLES`) and for all its questions. A development set since its
  documents showed the heading reader's mistakes.
- ``general-heldout``: the same kind of set from other documents (:data:`.general.HELDOUT_SOURCES`), fixed
  before anything ran on it and reported the same way.
- ``headless``: ``general-heldout`` with its heading lines blanked (:func:`.general.without_headings`): named
  documents without headings, where a heading-only question describes a section's body.
- ``multilingual``: German and Chinese chapters of the Debian Reference (:mod:`.multilingual`), reported per
  language (``de``, ``zh``), per question style and for all; a development set.
- ``multilingual-heldout``: the same from the Debian New Maintainers' Guide and the Debian FAQ, fixed with it.
- ``manuals-codes``: the manuals with their files named ``doc01`` .. ``doc30`` (:func:`.anonymise.coded`), covers
  kept, same questions and splits: the name can only come from the text.
- ``family-<key>`` and ``family-<key>-codes``: a family of near-identical release notes (:mod:`.families`), its
  files named as people name them or by codes, reported per question form (``exact``, ``typed``, ``absent``:
  :data:`.splits.FORMS`) and for all. ``families`` runs the development families' suites (django, numpy,
  pandas), and ``families-heldout`` the held-out family's (pillow): :data:`.families.SUITE_GROUPS`.

A default run keeps to the rows that answer the benchmark's questions within the
time budget of two shared cores: the strongest baselines (``+name``, the
contextual headers, LlamaIndex's default) and ours (:data:`SUITE_STRATEGIES`).
``native-500t``, ``cosine`` (LangChain SemanticChunker, which embeds every
sentence) and the chonkie rows (the same 500-token windows as ``native-500t``
and ``recursive-500``) are opt-in through ``--strategies``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from chop_integrations._errors import ChopError

from . import bench
from .corpus import Corpus, load_corpus
from .families import FAMILY_SUITES, SUITE_GROUPS
from .retrievers import Embedder
from .splits import FORMS, LANGS, STYLES

__all__ = ["DEFAULT_SUITES", "SUITES", "SUITE_GROUPS", "SUITE_STRATEGIES", "expand_suites", "run_suites"]

#: The suites a run without ``--suite`` runs (the families and ``manuals-codes`` are asked for by name).
DEFAULT_SUITES: tuple[str, ...] = (
    "manuals",
    "anon",
    "emma",
    "general",
    "general-heldout",
    "headless",
    "multilingual",
    "multilingual-heldout",
)
SUITES: tuple[str, ...] = (*DEFAULT_SUITES, "manuals-codes", *FAMILY_SUITES)

_FULL: tuple[str, ...] = (
    "recursive-500",
    "recursive-500+name",
    "recursive-500+header",
    "recursive-500+header-ours",
    "llamaindex",
    "lumber",
    "lumber+name",
    "lumber+header",
    "lumber+header-ours",
    "chop-chunks",
    "chop-chunks+name",
    "chop-chunks+header-ours",
    "chop",
)
#: The multilingual sets' rows: no ``+header`` row (the standard detector reads none of these manuals' numbered
#: headings, so it would equal ``+name``) and no ``+header-ours``/``chop-chunks+...`` rows, to keep a run of both sets
#: on two cores near a quarter of an hour; ``--strategies`` adds any of them.
_MULTILINGUAL: tuple[str, ...] = (
    "recursive-500",
    "recursive-500+name",
    "llamaindex",
    "lumber",
    "lumber+name",
    "chop-chunks",
    "chop",
)
#: The families' rows: the strongest baselines (the name, and the name with the heading path), ours with and without
#: a prefix on the same chunks, and CHOP read at query time.
_FAMILY: tuple[str, ...] = (
    "recursive-500",
    "recursive-500+name",
    "recursive-500+header",
    "lumber",
    "lumber+name",
    "chop-chunks",
    "chop-chunks+name",
    "chop",
    "chop+query",
)
#: The strategies each suite runs when ``--strategies`` is not given. Every ``+name``/``+header`` row costs a
#: full embedding pass (its texts are new), which on two shared cores is most of the run's time, so:
#: ``native-500t`` (the same 500-token windows as ``recursive-500``, cut mid-sentence) is opt-in; on the
#: anonymised manuals and Emma only ``lumber+name`` is kept (there the name is a hash, or the same on every
#: chunk); ``+header`` rows cost nothing on the manuals (the standard detector finds no heading there, so
#: their texts equal ``+name``'s and come from the cache); ``headless`` has no ``+header`` rows (no heading is left for
#: the standard detector, so they would equal ``+name``). ``chop-chunks`` rows are CHOP's own chunks (its
#: built-in LumberChunker does not join sections toward a target) with nothing, the name, or our heading path in
#: front: the prefix is judged on exactly the chunks it is put on.
SUITE_STRATEGIES: dict[str, tuple[str, ...]] = {
    "manuals": _FULL,
    "general": _FULL,
    "general-heldout": _FULL,
    "anon": ("recursive-500", "lumber", "lumber+name", "chop-chunks", "chop"),
    "headless": (
        "recursive-500",
        "recursive-500+name",
        "lumber",
        "lumber+name",
        "chop-chunks",
        "chop-chunks+name",
        "chop",
    ),
    "emma": ("recursive-500", "lumber", "lumber+name", "chop-chunks", "chop"),
    "multilingual": _MULTILINGUAL,
    "multilingual-heldout": _MULTILINGUAL,
    "manuals-codes": (
        "recursive-500+name",
        "lumber",
        "lumber+name",
        "chop-chunks",
        "chop-chunks+name",
        "chop",
        "chop+query",
    ),
    **dict.fromkeys(FAMILY_SUITES, _FAMILY),
}


def expand_suites(suites: Sequence[str]) -> list[str]:
    """``suites`` with each group of :data:`SUITE_GROUPS` (``families``) replaced by its suites, duplicates dropped."""
    return list(dict.fromkeys(s for name in suites for s in SUITE_GROUPS.get(name, (name,))))


def _manuals(corpus_dir: Path, queries: Path, *, max_docs: int | None, max_queries: int | None) -> Corpus:
    corpus = load_corpus(corpus_dir, queries if queries.is_file() else None, max_docs=max_docs, max_queries=max_queries)
    if not corpus.queries:
        raise ChopError(f"no queries for the selected manuals: pass --queries (looked for {queries})")
    return corpus


def run_suites(
    config: bench.BenchConfig,
    *,
    suites: Sequence[str],
    corpus_dir: Path | None,
    queries: Path | None,
    gutenqa: Path | None,
    strategies: Sequence[str] | None,
    llm_strategies: Sequence[str] = (),
    max_docs: int | None = None,
    max_queries: int | None = None,
    docs_dir: Path | None = None,
) -> dict[str, Any]:
    """Run each suite and return ``{"suites": {name: results}, "embedded_texts": n}``.

    Args:
        config: The run's options; ``strategies`` and ``splits`` are set per suite.
        suites: Which of :data:`SUITES` (or groups of :data:`SUITE_GROUPS`) to run, in order.
        corpus_dir: The folder with ``manuals/`` (needed by ``manuals``, ``anon`` and the default ``emma`` path).
        queries: The manuals' questions (default ``<corpus>/queries-dev.jsonl``).
        gutenqa: The Emma file (default ``<corpus>/gutenqa-emma/emma.json``).
        strategies: ``--strategies``: the same list for every suite; ``None`` for each suite's default.
        llm_strategies: Added to every suite's list (``lumber-llm``/``chop-llm`` when an LLM is given).
        max_docs: Only the first N manuals (manuals, anon, manuals-codes).
        max_queries: Only the first N questions (all but emma).
        docs_dir: Where ``scripts/fetch_docs.py`` unpacked the multilingual sets' packages and
            ``scripts/fetch_families.py`` the families (``families/``); default ``$CHOP_DOCS_DIR``, else
            ``.cache/docs``.

    Raises:
        ChopError: For an unknown suite, or a suite whose data is missing.
    """
    suites = expand_suites(suites)
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        raise ChopError(f"unknown suite {unknown[0]!r}: choose from {', '.join((*SUITES, *SUITE_GROUPS))}")
    _check_data(suites, corpus_dir, docs_dir)
    embedder = bench.make_embedder(config)
    out: dict[str, Any] = {}
    for suite in suites:
        began = time.perf_counter()
        names = [*(strategies or SUITE_STRATEGIES[suite]), *llm_strategies]
        suite_config = replace(config, strategies=names)
        if suite == "emma":
            out[suite] = _run_emma(suite_config, corpus_dir, gutenqa, embedder)
        else:
            out[suite] = _run_corpus(
                suite, suite_config, corpus_dir, queries, embedder, max_docs, max_queries, docs_dir
            )
        out[suite]["seconds"] = round(time.perf_counter() - began, 1)
    return {"suites": out, "embedded_texts": embedder.embedded}


def _run_corpus(
    suite: str,
    config: bench.BenchConfig,
    corpus_dir: Path | None,
    queries: Path | None,
    embedder: Embedder,
    max_docs: int | None,
    max_queries: int | None,
    docs_dir: Path | None = None,
) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if suite in ("general", "general-heldout", "headless"):
        from .general import HELDOUT_SOURCES, SOURCES, build_general_set, without_headings

        general = build_general_set(SOURCES if suite == "general" else HELDOUT_SOURCES)
        if suite == "headless":
            general = without_headings(general)
        corpus = general.corpus
        if max_queries is not None:
            corpus = replace(corpus, queries=corpus.queries[:max_queries])
        extra["manifest"] = general.manifest
        config = replace(config, splits=[*STYLES, "all"])
    elif suite in ("multilingual", "multilingual-heldout"):
        corpus, extra["manifest"] = _multilingual(suite, docs_dir, max_queries)
        config = replace(config, splits=[*LANGS, *STYLES, "all"])
    elif suite in FAMILY_SUITES:
        corpus, extra["manifest"], extra["names"] = _family(suite, docs_dir, max_queries)
        config = replace(config, splits=[*FORMS, "all"])
    else:
        if corpus_dir is None:
            raise ChopError(f"suite {suite!r} needs --corpus (the folder with manuals/)")
        corpus = _manuals(
            corpus_dir, queries or corpus_dir / "queries-dev.jsonl", max_docs=max_docs, max_queries=max_queries
        )
        if suite == "anon":
            from .anonymise import anonymise

            corpus = anonymise(corpus)
        elif suite == "manuals-codes":
            from .anonymise import coded

            corpus = coded(corpus)
    strategies, skipped = bench.build_strategies(config, corpus, embedder)
    results = bench.run_benchmark(config, corpus, strategies, embedder)
    results["skipped"] = {**skipped, **results["skipped"]}
    results.update(extra)
    return results


def _check_data(suites: Sequence[str], corpus_dir: Path | None, docs_dir: Path | None) -> None:
    """Fail before the first suite runs, not an hour in, when a later suite's data is missing."""
    if corpus_dir is None and any(s in ("manuals", "anon", "manuals-codes") for s in suites):
        raise ChopError("suites manuals, anon and manuals-codes need --corpus (the folder with manuals/)")
    for suite in suites:
        if suite in ("multilingual", "multilingual-heldout"):
            _multilingual(suite, docs_dir, max_queries=None)
        elif suite in FAMILY_SUITES:
            _family(suite, docs_dir, max_queries=None)


def _family(
    suite: str, docs_dir: Path | None, max_queries: int | None
) -> tuple[Corpus, list[dict[str, Any]], dict[str, str]]:
    """A family suite's corpus (the first ``max_queries`` questions), manifest and member -> document name map."""
    from .families import build_family_set, families_dir

    family, layout = FAMILY_SUITES[suite]
    built = build_family_set(family, layout, folder=families_dir(docs_dir))
    corpus = built.corpus
    if max_queries is not None:
        corpus = replace(corpus, queries=corpus.queries[:max_queries])
    return corpus, built.manifest, built.names


def _multilingual(suite: str, docs_dir: Path | None, max_queries: int | None) -> tuple[Corpus, list[dict[str, Any]]]:
    from .multilingual import DEV_SOURCES, HELDOUT_SOURCES, build_multilingual_set
    from .multilingual import docs_dir as default_dir

    built = build_multilingual_set(DEV_SOURCES if suite == "multilingual" else HELDOUT_SOURCES, folder=docs_dir)
    missing = [m["file"] for m in built.manifest if m.get("missing")]
    if missing:
        raise ChopError(
            f"suite {suite!r} needs {', '.join(missing)}: run `python scripts/fetch_docs.py` or pass --docs-dir "
            f"(looked in {default_dir(docs_dir)})"
        )
    corpus = built.corpus
    if max_queries is not None:
        corpus = replace(corpus, queries=corpus.queries[:max_queries])
    return corpus, built.manifest


def _run_emma(
    config: bench.BenchConfig, corpus_dir: Path | None, gutenqa: Path | None, embedder: Embedder
) -> dict[str, Any]:
    from .gutenqa import run_gutenqa

    path = gutenqa or (corpus_dir / "gutenqa-emma" / "emma.json" if corpus_dir is not None else None)
    if path is None or not path.is_file():
        raise ChopError(f"suite 'emma' needs the GutenQA file: pass --gutenqa (looked for {path})")
    empty = Corpus(docs=[], sections=None)
    strategies, skipped = bench.build_strategies(config, empty, embedder)
    results = run_gutenqa(path, config, strategies, embedder)
    results["skipped"] = skipped
    results["config"] = {"strategies": config.strategies, "retrievers": config.retrievers}
    return results
