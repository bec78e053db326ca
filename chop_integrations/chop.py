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

Without an LLM (``llm=None``) the offline deciders make the same decisions in
one sequential pass, with no runner and no calls.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import string
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from . import engine
from .cache import resolve_cache
from .chop_prompts import (
    LLMCNMExtractor,
    LLMContinuity,
    LLMPairJudge,
    LLMWindowJudge,
    PromptBudget,
    cnm_prompt,
    continuity_prompt,
    pair_prompt,
)
from .deciders import CNMExtractor, ContinuityDecider, DocContext
from .errors import ConfigurationError
from .llm import as_llm, gather_limited, run_sync
from .policy import check_policy
from .retry import RetryPolicy
from .runner import LLMRunner
from .tokens import TokenCounter, resolve_counter
from .types import CNM, Chunk
from .usage import UsageReport

__all__ = ["DEFAULT_PREFIX_TEMPLATE", "METADATA_KEYS", "CHOPChunker", "render_prefix", "split_offsets"]

#: The default prefix: ``[category | nouns | model] ``.
DEFAULT_PREFIX_TEMPLATE = "[{category} | {nouns} | {model}] "
#: Metadata keys CHOP adds to every chunk (the LangChain and LlamaIndex adapters rely on them).
METADATA_KEYS = ("chop_category", "chop_nouns", "chop_model", "chop_prefix", "chop_continues")
_FIELDS = {"category", "nouns", "model"}
#: Characters stripped from CNM values when the template uses them as delimiters.
_DELIMITERS = set('[](){}<>|«»"`#*')
#: Usage counters a base chunker's report contributes (its document and chunk counts are CHOP's own).
_LLM_COUNTERS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "retries", "fallbacks", "invalid_answers")
#: Estimated completion tokens per kind of answer (dry runs only).
_EST_COMPLETION = {"continuity": 2, "cnm": 30, "pair_true": 6, "pair_false": 36, "window": 8, "item": 2}
#: How the LLM is asked: one call per window of chunks, per pair (continuity + CNM), or separately.
DECISION_MODES = ("window", "pair", "separate")

Splitter = Callable[[str], Sequence[str]]


def _check_template(template: str) -> str:
    if not isinstance(template, str):
        raise ConfigurationError(f"prefix_template must be a str, got {type(template).__name__}")
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as err:
        raise ConfigurationError(
            f"prefix_template {template!r} is not a valid str.format template with the fields "
            f"{{category}}, {{nouns}} and {{model}}: {err}"
        ) from err
    if names - _FIELDS:
        raise ConfigurationError(
            f"prefix_template may use only {{category}}, {{nouns}} and {{model}}; got {sorted(names - _FIELDS)} "
            "(write a literal brace as {{ or }})"
        )
    try:
        template.format(category="", nouns="", model="")
    except (ValueError, IndexError, KeyError, AttributeError) as err:
        raise ConfigurationError(f"prefix_template {template!r} cannot be rendered: {err}") from err
    return template


def render_prefix(cnm: CNM | None, template: str = DEFAULT_PREFIX_TEMPLATE) -> str:
    """Render a signature as an embedding prefix that no CNM value can break.

    Values are already sanitised by :class:`~chop_integrations.types.CNM` (no
    newlines, control characters, ``|``, ``[`` or ``]``); here any other
    delimiter the template itself uses (brackets, quotes, ``#``, ``*``) is
    removed from the values too, so a value can never close the prefix or forge
    a field. An empty signature renders as ``""``.
    """
    if cnm is None or cnm.is_empty():
        return ""
    literal = "".join(text for text, _, _, _ in string.Formatter().parse(template))
    banned = {c for c in literal if c in _DELIMITERS}

    def clean(value: str | None) -> str:
        if not value:
            return ""
        value = "".join(" " if c in banned else c for c in value)
        return " ".join(value.split())

    nouns = [n for n in (clean(noun) for noun in cnm.nouns) if n]
    return template.format(category=clean(cnm.category), nouns=", ".join(nouns), model=clean(cnm.model))


