"""A CHOP run as data: the chunks in order, the decisions they need, and how the answers resolve.

:class:`Plan` lists every chunk of a run (all documents, in order) with its
document and whether its signature is always extracted afresh (a *start*) or
decided against the chunk before (a *pair*). The functions here need no LLM:
they build plans, group a window mode's chunks, make the offline decisions,
gather first-round answers and resolve inheritance (step 3 in ``docs/architecture.md``,
*CHOP*). :class:`~chop_integrations.CHOPChunker` drives them.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .._deciders import DocContext
from .._defaults import CHOP_WINDOW_CUTS
from .._offline.signature import document_identity, named_on_cover, plausible_name, same_name
from .._text.tiling import ContentCuts
from .._text.tokens import TokenCounter
from .._types import CNM, Chunk
from .base_chunks import name_metadata, signature_metadata
from .corpus import CorpusState
from .excerpts import PromptBudget
from .prefix import PrefixChoice, PrefixPolicy


class Decisions(NamedTuple):
    """What the deciders answered for a plan (a named pair: it unpacks as ``continues, fresh``).

    Attributes:
        continues: Continuity per chunk index, for every chunk that is not a document's first.
        fresh: Fresh signatures per chunk index (document openings and chunks that do not continue).
    """

    continues: dict[int, bool]
    fresh: dict[int, CNM]


@dataclasses.dataclass
class Plan:
    """All chunks of a run in order, with the decisions they need."""

    chunks: list[Chunk]
    docs: list[DocContext]
    starts: list[int]  # indexes whose signature is always extracted afresh
    pairs: list[int]  # indexes i judged against i - 1


def build_plan(docs: Sequence[DocContext], per_doc: Sequence[Sequence[Chunk]], *, new_document_resets: bool) -> Plan:
    """Lay out the chunks of ``docs``: the run's first chunk (and each document's first, on reset) is a start."""
    plan = Plan([], [], [], [])
    for doc, doc_chunks in zip(docs, per_doc, strict=True):
        for position, chunk in enumerate(doc_chunks):
            index = len(plan.chunks)
            if index == 0 or (position == 0 and new_document_resets):
                plan.starts.append(index)
            else:
                plan.pairs.append(index)
            plan.chunks.append(chunk)
            plan.docs.append(doc)
    return plan


# -- already-chunked texts --------------------------------------------------------------------------


def group_given(
    items: Sequence[DocContext], *, source_key: str, count: TokenCounter
) -> tuple[list[DocContext], list[list[Chunk]]]:
    """Group already-chunked texts into documents: consecutive items with the same ``metadata[source_key]``."""
    groups: list[list[DocContext]] = []
    for item in items:
        key = item.metadata.get(source_key)
        if groups and groups[-1][0].metadata.get(source_key) == key:
            groups[-1].append(item)
        else:
            groups.append([item])
    per_doc = [[given_chunk(item, count) for item in group] for group in groups]
    docs = [
        _group_document(number, group, chunks, source_key)
        for number, (group, chunks) in enumerate(zip(groups, per_doc, strict=True))
    ]
    return docs, per_doc


def _group_document(number: int, group: list[DocContext], chunks: list[Chunk], source_key: str) -> DocContext:
    first = group[0]
    name = first.metadata.get(source_key)
    return DocContext(
        doc_id=str(name) if name not in (None, "") else str(number),
        text=_joined(chunks),
        metadata=first.metadata,
    )


def _joined(chunks: list[Chunk]) -> str:
    """The pieces of one document as one text for its headings and cover.

    Pieces that abut in the original (one's ``end`` is the next one's ``start_index``) join as they are, so
    lossless pieces give the original back. Splitters strip the whitespace between pieces; joined with
    nothing, ``"tray."`` and ``"2. Toner"`` would make one line that reads as a heading, so a line break
    goes between pieces that neither end nor start with whitespace.
    """
    parts = [chunk.text for chunk in chunks[:1]]
    for previous, chunk in itertools.pairwise(chunks):
        if previous.end != chunk.start and previous.text[-1:].strip() and chunk.text[:1].strip():
            parts.append("\n")
        parts.append(chunk.text)
    return "".join(parts)


def given_chunk(item: DocContext, count: TokenCounter) -> Chunk:
    """An already-chunked text as a chunk: offsets from its ``start_index`` metadata, else ``0..len(text)``."""
    start = item.metadata.get("start_index")
    start = start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else 0
    return Chunk(
        text=item.text,
        start=start,
        end=start + len(item.text),
        token_count=count(item.text),
        metadata=dict(item.metadata),
    )


# -- deciding -----------------------------------------------------------------------------------------


#: Window decisions: where a window of chunks closes by content (see :func:`windows`; the shares are
#: :data:`~chop_integrations._defaults.CHOP_WINDOW_CUTS`).
WINDOW_CUTS = ContentCuts(*CHOP_WINDOW_CUTS)


def windows(plan: Plan, budget: PromptBudget) -> list[tuple[int, int]]:
    """Consecutive chunk ranges within the budget; a window never spans a signature reset.

    A window closes early after a chunk that :data:`WINDOW_CUTS` picks by content, so an
    edit re-asks only the windows around it (see :mod:`chop_integrations._text.tiling`).
    """
    starts = set(plan.starts)
    sizes = [min(c.token_count, budget.cnm_tokens + budget.tail_tokens) + 4 for c in plan.chunks]
    ranges: list[tuple[int, int]] = []
    first = 0
    while first < len(plan.chunks):
        end = _window_end(plan, sizes, starts, first, budget)
        ranges.append((first, end))
        first = end
    return ranges


def _window_end(plan: Plan, sizes: list[int], starts: set[int], first: int, budget: PromptBudget) -> int:
    """End (exclusive) of the window from chunk ``first``: a content cut, a reset, or the last candidate when full."""
    cuts, i = WINDOW_CUTS.window(budget.window_tokens), first
    while not cuts.add(plan.chunks[i].text, sizes[i]):
        i += 1
        if i >= len(plan.chunks) or i in starts:
            return i
        if cuts.filled + sizes[i] > budget.window_tokens or i - first >= budget.window_chunks:
            return first + (cuts.backup or i - first)
    return i + 1


def decide_offline(
    plan: Plan, decide: Callable[[Chunk, Chunk, DocContext], bool], extract: Callable[..., CNM]
) -> Decisions:
    """One sequential pass with the offline deciders' sync methods (``decide``, ``extract``).

    ``extract(chunk, doc, previous)``: ``previous`` is the last signature so far.
    """
    continues: dict[int, bool] = {}
    fresh: dict[int, CNM] = {}
    signature: CNM | None = None
    starts = set(plan.starts)
    for i, chunk in enumerate(plan.chunks):
        doc = plan.docs[i]
        if i in starts:
            signature = fresh[i] = extract(chunk, doc, None)
            continue
        continues[i] = bool(decide(plan.chunks[i - 1], chunk, doc))
        if not continues[i]:
            signature = fresh[i] = extract(chunk, doc, signature)
    return Decisions(continues, fresh)


#: A first-round call: the chunk indexes it answers for, and the call itself.
Call = tuple[list[int], Callable[[], Any]]


def collect_answers(plan: Plan, calls: Sequence[Call], results: Sequence[Any], *, windowed: bool) -> Decisions:
    """Read the first round's answers: a CNM, a ``(continues, cnm)`` pair or a bare flag per chunk."""
    starts = set(plan.starts)
    continues: dict[int, bool] = {}
    fresh: dict[int, CNM] = {}
    for (indexes, _), result in zip(calls, results, strict=True):
        answers = result if windowed else [result]
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
    return Decisions(continues, fresh)


