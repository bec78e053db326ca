"""CHOP: chunkwise context-preserving prefixes for retrieval over many similar documents.

CHOPChunker takes base chunks (from its own LumberChunker, from any splitter,
or given as they are), decides for each adjacent pair whether the second chunk
continues the first (TRUE: it inherits the signature) or starts a new topic or
document (FALSE: a fresh CNM signature is extracted), and renders the signature
as a prefix that goes into ``embed_text`` only; the stored ``text`` stays the
exact source slice.

With an LLM the work runs in three steps (``docs/architecture.md``, *CHOP*):

1. every continuity question of every adjacent pair, and the CNM of every
   document's first chunk, concurrently (bounded by ``max_concurrency``);
2. the CNMs of the chunks whose answer was FALSE, concurrently (in the combined
   mode these come with the continuity answer, so this step is usually empty);
3. inheritance resolved in one pass, in document order, so the result is
   deterministic for a given LLM.

Without an LLM (``llm=None``) the offline deciders make the same decisions in one sequential pass, no calls.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Sequence
from typing import Any

from .._deciders import DocContext
from .._defaults import BUILTIN_TARGET_TOKENS, PREFIX_RESERVE
from .._llm import progress
from .._llm.aio import run_sync
from .._llm.engine import Engine, sync_method
from .._llm.usage import UsageReport
from .._text.embedding_limit import warn_if_truncated
from .._text.tokens import counter_name
from .._types import DEFAULT_PREFIX_TEMPLATE, Chunk, render_prefix
from .base import BaseChunking, known_fields
from .base_chunks import METADATA_KEYS, split_chunks, split_offsets
from .config import CHOPConfig, CHOPSettings
from .corpus import CorpusState, check_corpus
from .decide import LLMDecisions
from .estimate import estimate_calls
from .plan import Decisions, Plan, build_plan, decide_offline, group_given, resolve
from .prefix import PrefixChoice
from .stream import CHOPStream

logger = logging.getLogger("chop_integrations")

__all__ = [
    "BUILTIN_TARGET_TOKENS",
    "DEFAULT_PREFIX_TEMPLATE",
    "METADATA_KEYS",
    "PREFIX_RESERVE",
    "CHOPChunker",
    "CHOPConfig",
    "render_prefix",
    "split_offsets",
]


class CHOPChunker(Engine):
    """Chunk documents and give every chunk a CHOP signature prefix.

    Args:
        llm: The model (a callable, an LLM-protocol object, a LangChain chat model
            or a LlamaIndex LLM), or ``None`` for the offline deciders.
        config: A :class:`~chop_integrations.CHOPConfig` (every option, its
            description and default), or ``None`` for the defaults.
        corpus: A :class:`~chop_integrations.CorpusState` every call reads and adds to (share it,
            save it); ``None`` (the default): each call starts from an empty one, depending only on its input.
        **options: :class:`~chop_integrations.CHOPConfig` fields by name
            (``decisions="pair"``, ``cache=...``): they build the config, or override the
            given one's fields.

    The chunker holds the config as :attr:`config` and what it implies, computed once, as :attr:`settings`
    (a :class:`~chop_integrations._chop.config.CHOPSettings`: the prefix policy, the token counter, the offline
    deciders...). With ``chunker=None`` the built-in :class:`~chop_integrations.LumberChunker` gets this
    config's LLM options and token counter (:meth:`~chop_integrations.CHOPConfig.base_config`), and, with
    ``embedding``, keeps :data:`~chop_integrations._defaults.PREFIX_RESERVE` tokens of the limit free for
    the prefix. An invalid value or an unknown option raises ``ConfigurationError``, naming the valid ones.
    """

    name = "chop"
    config_class = CHOPConfig
    config: CHOPConfig

    def __init__(
        self, llm: Any = None, config: CHOPConfig | None = None, *, corpus: CorpusState | None = None, **options: Any
    ) -> None:
        super().__init__(llm, config, **options)
        self.settings = CHOPSettings.of(self.config)
        self.corpus = check_corpus(corpus)
        self._warned_alone = False  # see _warn_alone
        builtin = self.config.chunker is None
        self._base = BaseChunking(
            self._builtin_chunker() if builtin else self.config.chunker,
            builtin=builtin,
            joining=functools.partial(self._builtin_chunker, join=True),
            policy=self.settings.policy,
            count=self.settings.count,
        )

    @property
    def chunker(self) -> Any:
        """The base chunker: the built-in :class:`~chop_integrations.LumberChunker`, or the config's ``chunker``."""
        return self._base.chunker

    def _open_stream(self, metadata: dict[str, Any] | None) -> CHOPStream:
        """The stream :meth:`chunk_stream` runs: offline, with a base chunker that streams.

        The chunks equal ``chunk("".join(pieces), metadata=metadata)`` (texts, offsets, signatures,
        prefixes, metadata) unless the document's first markdown heading starts after the opening the
        stream holds, or the adaptive prefix waits :data:`~chop_integrations._chop.stream.HOLD_CHUNKS`
        chunks for a second section (see :mod:`~chop_integrations._chop.stream`).

        Raises:
            ConfigurationError: With an LLM, a base chunker that cannot stream (a plain splitter, a
                LumberChunker in paper mode), or deciders other than the offline ones.
        """
        return CHOPStream(self, metadata)

    def _builtin_chunker(self, *, join: bool = False) -> Any:
        """CHOP's own LumberChunker on :meth:`CHOPConfig.base_config` (its LLM with ``llm_boundaries``)."""
        from .._lumber.chunker import LumberChunker

        config = self.config
        return LumberChunker(
            self.llm if config.llm_boundaries else None, config.base_config(self.settings.embedding, join=join)
        )

    def _docs(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[DocContext]:
        """The checked documents, named by ``metadata[source_key]`` where present."""
        docs, key = super()._docs(texts, metadatas), self.config.source_key
        if key == "source":
            return docs
        named = []
        for doc in docs:
            value = doc.metadata.get(key)
            named.append(dataclasses.replace(doc, doc_id=str(value)) if value not in (None, "") else doc)
        return named

    # -- public API ----------------------------------------------------------------------------

    async def _achunk_docs(self, docs: list[DocContext]) -> list[list[Chunk]]:
        """Base chunking, then concurrent CHOP decisions (offline: one pass, no calls)."""
        with self.config.metered():
            started, usage = time.perf_counter(), UsageReport()
            self.last_usage = usage
            if self.settings.splitter is None:
                per_doc, document_tokens = await self._base.achunk(docs, usage, self.corpus)
            else:
                per_doc, document_tokens = (
                    [self._split(doc) for doc in docs],
                    sum(self.settings.count(d.text) for d in docs),
                )
            plan = self._plan(docs, per_doc)
            await self._adecide(plan, usage)
            return self._finish(plan, per_doc, usage, started, document_tokens)

    def observe_corpus(self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None) -> None:
        """Tell the adaptive prefix which documents the corpus holds, before you chunk them one at a time.

        Reads each document's name (metadata, else a confident cover line) and category (metadata) into
        :attr:`corpus` (a new :class:`~chop_integrations.CorpusState` when it has none); no
        chunking, no LLM call. Then the first document chunked alone is prefixed (and sized) as in the corpus.
        """
        if self.corpus is None:
            self.corpus = CorpusState()
        self.corpus.observe(known_fields(self._docs(texts, metadatas)))

    def annotate(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[Chunk]:
        """Sign already-chunked texts, in order.

        Consecutive texts with the same ``metadata[source_key]`` form one document.
        A chunk's offsets are its ``start_index`` metadata where present, else ``0..len(text)``.
        """
        return run_sync(self.aannotate(texts, metadatas=metadatas))

    async def aannotate(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[Chunk]:
        """Async :meth:`annotate`."""
        started = time.perf_counter()
        plan, per_doc = self._given(texts, metadatas)
        usage = UsageReport()
        self.last_usage = usage
        with self.config.metered():
            await self._adecide(plan, usage)
        return _flat(self._finish(plan, per_doc, usage, started, sum(c.token_count for c in plan.chunks)))

    def estimate(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None = None) -> UsageReport:
        """Estimate calls and tokens of :meth:`chunk_many` without calling the LLM (a dry run).

        Base chunks come from the offline path; continuity answers are assumed to be
        what the offline decider says, and every prompt is built and counted exactly.
        """
        docs = self._docs(texts, metadatas)
        report = UsageReport(estimated=True)
        if self.settings.splitter is None:
            per_doc = self._base.estimate(docs, report, self.corpus)
        else:
            per_doc = [self._split(doc) for doc in docs]
        plan = self._plan(docs, per_doc)
        if self.llm is not None:
            self._estimate_calls(plan, report)
        report.add(
            documents=len(docs), document_tokens=sum(self.settings.count(d.text) for d in docs), chunks=len(plan.chunks)
        )
        report.token_counter = counter_name(self.settings.count)
        return report

    # -- base chunks and the plan --------------------------------------------------------------

    def _split(self, doc: DocContext) -> list[Chunk]:
        """Chunks of ``doc`` from the plain splitter, with lossless offsets."""
        splitter = self.settings.splitter
        assert splitter is not None
        return split_chunks(doc, list(splitter(doc.text)) if doc.text else [], self.settings.count)

    def _plan(self, docs: Sequence[DocContext], per_doc: Sequence[Sequence[Chunk]]) -> Plan:
        return build_plan(docs, per_doc, new_document_resets=self.config.new_document_resets)

    def _given(
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None
    ) -> tuple[Plan, list[list[Chunk]]]:
        """Group already-chunked texts into documents by ``source_key``."""
        docs, per_doc = group_given(
            self._docs(texts, metadatas), source_key=self.config.source_key, count=self.settings.count
        )
        return self._plan(docs, per_doc), per_doc

    # -- deciding ------------------------------------------------------------------------------

    def _decide_offline(self, plan: Plan) -> Decisions:
        settings = self.settings
        return decide_offline(
            plan, sync_method(settings.continuity, "adecide"), sync_method(settings.extractor, "aextract")
        )

    async def _adecide(self, plan: Plan, usage: UsageReport) -> None:
        if self.llm is not None and progress.planning():  # someone watches: tell them the plan, as a dry run counts it
            planned = UsageReport(estimated=True)
            self._estimate_calls(plan, planned)
            progress.plan(decisions=planned.calls, tokens=planned.prompt_tokens + planned.completion_tokens)
        decisions = self._decide_offline(plan) if self.llm is None else await self._llm_decisions(usage).decide(plan)
        choice = resolve(plan, decisions, self.settings.policy, self.corpus)
        usage.add(prefix_choice=choice.describe())
        self._warn_alone(plan, choice)

    def _warn_alone(self, plan: Plan, choice: PrefixChoice) -> None:
        """Warn once per chunker when a lone document's category was left out only because it came alone.

        The category is the one field a document alone may not get as in a batch (it is printed once two are
        seen); the name and the section are the document's own. The warning says what to pass.
        """
        one_document = len({id(doc) for doc in plan.docs}) == 1
        if self.corpus is not None or not one_document or self._warned_alone:
            return
        if dict(choice.reasons).get("category", "").startswith("one value"):
            self._warned_alone = True
            logger.warning(
                "CHOP: this run saw one document, so its category is not printed (it is once two categories are "
                "seen); when documents arrive one at a time, pass corpus=CorpusState() shared by the calls, or "
                "call observe_corpus(texts) first, to print it as in a batch"
            )

    def _llm_decisions(self, usage: UsageReport) -> LLMDecisions:
        """The run's LLM deciders on one runner (cache, retries, timeout, this run's usage report)."""
        assert self.llm is not None
        config, settings = self.config, self.settings
        return LLMDecisions.build(
            config.runner(self.llm, usage=usage, token_counter=settings.count),
            continuity=settings.continuity,
            extractor=settings.extractor,
            mode=config.decisions,
            on_llm_error=config.on_llm_error,
            budget=settings.budget,
            source_key=config.source_key,
            max_concurrency=config.max_concurrency,
        )

    # -- dry runs ------------------------------------------------------------------------------

    def _estimate_calls(self, plan: Plan, report: UsageReport) -> None:
        """Count the prompts a run would send, assuming the offline decider's answers."""
        decisions = self.config.decisions
        window = self._llm_decisions(UsageReport()).window if decisions == "window" else None
        estimate_calls(
            plan,
            report,
            decisions=decisions,
            offline=self._decide_offline(plan),
            window_prompt=None if window is None else window.prompt,
            budget=self.settings.budget,
            count=self.settings.count,
            source_key=self.config.source_key,
        )

    # -- finishing -------------------------------------------------------------------------------

    def _finish(
        self,
        plan: Plan,
        per_doc: Sequence[Sequence[Chunk]],
        usage: UsageReport,
        started: float,
        document_tokens: int,
    ) -> list[list[Chunk]]:
        """Record the run's usage as :attr:`last_usage` and return the chunks per document."""
        embedding = self.settings.embedding
        if embedding is not None:
            count = embedding.counter or self.settings.count
            warn_if_truncated((count(c.embed_text) for c in plan.chunks), embedding.max_tokens, what="prefixed chunks")
        usage.add(documents=len(per_doc), document_tokens=document_tokens, chunks=len(plan.chunks))
        usage.wall_s = time.perf_counter() - started
        usage.token_counter = counter_name(self.settings.count)
        self.last_usage = usage
        return [list(chunks) for chunks in per_doc]


# -- option checks and small helpers ---------------------------------------------------------------


def _flat(per_doc: Sequence[Sequence[Chunk]]) -> list[Chunk]:
    return [chunk for chunks in per_doc for chunk in chunks]