# -- mapping a splitter's strings back to offsets -------------------------------------------------


def _locate(text: str, piece: str, cursor: int, previous_start: int) -> tuple[int, int] | None:
    """Where ``piece`` lies in ``text``: right after ``cursor`` (skipping a gap), or overlapping the previous piece."""
    after = text.find(piece, cursor)
    if after >= 0 and (not text[cursor:after].strip() or after == cursor):
        return after, after + len(piece)
    overlap = text.find(piece, previous_start + 1)
    if 0 <= overlap < cursor:
        return overlap, overlap + len(piece)
    if after >= 0:
        return after, after + len(piece)
    words = piece.split()
    if not words:
        return None
    loose = re.compile(r"\s*".join(re.escape(w) for w in words))
    found = loose.search(text, previous_start + 1 if previous_start >= 0 else 0)
    return (found.start(), found.end()) if found else None


def split_offsets(text: str, pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Turn a splitter's strings into lossless ``(start, end)`` spans of ``text``.

    Each piece is found in ``text`` (exactly, or ignoring whitespace the splitter
    changed); a chunk then runs from its piece's start to the next piece's start,
    so whatever the splitter dropped (whitespace between pieces, a leading or
    trailing gap) is kept and overlapping pieces become adjacent spans. The spans
    concatenate to ``text``.

    Raises:
        ConfigurationError: When a piece is not in the text at all.
    """
    starts: list[int] = []
    cursor, previous_start = 0, -1
    for index, piece in enumerate(pieces):
        if not isinstance(piece, str):
            raise ConfigurationError(
                f"the chunker returned a {type(piece).__name__} at {index}; it must return strings"
            )
        if not piece.strip():
            continue
        span = _locate(text, piece, cursor, previous_start)
        if span is None:
            raise ConfigurationError(
                f"the chunker's piece {index} ({piece[:40]!r}...) is not in the document; CHOP needs a splitter "
                "that returns slices of its input (whitespace may differ)"
            )
        start = span[0] if not starts else max(span[0], starts[-1] + 1)
        if start >= len(text):
            continue
        starts.append(start)
        cursor, previous_start = max(cursor, span[1]), start
    if not text:
        return []
    if not starts:
        return [(0, len(text))]
    starts[0] = 0
    return list(zip(starts, [*starts[1:], len(text)], strict=True))


# -- the engine -----------------------------------------------------------------------------------


@dataclasses.dataclass
class _Plan:
    """All chunks of a run in order, with the decisions they need."""

    chunks: list[Chunk]
    docs: list[DocContext]
    starts: list[int]  # indexes whose signature is always extracted afresh
    pairs: list[int]  # indexes i judged against i - 1


class CHOPChunker:
    """Chunk documents and give every chunk a CHOP signature prefix.

    Args:
        llm: The model (a callable, an LLM-protocol object, a LangChain chat model
            or a LlamaIndex LLM), or ``None`` for the offline deciders.
        chunker: The base chunker: ``None`` (the built-in :class:`~chop_integrations.lumber.LumberChunker`,
            see ``llm_boundaries``), a LumberChunker, any ``Callable[[str], list[str]]``,
            or an object with ``split_text`` (a LangChain text splitter).
        llm_boundaries: With ``chunker=None`` and an ``llm``: False (the default) lets the
            built-in LumberChunker place boundaries with the offline decider (structure and
            lexical cohesion) and spends the LLM on CHOP's decisions only, about 1.07x the
            document's tokens in prompts; True lets the LLM choose boundaries too, about 2.2x
            (LumberChunker's ~1.1x on top). The same as passing ``chunker=LumberChunker(llm)``.
        prefix_template: ``str.format`` template with ``{category}``, ``{nouns}``, ``{model}``.
        new_document_resets: A new document always starts a fresh signature; with False,
            the first chunk of a document is judged against the last chunk of the one before.
        source_key: Metadata key naming a chunk's document (for :meth:`annotate` and errors).
        on_llm_error: ``"fallback"`` (offline decider, counted and logged) or ``"raise"``.
        max_concurrency: LLM calls in flight at once.
        token_counter: ``None`` (tiktoken cl100k_base), an encoding name, or a callable.
        max_tokens: Maximum tokens per chunk of the built-in LumberChunker (its default when None).
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

    Raises:
        ConfigurationError: On an invalid option.
    """

    def __init__(
        self,
        llm: Any = None,
        *,
        chunker: Any = None,
        prefix_template: str = DEFAULT_PREFIX_TEMPLATE,
        new_document_resets: bool = True,
        source_key: str = "source",
        on_llm_error: str = "fallback",
        max_concurrency: int = 8,
        token_counter: TokenCounter | str | None = None,
        max_tokens: int | None = None,
        cache: Any = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
        decisions: str = "window",
        llm_boundaries: bool = False,
        budget: PromptBudget | None = None,
        offline_continuity: ContinuityDecider | None = None,
        offline_extractor: CNMExtractor | None = None,
    ) -> None:
        self.llm = as_llm(llm)
        self.prefix_template = _check_template(prefix_template)
        self.new_document_resets = bool(new_document_resets)
        if not isinstance(source_key, str) or not source_key:
            raise ConfigurationError(f"source_key must be a non-empty str, got {source_key!r}")
        self.source_key = source_key
        self.on_llm_error = check_policy(on_llm_error)
        self.max_concurrency = engine.positive_int("max_concurrency", max_concurrency)
        if max_tokens is not None:
            engine.positive_int("max_tokens", max_tokens)
        if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ConfigurationError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        self.count = resolve_counter(token_counter)
        self.cache = resolve_cache(cache)
        self.retry = retry
        self.timeout = timeout
        if decisions not in DECISION_MODES:
            raise ConfigurationError(f"decisions must be one of {DECISION_MODES}, got {decisions!r}")
        self.decisions = decisions
        self.budget = budget or PromptBudget()
        self.max_tokens = max_tokens
        self.llm_boundaries = bool(llm_boundaries)
        self._offline_continuity = offline_continuity
        self._offline_extractor = offline_extractor
        self.chunker, self._splitter = self._base_chunker(llm, chunker, token_counter)
        self.last_usage = UsageReport()

    # -- configuration helpers -----------------------------------------------------------------

    def _base_chunker(self, llm: Any, chunker: Any, token_counter: Any) -> tuple[Any, Splitter | None]:
        if chunker is None:
            from .lumber import LumberChunker

            options = {
                "max_tokens": self.max_tokens,
                "token_counter": token_counter,
                "on_llm_error": self.on_llm_error,
                "max_concurrency": self.max_concurrency,
                "cache": self.cache,
                "retry": self.retry,
                "timeout": self.timeout,
            }
            accepted = inspect.signature(LumberChunker).parameters
            kwargs = {k: v for k, v in options.items() if k in accepted and v is not None}
            return LumberChunker(self.llm if self.llm_boundaries else None, **kwargs), None
        if self.max_tokens is not None:
            raise ConfigurationError("max_tokens applies only to the built-in LumberChunker; set it on your chunker")
        if callable(getattr(chunker, "achunk_many", None)) and callable(getattr(chunker, "chunk_many", None)):
            return chunker, None
        if callable(getattr(chunker, "split_text", None)):
            return chunker, chunker.split_text
        if callable(chunker):
            return chunker, chunker
        raise ConfigurationError(
            "chunker must be None, a LumberChunker, a Callable[[str], list[str]] or an object with split_text; "
            f"got {type(chunker).__name__}"
        )

    def _offline(self) -> tuple[ContinuityDecider, CNMExtractor]:
        if self._offline_continuity is None or self._offline_extractor is None:
            from .offline import OfflineCNMExtractor, OfflineContinuity

            if self._offline_continuity is None:
                self._offline_continuity = OfflineContinuity()
            if self._offline_extractor is None:
                self._offline_extractor = OfflineCNMExtractor()
        return self._offline_continuity, self._offline_extractor

    def _docs(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[DocContext]:
        docs = engine.batch(texts, metadatas)
        if self.source_key == "source":
            return docs
        named = []
        for i, doc in enumerate(docs):
            value = doc.metadata.get(self.source_key)
            named.append(dataclasses.replace(doc, doc_id=str(value)) if value not in (None, "") else doc)
            _ = i
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
        if self.llm is None and not self._base_needs_async():
            return self._run_sync(texts, metadatas)
        return run_sync(self.achunk_many(texts, metadatas=metadatas))

    async def achunk_many(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[list[Chunk]]:
        """Async :meth:`chunk_many`: base chunking, then concurrent CHOP decisions."""
        started = time.perf_counter()
        docs = self._docs(texts, metadatas)
        usage = UsageReport()
        if self._splitter is None:
            per_doc = await self.chunker.achunk_many([d.text for d in docs], metadatas=[d.metadata for d in docs])
            _merge_llm_counts(usage, getattr(self.chunker, "last_usage", None))
        else:
            per_doc = [self._split(doc) for doc in docs]
        plan = self._plan(docs, per_doc)
        await self._adecide(plan, usage)
        return self._finish(plan, per_doc, usage, started, sum(self.count(d.text) for d in docs))

    def annotate(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[Chunk]:
        """Sign already-chunked texts, in order.

        Consecutive texts with the same ``metadata[source_key]`` form one document.
        A chunk's offsets are its ``start_index`` metadata where present, else ``0..len(text)``.
        """
        if self.llm is None:
            return self._annotate_sync(texts, metadatas)
        return run_sync(self.aannotate(texts, metadatas=metadatas))

    async def aannotate(
        self, texts: Sequence[str], *, metadatas: Sequence[dict[str, Any] | None] | None = None
    ) -> list[Chunk]:
        """Async :meth:`annotate`."""
        started = time.perf_counter()
        plan, per_doc = self._given(texts, metadatas)
        usage = UsageReport()
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
            base = self.chunker
            estimate = getattr(base, "estimate", None)
            if getattr(base, "llm", None) is not None and callable(estimate):
                _merge_llm_counts(report, estimate([d.text for d in docs], [d.metadata for d in docs]))
            from .lumber import LumberChunker

            max_tokens = getattr(base, "max_tokens", None)
            options: dict[str, Any] = {
                "token_counter": self.count,
                **({"max_tokens": max_tokens} if max_tokens else {}),
            }
            offline = LumberChunker(None, **options)
            per_doc = offline.chunk_many([d.text for d in docs], metadatas=[d.metadata for d in docs])
        else:
            per_doc = [self._split(doc) for doc in docs]
        plan = self._plan(docs, per_doc)
        if self.llm is not None:
            self._estimate_calls(plan, report)
        report.add(documents=len(docs), document_tokens=sum(self.count(d.text) for d in docs), chunks=len(plan.chunks))
        return report

    # -- planning ------------------------------------------------------------------------------

    def _base_needs_async(self) -> bool:
        return self._splitter is None and getattr(self.chunker, "llm", None) is not None

    def _split(self, doc: DocContext) -> list[Chunk]:
        assert self._splitter is not None
        pieces = list(self._splitter(doc.text)) if doc.text else []
        return [
            Chunk(
                text=doc.text[start:end],
                start=start,
                end=end,
                token_count=self.count(doc.text[start:end]),
                metadata=engine.chunk_metadata(doc, index, start),
            )
            for index, (start, end) in enumerate(split_offsets(doc.text, pieces))
        ]

    def _plan(self, docs: Sequence[DocContext], per_doc: Sequence[Sequence[Chunk]]) -> _Plan:
        chunks: list[Chunk] = []
        owners: list[DocContext] = []
        starts: list[int] = []
        pairs: list[int] = []
        for doc, doc_chunks in zip(docs, per_doc, strict=True):
            for position, chunk in enumerate(doc_chunks):
                index = len(chunks)
                first_overall = index == 0
                if first_overall or (position == 0 and self.new_document_resets):
                    starts.append(index)
                else:
                    pairs.append(index)
                chunks.append(chunk)
                owners.append(doc)
        return _Plan(chunks, owners, starts, pairs)

    def _given(
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None
    ) -> tuple[_Plan, list[list[Chunk]]]:
        """Group already-chunked texts into documents by ``source_key``."""
        checked = self._docs(texts, metadatas)
        groups: list[list[DocContext]] = []
        for item in checked:
            key = item.metadata.get(self.source_key)
            if groups and groups[-1][0].metadata.get(self.source_key) == key:
                groups[-1].append(item)
            else:
                groups.append([item])
        docs, per_doc = [], []
        for number, group in enumerate(groups):
            first = group[0]
            name = first.metadata.get(self.source_key)
            docs.append(
                DocContext(
                    doc_id=str(name) if name not in (None, "") else str(number),
                    text="".join(g.text for g in group),
                    metadata=first.metadata,
                    hints=first.hints,
                )
            )
            per_doc.append([self._given_chunk(g) for g in group])
        return self._plan(docs, per_doc), per_doc

    def _given_chunk(self, item: DocContext) -> Chunk:
        start = item.metadata.get("start_index")
        start = start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else 0
        return Chunk(
            text=item.text,
            start=start,
            end=start + len(item.text),
            token_count=self.count(item.text),
            metadata=dict(item.metadata),
        )

    # -- deciding ------------------------------------------------------------------------------

    def _decide_offline(self, plan: _Plan) -> tuple[dict[int, bool], dict[int, CNM]]:
        """One sequential pass with the offline deciders; ``previous`` is the last signature so far."""
        continuity, extractor = self._offline()
        continues: dict[int, bool] = {}
        fresh: dict[int, CNM] = {}
        signature: CNM | None = None
        starts = set(plan.starts)
        for i, chunk in enumerate(plan.chunks):
            doc = plan.docs[i]
            if i in starts:
                signature = fresh[i] = extractor.extract(chunk, doc, None)
                continue
            continues[i] = bool(continuity.decide(plan.chunks[i - 1], chunk, doc))
            if not continues[i]:
                signature = fresh[i] = extractor.extract(chunk, doc, signature)
        return continues, fresh

    async def _adecide(self, plan: _Plan, usage: UsageReport) -> None:
        if self.llm is None:
            continues, fresh = self._decide_offline(plan)
        else:
            continues, fresh = await self._decide_llm(plan, usage)
        _resolve(plan, continues, fresh, self.prefix_template)

    def _llm_deciders(self, usage: UsageReport) -> dict[str, Any]:
        assert self.llm is not None
        runner = LLMRunner(
            self.llm, usage=usage, token_counter=self.count, cache=self.cache, retry=self.retry, timeout=self.timeout
        )
        continuity, extractor = self._offline()
        options: dict[str, Any] = {
            "on_llm_error": self.on_llm_error,
            "budget": self.budget,
            "source_key": self.source_key,
        }
        return {
            "continuity": LLMContinuity(runner, fallback=continuity, **options),
            "extractor": LLMCNMExtractor(runner, fallback=extractor, **options),
            "pair": LLMPairJudge(runner, continuity=continuity, extractor=extractor, **options),
            "window": LLMWindowJudge(runner, continuity=continuity, extractor=extractor, **options),
        }

    def _first_round(self, plan: _Plan, deciders: dict[str, Any]) -> list[tuple[list[int], Callable[[], Any]]]:
        """Step 1's calls: each with the chunk indexes it answers for."""
        chunks, docs, starts = plan.chunks, plan.docs, set(plan.starts)
        if self.decisions == "window":
            judge = deciders["window"]
            return [
                (list(range(a, b)), partial(judge.ajudge, chunks[a:b], None if a in starts else chunks[a - 1], docs[a]))
                for a, b in self._windows(plan)
            ]
        extractor = deciders["extractor"]
        calls: list[tuple[list[int], Callable[[], Any]]] = [
            ([i], partial(extractor.aextract, chunks[i], docs[i], None)) for i in plan.starts
        ]
        ask = deciders["pair"].ajudge if self.decisions == "pair" else deciders["continuity"].adecide
        calls += [([i], partial(ask, chunks[i - 1], chunks[i], docs[i])) for i in plan.pairs]
        return calls

    def _windows(self, plan: _Plan) -> list[tuple[int, int]]:
        """Consecutive chunk ranges within the budget; a window never spans a signature reset."""
        starts, budget = set(plan.starts), self.budget
        windows: list[tuple[int, int]] = []
        first, shown = 0, 0
        for i, chunk in enumerate(plan.chunks):
            size = min(chunk.token_count, budget.cnm_tokens + budget.tail_tokens) + 4
            full = shown + size > budget.window_tokens or i - first >= budget.window_chunks
            if i > first and (i in starts or full):
                windows.append((first, i))
                first, shown = i, 0
            shown += size
        if plan.chunks:
            windows.append((first, len(plan.chunks)))
        return windows

    async def _decide_llm(self, plan: _Plan, usage: UsageReport) -> tuple[dict[int, bool], dict[int, CNM]]:
        """Steps 1 and 2: every first-round call concurrently, then the CNMs still missing."""
        deciders = self._llm_deciders(usage)
        calls = self._first_round(plan, deciders)
        results = await gather_limited([factory for _, factory in calls], self.max_concurrency)
        starts = set(plan.starts)
        continues: dict[int, bool] = {}
        fresh: dict[int, CNM] = {}
        for (indexes, _), result in zip(calls, results, strict=True):
            answers = result if self.decisions == "window" else [result]
            for i, answer in zip(indexes, answers, strict=True):
                if i in starts:
                    if isinstance(answer, CNM):
                        fresh[i] = answer
                    elif isinstance(answer, tuple) and answer[1] is not None:
                        fresh[i] = answer[1]
                    continue
                flag, cnm = answer if isinstance(answer, tuple) else (answer, None)
                continues[i] = bool(flag)
                if not flag and cnm is not None:
                    fresh[i] = cnm
        missing = [i for i in range(len(plan.chunks)) if (i in starts or not continues[i]) and i not in fresh]
        anchors, extractor, chunks, docs = _anchors(plan), deciders["extractor"], plan.chunks, plan.docs
        # Document openings first: their signatures are the hint for the others.
        for group in ([i for i in missing if i in starts], [i for i in missing if i not in starts]):
            extracted = await gather_limited(
                [partial(extractor.aextract, chunks[i], docs[i], fresh.get(anchors[i])) for i in group],
                self.max_concurrency,
            )
            fresh.update(zip(group, extracted, strict=True))
        return continues, fresh

    def _estimate_calls(self, plan: _Plan, report: UsageReport) -> None:
        """Count the prompts a run would send, assuming the offline decider's answers."""
        flags, offline_cnms = self._decide_offline(plan)
        anchors, count = _anchors(plan), self.count
        kw: dict[str, Any] = {"budget": self.budget, "count": count}
        if self.decisions == "window":
            judge = self._llm_deciders(UsageReport())["window"]
            starts = set(plan.starts)
            for a, b in self._windows(plan):
                prompt = judge.prompt(plan.chunks[a:b], None if a in starts else plan.chunks[a - 1], plan.docs[a])
                new = sum(1 for i in range(a, b) if not flags.get(i, False))
                done = (
                    _EST_COMPLETION["window"] + (b - a - new) * _EST_COMPLETION["item"] + new * _EST_COMPLETION["cnm"]
                )
                report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=done)
            return
        for i in plan.starts:
            prompt = cnm_prompt(plan.chunks[i], plan.docs[i], None, **kw)
            report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=_EST_COMPLETION["cnm"])
        for i in plan.pairs:
            previous, chunk, doc = plan.chunks[i - 1], plan.chunks[i], plan.docs[i]
            if self.decisions == "pair":
                prompt = pair_prompt(previous, chunk, doc, source_key=self.source_key, **kw)
                done = _EST_COMPLETION["pair_true" if flags[i] else "pair_false"]
                report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=done)
                continue
            prompt = continuity_prompt(previous, chunk, doc, source_key=self.source_key, **kw)
            report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=_EST_COMPLETION["continuity"])
            if not flags[i]:
                prompt = cnm_prompt(chunk, doc, offline_cnms[anchors[i]], **kw)
                report.add(calls=1, prompt_tokens=count(prompt), completion_tokens=_EST_COMPLETION["cnm"])

    # -- finishing -----------------------------------------------------------------------------

    def _run_sync(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[list[Chunk]]:
        """The offline path without an event loop."""
        started = time.perf_counter()
        docs = self._docs(texts, metadatas)
        usage = UsageReport()
        if self._splitter is None:
            per_doc = self.chunker.chunk_many([d.text for d in docs], metadatas=[d.metadata for d in docs])
            _merge_llm_counts(usage, getattr(self.chunker, "last_usage", None))
        else:
            per_doc = [self._split(doc) for doc in docs]
        plan = self._plan(docs, per_doc)
        continues, fresh = self._decide_offline(plan)
        _resolve(plan, continues, fresh, self.prefix_template)
        return self._finish(plan, per_doc, usage, started, sum(self.count(d.text) for d in docs))

    def _annotate_sync(self, texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[Chunk]:
        started = time.perf_counter()
        plan, per_doc = self._given(texts, metadatas)
        continues, fresh = self._decide_offline(plan)
        _resolve(plan, continues, fresh, self.prefix_template)
        usage = UsageReport()
        return _flat(self._finish(plan, per_doc, usage, started, sum(c.token_count for c in plan.chunks)))

    def _finish(
        self,
        plan: _Plan,
        per_doc: Sequence[Sequence[Chunk]],
        usage: UsageReport,
        started: float,
        document_tokens: int,
    ) -> list[list[Chunk]]:
        usage.add(documents=len(per_doc), document_tokens=document_tokens, chunks=len(plan.chunks))
        usage.wall_s = time.perf_counter() - started
        self.last_usage = usage
        return [list(chunks) for chunks in per_doc]


def _merge_llm_counts(usage: UsageReport, other: UsageReport | None) -> None:
    if other is not None:
        usage.add(**{name: getattr(other, name) for name in _LLM_COUNTERS})


def _anchors(plan: _Plan) -> dict[int, int]:
    """For every chunk, the index of the signature start it belongs to."""
    anchors: dict[int, int] = {}
    starts = set(plan.starts)
    current = 0
    for i in range(len(plan.chunks)):
        if i in starts:
            current = i
        anchors[i] = current
    return anchors


def _resolve(plan: _Plan, continues: dict[int, bool], fresh: dict[int, CNM], template: str) -> None:
    """Step 3: inherit on TRUE, take the fresh CNM otherwise; write cnm, prefix and metadata in place."""
    signature: CNM | None = None
    for i, chunk in enumerate(plan.chunks):
        flag = continues.get(i)
        signature = signature if flag else fresh[i]
        prefix = render_prefix(signature, template)
        chunk.cnm = signature
        chunk.continues_previous = flag
        chunk.prefix = prefix
        chunk.metadata.update(
            {
                "chop_category": signature.category if signature else None,
                "chop_nouns": ", ".join(signature.nouns) if signature else "",
                "chop_model": signature.model if signature else None,
                "chop_prefix": prefix,
                "chop_continues": flag,
            }
        )


def _flat(per_doc: Sequence[Sequence[Chunk]]) -> list[Chunk]:
    return [chunk for chunks in per_doc for chunk in chunks]