def missing_signatures(plan: Plan, decisions: Decisions) -> tuple[list[int], list[int]]:
    """Chunks that need a signature the first round did not give: document openings first, then the others."""
    continues, fresh = decisions
    starts = set(plan.starts)
    missing = [i for i in range(len(plan.chunks)) if (i in starts or not continues[i]) and i not in fresh]
    return [i for i in missing if i in starts], [i for i in missing if i not in starts]


def anchors(plan: Plan) -> dict[int, int]:
    """For every chunk, the index of the signature start it belongs to."""
    found: dict[int, int] = {}
    starts = set(plan.starts)
    current = 0
    for i in range(len(plan.chunks)):
        if i in starts:
            current = i
        found[i] = current
    return found


def document_signatures(plan: Plan, fresh: dict[int, CNM]) -> dict[int, CNM]:
    """Each document's own fields (model, category), keyed by ``id(doc)``: what every chunk of it carries.

    The model is the caller's name for the document or a confident cover title
    (:func:`~chop_integrations._offline.signature.document_identity`), else the name the
    decider gave most often for the document's chunks, when it is a plausible name (a lone code
    such as ``"X-200"`` only when the document's opening names it: else it is a per-chunk token); the
    category is the caller's, else the decider's most frequent one. Values that fail
    :func:`~chop_integrations._offline.signature.plausible_name` (ids, hashes, codes, numbers) are dropped,
    whichever decider (offline or LLM) gave them.
    """
    given: dict[int, tuple[list[str], list[str]]] = {}  # per document, the models and categories given
    docs = plan.docs
    for i in sorted(fresh):  # (the indexes alone: quicker to sort than the pairs)
        cnm, key = fresh[i], id(docs[i])
        if key not in given:
            given[key] = ([], [])
        if cnm.model:
            given[key][0].append(cnm.model)
        if cnm.category:
            given[key][1].append(cnm.category)
    out: dict[int, CNM] = {}
    for key, doc in {id(d): d for d in docs}.items():
        named, kinds = given.get(key, ((), ()))
        models, categories = Counter(named), Counter(kinds)  # counted in the order given (ties: the first)
        for value in [m for m in models if not plausible_name(m, code_ok=named_on_cover(m, doc.text))]:
            del models[value]
        for value in [c for c in categories if not plausible_name(c)]:
            del categories[value]
        identity = document_identity(doc)
        model = same_name(identity, list(models)) if identity else _most_common(models)
        category = doc.hints.get("category") or _most_common(categories)
        out[key] = CNM(category=category, model=model)
    return out


