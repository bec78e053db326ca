"""CHOP: chunkwise context-preserving prefixes for retrieval over many similar documents.

CHOPChunker takes base chunks (from its own LumberChunker, from any splitter,
or given as they are), decides for each adjacent pair whether the second chunk
continues the first (TRUE: it inherits the signature) or starts a new topic or
document (FALSE: a fresh CNM signature is extracted), and renders the signature
as a prefix that goes into ``embed_text`` only; the stored ``text`` stays the
exact source slice.

With an LLM the work runs in three steps (DESIGN.md, section 4):

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
import time
from collections.abc import Sequence
from typing import Any

from .. import checks as engine
from ..deciders import CNMExtractor, ContinuityDecider, DocContext
from ..errors import ConfigurationError
from ..llm.aio import run_sync
from ..llm.options import LLMOptions, LLMOptionsMixin, llm_options_of
from ..llm.policy import OnLLMError
from ..llm.protocol import as_llm
from ..llm.retry import RetryPolicy
from ..llm.usage import ReportsUsage, UsageReport, UsageSlot
from ..text.embedding_limit import resolve_embedding_limit, warn_if_truncated
from ..text.tokens import TokenCounter, counter_name, resolve_counter
from ..types import DEFAULT_PREFIX_TEMPLATE, Chunk, render_prefix
from .base import BUILTIN_TARGET_TOKENS, PREFIX_RESERVE, BaseChunking, known_fields
from .corpus import CorpusState, check_corpus
from .decide import DecisionMode, LLMDecisions, check_decisions, check_source_key
from .estimate import estimate_calls
from .excerpts import PromptBudget
from .plan import Decisions, Plan, build_plan, decide_offline, group_given, resolve
from .prefix import ADAPTIVE, PrefixMode, PrefixPolicy
from .stream import StreamMixin
from .text import METADATA_KEYS, Splitter, split_chunks, split_offsets, splitter_of

__all__ = [
    "BUILTIN_TARGET_TOKENS",
    "DEFAULT_PREFIX_TEMPLATE",
    "METADATA_KEYS",
    "PREFIX_RESERVE",
    "CHOPChunker",
    "render_prefix",
    "split_offsets",
]


class CHOPChunker(LLMOptionsMixin, ReportsUsage, StreamMixin):
    """Chunk documents and give every chunk a CHOP signature prefix.

    Args:
        llm: The model (a callable, an LLM-protocol object, a LangChain chat model
            or a LlamaIndex LLM), or ``None`` for the offline deciders.
        chunker: The base chunker: ``None`` (the built-in :class:`~chop_integrations.lumber.LumberChunker`,
            see ``llm_boundaries``), a LumberChunker, any ``Callable[[str], list[str]]``,
            or an object with ``split_text`` (a LangChain text splitter).
        llm_boundaries: With ``chunker=None`` and an ``llm``: False (the default) lets the
            built-in LumberChunker place boundaries with the offline decider (structure and
            lexical cohesion) and spends the LLM on CHOP's decisions only, about 1.1x the
            document's tokens in prompts; True lets the LLM choose boundaries too, about 2.2x
            (LumberChunker's ~1.1x on top). The same as passing ``chunker=LumberChunker(llm)``.
        prefix: What goes in front of each chunk's text for embedding. ``"adaptive"`` (the
            default): the fields that tell chunks apart in the call's documents, or in ``corpus`` (see
            :mod:`chop_integrations.chop.prefix`; the choice is in ``last_usage.prefix_choice``);
            ``"fixed"``: the CHOP template ``model: [category | nouns | model]``; or your own
            ``str.format`` template using at least one of ``{category}``, ``{nouns}``, ``{model}``.
        corpus: A :class:`~chop_integrations.chop.corpus.CorpusState` every call reads and adds to (share it,
            save it); ``None`` (the default): each call starts from an empty one, depending only on its input.
        new_document_resets: A new document always starts a fresh signature; with False,
            the first chunk of a document is judged against the last chunk of the one before.
        source_key: Metadata key naming a chunk's document (for :meth:`annotate` and errors).
        on_llm_error: ``"fallback"`` (offline decider, counted and logged) or ``"raise"``.
        max_concurrency: LLM calls in flight at once.
        token_counter: ``None`` (tiktoken cl100k_base), an encoding name, or a callable.
        max_tokens: Maximum tokens per chunk of the built-in LumberChunker (its default when None).
            It keeps a document's sections as they are when the prefix prints the document's
            name, and joins them at LumberChunker's own sizes when not (see :data:`BUILTIN_TARGET_TOKENS`).
        cache: Answer cache: None, a path (SQLite) or an object with get/set.
        retry: Retry policy for transient errors.
        timeout: Seconds one LLM call may take.
        decisions: How the LLM is asked. ``"window"`` (the default, cheapest): one call
            judges a window of consecutive chunks, answering for each chunk ``true``
            (continues) or its CNM. ``"pair"``: one call per adjacent pair, answering
            continuity and, on FALSE, the CNM. ``"separate"``: the paper's two modules, a
            continuity call per pair and a CNM call per FALSE.
        budget: How many tokens of each chunk the prompts show.
        offline_continuity: Continuity decider for ``llm=None`` and fallbacks.
        offline_extractor: CNM extractor for ``llm=None`` and fallbacks (e.g. one with an extended lexicon).
        embedding: The embedding model's input limit (a number or an embedder, see
            :class:`~chop_integrations.lumber.LumberChunker`): the built-in LumberChunker keeps
            :data:`PREFIX_RESERVE` tokens of it free for the prefix, and a WARNING is logged when
            a chunk with its prefix is still over the limit (the embedder will truncate it).
        llm_options: The five LLM options as one :class:`~chop_integrations.llm.options.LLMOptions`
            instead of the keyword arguments; held as :attr:`llm_options` either way and handed
            to the runner and to the built-in LumberChunker.

    Raises:
        ConfigurationError: On an invalid option, or ``llm_options`` given together with one
            of its five keyword arguments changed from its default.
    """

    def __init__(
        self,
        llm: Any = None,
        *,
        chunker: Any = None,
        prefix: PrefixMode | str | PrefixPolicy = ADAPTIVE,
        new_document_resets: bool = True,
        source_key: str = "source",
        on_llm_error: OnLLMError = "fallback",
        max_concurrency: int = 8,
        token_counter: TokenCounter | str | None = None,
        max_tokens: int | None = None,
        cache: Any = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
        decisions: DecisionMode = "window",
        llm_boundaries: bool = False,
        budget: PromptBudget | None = None,
        offline_continuity: ContinuityDecider | None = None,
        offline_extractor: CNMExtractor | None = None,
        embedding: Any = None,
        llm_options: LLMOptions | None = None,
        corpus: CorpusState | None = None,
    ) -> None:
        self.llm = as_llm(llm)
        self.corpus = check_corpus(corpus)
        self.prefix_policy = prefix if isinstance(prefix, PrefixPolicy) else PrefixPolicy(prefix)
        self.new_document_resets = bool(new_document_resets)
        self.source_key = check_source_key(source_key)
        self.llm_options = llm_options_of(
            llm_options,
            on_llm_error=on_llm_error,
            max_concurrency=max_concurrency,
            cache=cache,
            retry=retry,
            timeout=timeout,
        )
        if max_tokens is not None:
            engine.positive_int("max_tokens", max_tokens)
        self.count = resolve_counter(token_counter)
        self.decisions = check_decisions(decisions)
        self.budget = budget or PromptBudget()
        self.max_tokens = max_tokens
        self.llm_boundaries = bool(llm_boundaries)
        self.embedding = resolve_embedding_limit(embedding)
        self._offline_continuity = offline_continuity
        self._offline_extractor = offline_extractor
        self.chunker, self._splitter = self._base_chunker(chunker, token_counter)
        self._base = BaseChunking(
            self.chunker,
            builtin=chunker is None,
            joining=functools.partial(self._builtin_chunker, token_counter, join=True),
            policy=self.prefix_policy,
            count=self.count,
        )
        self._usage = UsageSlot()

    # -- configuration helpers -----------------------------------------------------------------

    def _base_chunker(self, chunker: Any, token_counter: Any) -> tuple[Any, Splitter | None]:
        """The base chunker and, for a plain splitter, the function that splits a text."""
        if chunker is None:
            return self._builtin_chunker(token_counter), None
        if self.max_tokens is not None:
            raise ConfigurationError("max_tokens applies only to the built-in LumberChunker; set it on your chunker")
        return chunker, splitter_of(chunker)

    def _builtin_chunker(self, token_counter: Any, *, join: bool = False) -> Any:
        """CHOP's own LumberChunker, sharing this chunker's options (and its LLM with ``llm_boundaries``).

        Sections as they are, or with ``join`` LumberChunker's own sizes (see :data:`BUILTIN_TARGET_TOKENS`).

        Every option is passed by name (a renamed LumberChunker option fails here, loudly); the
        LLM options travel as this chunker's one :class:`~chop_integrations.llm.options.LLMOptions`.
        """
        from ..lumber.chunker import DEFAULT_MAX_TOKENS, LumberChunker

        return LumberChunker(
            self.llm if self.llm_boundaries else None,
            max_tokens=DEFAULT_MAX_TOKENS if self.max_tokens is None else self.max_tokens,
            token_counter=token_counter,
            llm_options=self.llm_options,
            embedding=self.embedding,
            embedding_reserve=PREFIX_RESERVE if self.embedding is not None else 0,
            target_tokens=None if join else BUILTIN_TARGET_TOKENS,
            min_tokens=None if join else BUILTIN_TARGET_TOKENS,
        )

    def _offline(self) -> tuple[ContinuityDecider, CNMExtractor]:
        """The offline deciders (built on first use unless given)."""
        if self._offline_continuity is None or self._offline_extractor is None:
            from ..offline import OfflineCNMExtractor, OfflineContinuity

            if self._offline_continuity is None:
                self._offline_continuity = OfflineContinuity()
            if self._offline_extractor is None:
                self._offline_extractor = OfflineCNMExtractor()
        return self._offline_continuity, self._offline_extractor

    def _docs(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[DocContext]:
        """The checked documents, named by ``metadata[source_key]`` where present."""
        docs = engine.batch(texts, metadatas)
        if self.source_key == "source":
            return docs
        named = []
        for doc in docs:
            value = doc.metadata.get(self.source_key)
            named.append(dataclasses.replace(doc, doc_id=str(value)) if value not in (None, "") else doc)
        return named

    # -- public API ----------------------------------------------------------------------------

    def chunk(self, text: str, *, metadata: dict[str, Any] | None = None) -> list[Chunk]:
        """Chunk one document and sign its chunks (see :meth:`chunk_many`)."""
        return self.chunk_many([text], metadatas=[metadata])[0]

    async def achunk(self, text: str, *, metadata: dict[str, Any] | None = None) -> list[Chunk]:
        """Async :meth:`chunk`."""
        return (await self.achunk_many([text], metadatas=[metadata]))[0]

    def chunk_many(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[list[Chunk]]:
        """Chunk many documents and sign every chunk; one list of chunks per document.

        Raises:
            InputError: On a text that is not a str, or metadata that is not a dict.
            LLMError: Under ``on_llm_error="raise"`` when a decision failed.
        """
        return run_sync(self.achunk_many(texts, metadatas=metadatas))

    async def achunk_many(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[list[Chunk]]:
        """Async :meth:`chunk_many`: base chunking, then concurrent CHOP decisions."""
        started = time.perf_counter()
        docs = self._docs(texts, metadatas)
        usage = UsageReport()
        self.last_usage = usage
        if self._splitter is None:
            per_doc, document_tokens = await self._base.achunk(docs, usage, self.corpus)
        else:
            per_doc, document_tokens = [self._split(doc) for doc in docs], sum(self.count(d.text) for d in docs)
        plan = self._plan(docs, per_doc)
        await self._adecide(plan, usage)
        return self._finish(plan, per_doc, usage, started, document_tokens)

    def observe_corpus(self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None) -> None:
        """Tell the adaptive prefix which documents the corpus holds, before you chunk them one at a time.

        Reads each document's name (metadata, else a confident cover line) and category (metadata) into
        :attr:`corpus` (a new :class:`~chop_integrations.chop.corpus.CorpusState` when it has none); no
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
        await self._adecide(plan, usage)
        return _flat(self._finish(plan, per_doc, usage, started, sum(c.token_count for c in plan.chunks)))

    def estimate(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None = None) -> UsageReport:
        """Estimate calls and tokens of :meth:`chunk_many` without calling the LLM (a dry run).

        Base chunks come from the offline path; continuity answers are assumed to be
        what the offline decider says, and every prompt is built and counted exactly.
        """
        docs = self._docs(texts, metadatas)
        report = UsageReport(estimated=True)
        if self._splitter is None:
            per_doc = self._base.estimate(docs, report, self.corpus)
        else:
            per_doc = [self._split(doc) for doc in docs]
        plan = self._plan(docs, per_doc)
        if self.llm is not None:
            self._estimate_calls(plan, report)
        report.add(documents=len(docs), document_tokens=sum(self.count(d.text) for d in docs), chunks=len(plan.chunks))
        report.token_counter = counter_name(self.count)
        return report

    # -- base chunks and the plan --------------------------------------------------------------

    def _split(self, doc: DocContext) -> list[Chunk]:
        """Chunks of ``doc`` from the plain splitter, with lossless offsets."""
        assert self._splitter is not None
        return split_chunks(doc, list(self._splitter(doc.text)) if doc.text else [], self.count)

    def _plan(self, docs: Sequence[DocContext], per_doc: Sequence[Sequence[Chunk]]) -> Plan:
        return build_plan(docs, per_doc, new_document_resets=self.new_document_resets)

    def _given(
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None
    ) -> tuple[Plan, list[list[Chunk]]]:
        """Group already-chunked texts into documents by ``source_key``."""
        docs, per_doc = group_given(self._docs(texts, metadatas), source_key=self.source_key, count=self.count)
        return self._plan(docs, per_doc), per_doc

    # -- deciding ------------------------------------------------------------------------------

    def _decide_offline(self, plan: Plan) -> Decisions:
        return decide_offline(plan, *self._offline())

    async def _adecide(self, plan: Plan, usage: UsageReport) -> None:
        decisions = self._decide_offline(plan) if self.llm is None else await self._llm_decisions(usage).decide(plan)
        usage.add(prefix_choice=resolve(plan, decisions, self.prefix_policy, self.corpus).describe())

    def _llm_decisions(self, usage: UsageReport) -> LLMDecisions:
        """The run's LLM deciders on one runner (cache, retries, timeout, this run's usage report)."""
        assert self.llm is not None
        runner = self.llm_options.runner(self.llm, usage=usage, token_counter=self.count)
        continuity, extractor = self._offline()
        return LLMDecisions.build(
            runner,
            continuity=continuity,
            extractor=extractor,
            mode=self.decisions,
            on_llm_error=self.on_llm_error,
            budget=self.budget,
            source_key=self.source_key,
            max_concurrency=self.max_concurrency,
        )

    # -- dry runs ------------------------------------------------------------------------------

    def _estimate_calls(self, plan: Plan, report: UsageReport) -> None:
        """Count the prompts a run would send, assuming the offline decider's answers."""
        window = self._llm_decisions(UsageReport()).window if self.decisions == "window" else None
        estimate_calls(
            plan,
            report,
            decisions=self.decisions,
            offline=self._decide_offline(plan),
            window_prompt=None if window is None else window.prompt,
            budget=self.budget,
            count=self.count,
            source_key=self.source_key,
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
        if self.embedding is not None:
            count = self.embedding.counter or self.count
            warn_if_truncated(
                (count(c.embed_text) for c in plan.chunks), self.embedding.max_tokens, what="prefixed chunks"
            )
        usage.add(documents=len(per_doc), document_tokens=document_tokens, chunks=len(plan.chunks))
        usage.wall_s = time.perf_counter() - started
        usage.token_counter = counter_name(self.count)
        self.last_usage = usage
        return [list(chunks) for chunks in per_doc]


# -- option checks and small helpers ---------------------------------------------------------------


def _flat(per_doc: Sequence[Sequence[Chunk]]) -> list[Chunk]:
    return [chunk for chunks in per_doc for chunk in chunks]
