"""CHOP over a document that arrives in pieces (offline): LumberChunker's stream, signed as it goes.

The batch run reads the whole document in four places; the stream settles each from a
bounded look-ahead:

* **the document's fields** (the model is the document's name, the category its kind) and
  the base chunker (sections as they are when the prefix prints the name): the name comes from
  the caller's metadata and the cover, in the opening :data:`OPENING_CHARS`; the offline
  category from the caller's ``category``, else from the opening ``body_chars`` (400,000 by
  default) that the extractor's lexicon reads. The stream holds that opening text before the
  first chunk; both are then exactly the batch run's.
* **continuity**: pairwise, the chunk before and the chunk itself (no look-ahead).
* **the heading path** of a chunk that starts a topic: the headings up to its end plus one line
  (:class:`~chop_integrations._text.headings.HeadingStream`). Batch reads markdown
  headings only when the document has any; the stream decides that from the opening it holds,
  so a document whose first markdown heading starts after the opening is read differently.
* **the adaptive prefix's sections** (``nouns`` printed when the run has two sections): chunks
  are held (when the document's name is printed: without it no section is) until a second section
  appears, the document ends, or :data:`HOLD_CHUNKS` chunks are held; at that bound the section
  path is printed (a long document with one section would drop it in batch): the one other place
  the stream may differ from the batch run.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from .._deciders import DocContext
from .._errors import ConfigurationError, InputError
from .._llm.usage import UsageReport
from .._offline.signature import document_identity
from .._text.headings import HeadingStream, markdown_within
from .._types import CNM, Chunk
from .base_chunks import name_metadata, signature_metadata
from .corpus import CorpusState
from .plan import Plan, _settle, document_signatures
from .prefix import PrefixChoice

__all__ = ["HOLD_CHUNKS", "OPENING_CHARS", "CHOPStream"]

#: Characters of the opening the document's name is read from (the cover lines' 4,000, see
#: :func:`~chop_integrations._offline.signature.cover_identity`; the spelling check reads 1,000).
OPENING_CHARS = 4000
#: Chunks held, at most, waiting for a second section before the adaptive prefix decides (not chosen on data:
#: a bound on memory, 64 chunks of at most ``max_tokens``; documents reach a second heading far sooner).
HOLD_CHUNKS = 64


class CHOPStream:
    """One document's streamed CHOP run (see the module docstring).

    Args:
        chop: The CHOPChunker whose options apply.
        metadata: The document's metadata.

    Attributes:
        peak_held: The most chunks held at once (waiting for headings or the prefix choice).
        opening_chars: Characters held before the first chunk (the opening).
        headings: The heading stream (its ``peak_entries`` instruments memory too).
        choice: The prefix choice, once made.
    """

    def __init__(self, chop: Any, metadata: dict[str, Any] | None) -> None:
        from .._offline import OfflineCNMExtractor, OfflineContinuity

        if chop.llm is not None:
            raise ConfigurationError("CHOPChunker.chunk_stream runs offline only (llm=None); call chunk() with an LLM")
        if chop.settings.splitter is not None or not callable(getattr(chop.chunker, "chunk_stream", None)):
            raise ConfigurationError(
                "CHOPChunker.chunk_stream needs a base chunker that streams (the built-in one or a LumberChunker); "
                f"{type(chop.chunker).__name__} splits whole texts only: call chunk() instead"
            )
        continuity, extractor = chop.settings.continuity, chop.settings.extractor
        if type(continuity) is not OfflineContinuity or type(extractor) is not OfflineCNMExtractor:
            raise ConfigurationError("CHOPChunker.chunk_stream needs the offline deciders as they ship")
        self.chop, self.continuity, self.extractor = chop, continuity, extractor
        self.doc = chop._docs([""], [metadata])[0]  # checks the metadata; the text arrives in pieces
        category_given = bool(self.doc.hints.get("category"))
        self.need = OPENING_CHARS if category_given else max(OPENING_CHARS, extractor.body_chars)
        self.policy = chop.settings.policy
        self.named_doc = self.doc  # the document with its opening, once read (its title block names it)
        self._names: tuple[str | None, dict[str, str]] | None = None  # the model and its name metadata
        self.corpus: CorpusState | None = chop.corpus
        self.choice: PrefixChoice | None = None
        self.held: deque[tuple[Chunk, CNM, bool | None]] = deque()
        self.waiting: deque[Chunk] = deque()
        self.sections: set[tuple[str, ...]] = set()
        self.seen: dict[tuple[str, ...], str] = {}  # each section title's first parent (PrefixPolicy.repeats)
        self.peak_held = 0
        self.opening_chars = 0
        self.own = CNM()
        self.headings = HeadingStream(markdown=False)
        self._previous: tuple[Chunk, CNM] | None = None
        self._chunks = 0
        self._opening: list[str] = []

    def run(self, pieces: Iterable[str]) -> Iterator[Chunk]:
        """The signed chunks of ``"".join(pieces)``, each yielded once no later text can change it."""
        source = iter(pieces)
        for piece in source:
            if not self._hold(piece):
                break
        chunker, opening = self._start()
        rest = map(self._seen, source)
        for chunk in chunker.chunk_stream(itertools.chain([opening], rest), metadata=self.doc.metadata):
            yield from self._take(chunk)
        yield from self._end(chunker)

    async def arun(self, pieces: AsyncIterable[str]) -> AsyncIterator[Chunk]:
        """Async :meth:`run` over an async iterable of pieces (the base chunker's ``achunk_stream``)."""
        source = aiter(pieces)
        async for piece in source:
            if not self._hold(piece):
                break
        chunker, opening = self._start()
        rest = _prepend(opening, source, self._seen)
        async for chunk in chunker.achunk_stream(rest, metadata=self.doc.metadata):
            for signed in self._take(chunk):
                yield signed
        for signed in self._end(chunker):
            yield signed

    def _hold(self, piece: Any) -> bool:
        """Add ``piece`` to the opening; True while the opening needs more."""
        self._opening.append(_checked(piece))
        self.opening_chars += len(piece)
        return self.opening_chars < self.need

    def _seen(self, piece: Any) -> str:
        """A piece after the opening, on its way to the base chunker: the heading stream reads it too."""
        self.headings.feed(_checked(piece))
        return piece  # type: ignore[no-any-return]

    def _take(self, chunk: Chunk) -> Iterator[Chunk]:
        """Hold a base chunk; yield the signed chunks that are final."""
        self.waiting.append(chunk)
        return self._drain()

    def _end(self, chunker: Any) -> Iterator[Chunk]:
        """The document ended: sign and yield what is held, then report."""
        self.headings.finish()
        yield from self._drain(final=True)
        self._report(chunker)

    def _start(self) -> tuple[Any, str]:
        """Settle what the opening decides: the markdown choice, the document's fields, the base chunker.

        Returns the base chunker and the opening (the heading stream has read it).
        """
        opening = "".join(self._opening)
        doc = self.named_doc = dataclasses.replace(self.doc, text=opening)
        self.headings = HeadingStream(markdown=markdown_within(opening[: self.need]))
        self.headings.feed(opening)
        self.own = self._fields(doc)
        unnamed = bool(opening.strip()) and not self.policy.carries_name([self.own.model], self.corpus)[0]
        if self.policy.template is not None or unnamed:
            # "fixed" or a template, or no name printed (so no section either): nothing to wait for (an empty
            # document is left to the end: it is not remembered, as in batch)
            self.choice = self.policy.choose([self.own], [], self.corpus)
        return self.chop._base.groups([doc], self.corpus)[0][0], opening

    def _report(self, chunker: Any) -> None:
        usage = UsageReport(documents=1, chunks=self._chunks)
        report = getattr(chunker, "last_usage", None)
        usage.add(document_tokens=int(getattr(report, "document_tokens", 0)))
        usage.add(prefix_choice=self.choice.describe() if self.choice is not None else "")
        self.chop.last_usage = usage

    def _fields(self, doc: DocContext) -> CNM:
        """The document's own model and category, as :func:`~.plan.document_signatures` settles them in batch."""
        category = self.extractor.category(doc)
        model = document_identity(doc)
        probe = Chunk(text="", start=0, end=0, token_count=0)
        return document_signatures(Plan([probe], [doc], [0], []), {0: CNM(category=category, model=model)})[id(doc)]

    # -- signing --------------------------------------------------------------------------------------

    def _drain(self, *, final: bool = False) -> Iterator[Chunk]:
        while self.waiting and (final or self.headings.complete >= self.waiting[0].end):
            self._sign(self.waiting.popleft())
        self.peak_held = max(self.peak_held, len(self.held) + len(self.waiting))
        if self.choice is None and final:  # an empty document has no fields to remember (as in batch)
            documents = [self.own] if self.held else []
            self.choice = self.policy.choose(documents, [cnm for _, cnm, _ in self.held], self.corpus)
        if self.choice is not None:
            while self.held:
                yield self._render(*self.held.popleft())

    def _sign(self, chunk: Chunk) -> None:
        """Decide continuity against the chunk before; a new topic takes its heading path."""
        flag: bool | None = None
        if self._previous is not None:
            flag = bool(self.continuity.decide(self._previous[0], chunk, self.doc))
        if flag:
            assert self._previous is not None
            cnm = self._previous[1]
        else:
            nouns = self.headings.path(chunk.start, chunk.end, chunk.text, depth=self.extractor.max_nouns)
            cnm = _settle(CNM(category=self.own.category, nouns=nouns, model=self.own.model), self.own)
            if nouns:
                self.sections.add(tuple(nouns))
        self.headings.forget_before(chunk.start)
        self._previous = (chunk, cnm)
        self.held.append((chunk, cnm, flag))
        self.peak_held = max(self.peak_held, len(self.held) + len(self.waiting))
        if self.choice is None and (len(self.sections) >= 2 or len(self.held) >= HOLD_CHUNKS):
            self.choice = self._choose()

    def _choose(self) -> PrefixChoice:
        choice = self.policy.choose([self.own], [cnm for _, cnm, _ in self.held], self.corpus)
        if choice.mode != "adaptive" or "nouns" in choice.fields or "model" not in choice.fields:
            return choice  # (a section is printed only beside the name: without the model there is nothing to add)
        fields = (*choice.fields, "nouns")  # the bound: a second section may still come (see the module docstring)
        reasons = tuple((n, "kept" if n == "nouns" else why) for n, why in choice.reasons)
        return PrefixChoice(choice.mode, fields, reasons)

    def _render(self, chunk: Chunk, cnm: CNM, flag: bool | None) -> Chunk:
        assert self.choice is not None
        prefix = self.policy.render(cnm, self.choice, self.policy.repeats(cnm, self.seen))
        chunk.cnm, chunk.continues_previous, chunk.prefix = cnm, flag, prefix
        if self._names is None or self._names[0] != cnm.model:
            self._names = (cnm.model, name_metadata(self.named_doc, cnm))
        chunk.metadata.update(signature_metadata(cnm, prefix, flag, self._names[1]))
        self._chunks += 1
        return chunk


async def _prepend(first: str, rest: AsyncIterator[Any], each: Callable[[Any], str]) -> AsyncIterator[str]:
    """``first``, then ``each(piece)`` for the rest."""
    yield first
    async for piece in rest:
        yield each(piece)


def _checked(piece: Any) -> str:
    if not isinstance(piece, str):
        raise InputError(f"chunk_stream pieces must be strings, got {type(piece).__name__}")
    return piece