def _most_common(counts: Counter[str]) -> str | None:
    return counts.most_common(1)[0][0] if counts else None  # ties: the first given (Counter keeps order)


def resolve(plan: Plan, decisions: Decisions, policy: PrefixPolicy, corpus: CorpusState | None) -> PrefixChoice:
    """Step 3: inherit on TRUE, take the fresh CNM otherwise; write cnm, prefix and metadata in place.

    Every signature takes its document's own model and category (see :func:`document_signatures`),
    so neither is ever carried from one document into another; the prefix policy then chooses
    which fields to render (adding the run's documents to ``corpus``, when given), and its choice is returned.
    """
    continues, fresh = decisions
    own = document_signatures(plan, fresh)
    signatures: list[CNM] = []
    signature: CNM | None = None
    current: DocContext | None = None
    settled: dict[int, CNM] = {}  # one object per signature in the current document: inheriting chunks share it
    for i, doc in enumerate(plan.docs):
        if doc is not current:  # (a document's chunks come one after another)
            current, settled = doc, {}
        signature = signature if continues.get(i) else fresh[i]
        cnm = settled.get(id(signature))
        if cnm is None:
            cnm = settled[id(signature)] = _settle(signature, own[id(doc)])
        signatures.append(cnm)
    choice = policy.choose(list(own.values()), signatures, corpus)
    # Inheriting chunks share one signature object: render it once. Only the prefix is kept, not the metadata dict:
    # a dict per signature kept to the end of the run would outlive the collector's young generations and set off
    # its full passes over every object of the process, which cost more than building each chunk's dict.
    rendered: dict[int, str] = {}
    seen: dict[int, dict[tuple[str, ...], str]] = {}  # per document: each section title's first parent
    named: dict[int, dict[str, str]] = {}  # per document: where its name came from, its aliases
    for i, (chunk, cnm) in enumerate(zip(plan.chunks, signatures, strict=True)):
        flag = continues.get(i)
        prefix = rendered.get(id(cnm))
        if prefix is None:
            repeated = policy.repeats(cnm, seen.setdefault(id(plan.docs[i]), {}))
            prefix = rendered[id(cnm)] = policy.render(cnm, choice, repeated, memo=False)
        chunk.cnm = cnm
        chunk.continues_previous = flag
        chunk.prefix = prefix
        names = named.get(id(plan.docs[i]))
        if names is None:
            names = named[id(plan.docs[i])] = name_metadata(plan.docs[i], cnm)
        chunk.metadata.update(signature_metadata(cnm, prefix, flag, names))
    return choice


def _settle(signature: CNM | None, fields: CNM) -> CNM:
    """``signature`` with its document's own model and category (itself when they already agree)."""
    nouns = signature.nouns if signature is not None else []
    if signature is not None and (signature.model, signature.category) == (fields.model, fields.category):
        return signature
    return CNM(category=fields.category, nouns=nouns, model=fields.model)
