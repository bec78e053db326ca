"""CHOP as a LangChain ``BaseDocumentTransformer``.

The transformer holds no algorithm: a :class:`~chop_integrations.CHOPChunker`
decides continuity and extracts CNM signatures; this module moves documents in
and out. Signatures go into metadata (``chop_category``, ``chop_nouns``,
``chop_model``, ``chop_prefix``: strings, ``""`` when unknown, nouns comma-joined;
``chop_continues``: a bool, False on a document's first chunk), the same types as the
LlamaIndex extractor writes and all kept by ``filter_complex_metadata`` (Chroma).

A stock LangChain vector store embeds ``page_content`` only, so by default the transformer writes
``prefix + text`` there (``prefix_page_content=True``) and keeps the original text in
``metadata["chop_text"]``; :class:`~chop_integrations.langchain.CHOPRetriever` gives the original back.

Each output document also says where it sits: ``chop_document`` (a key of its document: a hash of the
group's name and text) and ``chop_index`` (its position in that document), and, unless it came with an
id, it gets a stable id made from the two (:func:`chunk_id`), so ingesting the same documents again
overwrites instead of duplicating, and a retriever can fetch a hit's neighbours by id.

Whole documents: without ``splitter`` or ``chunk=True`` the input documents are taken as chunks already, but
one over ``max_tokens`` (LumberChunker's default, 550, when unset) is chunked by CHOP's own chunker first,
with one warning per call: no output chunk is ever a whole manual the embedding model would truncate.

Documents are grouped the way CHOP needs them: chunks with the same
``metadata[source_key]`` (``"source"`` by default: the pages of one PDF, the chunks
of one file) form one document; chunks that the transformer split itself from
different input documents without one are kept apart. With ``new_document_resets=True``
(the default) no document ever inherits another one's signature.
"""

from __future__ import annotations

import copy
import hashlib
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document
from langchain_core.runnables import RunnableConfig

from .._chop.base_chunks import METADATA_KEYS as CHOP_METADATA_KEYS
from .._chop.base_chunks import signature_metadata, split_chunks, splitter_of
from .._chop.chunker import CHOPChunker
from .._chop.config import CHOPConfig
from .._chop.records import DOCUMENT_KEY, INDEX_KEY, TEXT_KEY, chunk_id
from .._deciders import DocContext
from .._defaults import DEFAULT_MAX_TOKENS
from .._errors import ConfigurationError, InputError
from .._llm.progress_bar import watched
from .._llm.usage import UsageReport
from .._types import Chunk
from ._llm import wrap_llm

#: Private metadata keys the transformer uses on its working copies; never in its output.
_GROUP = "_chop_group"
_PARENT = "_chop_parent"

#: The metadata keys the transformer writes: :data:`chop_integrations._chop.METADATA_KEYS`.
METADATA_KEYS = CHOP_METADATA_KEYS
logger = logging.getLogger("chop_integrations")


class CHOPDocumentTransformer(BaseDocumentTransformer):
    """Adds CHOP signatures (category, nouns, model) to documents for retrieval among near-identical documents.

    Example:
        >>> chop = CHOPDocumentTransformer(llm=None)  # offline decider; or any BaseChatModel
        >>> signed = chop.transform_documents(splitter.split_documents(docs))
        >>> signed[0].metadata["chop_prefix"]

    Args:
        llm: Any LangChain ``BaseChatModel``, an LLM-protocol object, a callable, or
            ``None`` for the offline deciders.
        config: A ready :class:`~chop_integrations.CHOPConfig`; ``options`` override its fields.
        corpus: The corpus state the adaptive prefix reads and adds to (passed to the engine).
        splitter: A LangChain ``TextSplitter`` (for example
            :class:`~chop_integrations.langchain.LumberChunkerTextSplitter`) that
            chunks the input documents first.
        chunk: Chunk the input documents with CHOP's own LumberChunker first
            (ignored when ``splitter`` is given). With neither, the input documents
            are taken as chunks already; one over ``max_tokens`` (LumberChunker's default when unset) is
            chunked by CHOP's own chunker (your ``chunker=`` if you gave one), with a warning.
        prefix_page_content: Write ``prefix + text`` into ``page_content`` (the default: a
            stock vector store embeds only ``page_content``); the original text stays in
            ``metadata["chop_text"]``. ``False`` leaves ``page_content`` as it was.
        add_start_index: With ``chunk=True``, put each chunk's exact character
            offset in ``metadata["start_index"]``.
        llm_config: ``RunnableConfig`` (callbacks, tags, metadata) for every call of a chat model.
        show_progress: With an LLM, a bar over each run's decisions (calls, tokens, time left) on a terminal
            (never in logs or pipes); ``transform_documents(docs, show_progress=...)`` overrides it per call.
        **options: Any :class:`~chop_integrations.CHOPConfig` field by name, with its default
            (``prefix``, ``decisions``, ``max_concurrency``, ``source_key``, ``cache``...; an unknown
            name raises and names the valid ones). ``source_key`` names the metadata key that
            groups chunks into documents (see above).

    Attributes:
        chop: The :class:`~chop_integrations.CHOPChunker` doing the work.
        config: The :class:`~chop_integrations.CHOPConfig` as given (the engine's groups by the
            transformer's own document key instead of ``source_key``).

    Raises:
        ConfigurationError: On an invalid option.
    """

    def __init__(
        self,
        llm: Any = None,
        config: CHOPConfig | None = None,
        *,
        corpus: Any = None,
        splitter: Any = None,
        chunk: bool = False,
        prefix_page_content: bool = True,
        add_start_index: bool = False,
        llm_config: RunnableConfig | None = None,
        show_progress: bool = False,
        **options: Any,
    ) -> None:
        self.show_progress = bool(show_progress)
        if splitter is not None and not callable(getattr(splitter, "split_documents", None)):
            raise ConfigurationError(
                f"splitter must be a LangChain TextSplitter (with split_documents), got {type(splitter).__name__}"
            )
        self.config = CHOPConfig.of(config, options)
        self.source_key = self.config.source_key
        self.splitter = splitter
        self.chunk = bool(chunk)
        self.prefix_page_content = bool(prefix_page_content)
        self.add_start_index = bool(add_start_index)
        engine_config = CHOPConfig.of(self.config, {"source_key": _GROUP})
        self.chop = CHOPChunker(wrap_llm(llm, llm_config), engine_config, corpus=corpus)

    @property
    def last_usage(self) -> UsageReport:
        """The usage report of the last run: calls, tokens, retries, fallbacks, wall time."""
        return self.chop.last_usage

    def observe_corpus(self, documents: Sequence[Document]) -> None:
        """Tell the adaptive prefix every document's name first (no chunking, no call), as ``CHOPChunker`` does.

        Then documents transformed a few at a time get the prefix fields one call over all of them gives.

        Raises:
            InputError: When an item is not a LangChain ``Document``.
        """
        documents = _checked(documents)
        self.chop.observe_corpus([d.page_content for d in documents], metadatas=[d.metadata for d in documents])

    # -- BaseDocumentTransformer -----------------------------------------------------------------

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Chunk (when configured) and sign ``documents``; returns new documents in order.

        Raises:
            InputError: When an item is not a LangChain ``Document``.
            LLMError: Under ``on_llm_error="raise"`` when a decision failed.
        """
        with watched(show=kwargs.get("show_progress", self.show_progress) and self._calls_llm, description="CHOP"):
            pieces = self._pieces(_checked(documents))
            chunks = self.chop.annotate([d.page_content for d in pieces], metadatas=self._engine_metadata(pieces))
        return self._signed(pieces, chunks)

    async def atransform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Async :meth:`transform_documents`: native async LLM calls, at most ``max_concurrency`` at once."""
        with watched(show=kwargs.get("show_progress", self.show_progress) and self._calls_llm, description="CHOP"):
            pieces = await self._apieces(_checked(documents))
            metadatas = self._engine_metadata(pieces)
            chunks = await self.chop.aannotate([d.page_content for d in pieces], metadatas=metadatas)
        return self._signed(pieces, chunks)

    @property
    def _calls_llm(self) -> bool:
        """Whether a run may call an LLM (the bar counts LLM decisions: offline there is nothing to show)."""
        return (
            self.chop.llm is not None
            or getattr(self.chop.chunker, "llm", None) is not None
            or self.splitter is not None
        )

    # -- chunking --------------------------------------------------------------------------------

    def _tagged(self, documents: list[Document]) -> list[Document]:
        """Copies of ``documents`` that remember their position (splitters copy metadata into chunks)."""
        return [
            Document(page_content=d.page_content, metadata={**d.metadata, _PARENT: i}) for i, d in enumerate(documents)
        ]

    def _pieces(self, documents: list[Document]) -> list[Document]:
        if self.splitter is not None:
            return list(self.splitter.split_documents(self._tagged(documents)))
        if self.chunk:
            texts, metas = [d.page_content for d in documents], [d.metadata for d in documents]
            return self._from_chunks(documents, self.chop.chunker.chunk_many(texts, metadatas=metas))
        over = self._oversized(documents)
        return self._fitted(documents, over, self._split_whole([documents[i] for i in over]))

    async def _apieces(self, documents: list[Document]) -> list[Document]:
        if self.splitter is not None:
            return list(await self.splitter.atransform_documents(self._tagged(documents)))
        if self.chunk:
            texts, metas = [d.page_content for d in documents], [d.metadata for d in documents]
            return self._from_chunks(documents, await self.chop.chunker.achunk_many(texts, metadatas=metas))
        over = self._oversized(documents)
        return self._fitted(documents, over, await self._asplit_whole([documents[i] for i in over]))

    # -- whole documents given as chunks ---------------------------------------------------------

    @property
    def max_tokens(self) -> int:
        """The most tokens an input document may hold to be taken as one chunk (LumberChunker's own maximum)."""
        return DEFAULT_MAX_TOKENS if self.config.max_tokens is None else self.config.max_tokens

    def _oversized(self, documents: list[Document]) -> list[int]:
        """The positions of the documents over :attr:`max_tokens` (warned about once, here)."""
        over = [i for i, d in enumerate(documents) if self.chop.settings.count(d.page_content) > self.max_tokens]
        if over:
            logger.warning(
                "CHOPDocumentTransformer: %d of %d documents are over max_tokens=%d and were chunked by CHOP's own "
                "chunker; pass chunk=True to chunk whole documents (no warning), or a splitter",
                len(over),
                len(documents),
                self.max_tokens,
            )
        return over

    def _split_whole(self, whole: list[Document]) -> list[list[Chunk]]:
        splitter = splitter_of(self.chop.chunker)
        if splitter is not None:
            return [split_chunks(_doc(d), list(splitter(d.page_content)), self.chop.settings.count) for d in whole]
        return self.chop.chunker.chunk_many([d.page_content for d in whole], metadatas=[d.metadata for d in whole])

    async def _asplit_whole(self, whole: list[Document]) -> list[list[Chunk]]:
        if splitter_of(self.chop.chunker) is not None or not whole:
            return self._split_whole(whole)
        texts, metas = [d.page_content for d in whole], [d.metadata for d in whole]
        return list(await self.chop.chunker.achunk_many(texts, metadatas=metas))

    def _fitted(self, documents: list[Document], over: list[int], per_whole: list[list[Chunk]]) -> list[Document]:
        """``documents`` with each one at a position of ``over`` replaced by its chunks (``per_whole``, in order).

        A chunk keeps its document's metadata (its ``start_index`` moved by the chunk's offset when the
        document had one, or set with ``add_start_index``) and its document's position, so the chunks of a
        document without a ``source`` form one CHOP document of their own.
        """
        if not over:
            return documents
        chunks_of = dict(zip(over, per_whole, strict=True))
        out: list[Document] = []
        for parent, document in enumerate(documents):
            if parent not in chunks_of:
                out.append(document)
                continue
            base = document.metadata.get("start_index")
            for chunk in chunks_of[parent]:
                metadata = {**copy.deepcopy(document.metadata), _PARENT: parent}
                if isinstance(base, int) and not isinstance(base, bool):
                    metadata["start_index"] = base + chunk.start
                elif self.add_start_index:
                    metadata["start_index"] = chunk.start
                out.append(Document(page_content=chunk.text, metadata=metadata))
        return out

    def _from_chunks(self, documents: list[Document], per_doc: list[list[Chunk]]) -> list[Document]:
        pieces = []
        for parent, (document, chunks) in enumerate(zip(documents, per_doc, strict=True)):
            for chunk in chunks:
                metadata = {**copy.deepcopy(document.metadata), _PARENT: parent, "start_index": chunk.start}
                pieces.append(Document(page_content=chunk.text, metadata=metadata))
        return pieces

    # -- signing ---------------------------------------------------------------------------------

    def _engine_metadata(self, pieces: list[Document]) -> list[dict[str, Any]]:
        """The metadata the engine sees: the piece's own plus the group that makes one CHOP document.

        The group is the piece's source; a piece without one that the transformer
        split from an input document belongs to that document alone; already-chunked
        pieces without a source form one document while they are consecutive.
        """
        metadatas = []
        for piece in pieces:
            source = piece.metadata.get(self.source_key)
            parent = piece.metadata.get(_PARENT)
            if source not in (None, ""):
                group: str | None = str(source)
            elif parent is not None:
                group = f"document {parent}"
            else:
                group = None
            metadatas.append({**piece.metadata, _GROUP: group})
        return metadatas

    def _signed(self, pieces: list[Document], chunks: list[Chunk]) -> list[Document]:
        if len(chunks) != len(pieces):  # the engine's annotate contract: one chunk per text, in order
            raise RuntimeError(f"CHOPChunker.annotate returned {len(chunks)} chunks for {len(pieces)} texts")
        groups = [m[_GROUP] for m in self._engine_metadata(pieces)]
        out: list[Document] = []
        start = 0
        for end in range(1, len(pieces) + 1):  # consecutive pieces of one group are one document, as in the engine
            if end == len(pieces) or groups[end] != groups[start]:
                name = pieces[start].metadata.get(self.source_key)
                named = None if name in (None, "") else str(name)
                key = _document_key(named, [p.page_content for p in pieces[start:end]])
                out.extend(self._document(pieces[i], chunks[i], key, i - start) for i in range(start, end))
                start = end
        return out

    def _document(self, piece: Document, chunk: Chunk, key: str, index: int) -> Document:
        metadata = {k: v for k, v in piece.metadata.items() if k not in (_PARENT, _GROUP)}
        if not self.add_start_index and self.chunk and self.splitter is None:
            metadata.pop("start_index", None)
        metadata.update(signature_metadata(chunk.cnm, chunk.prefix, chunk.continues_previous, chunk.metadata))
        metadata.update({DOCUMENT_KEY: key, INDEX_KEY: index})
        text = piece.page_content
        if self.prefix_page_content:
            metadata[TEXT_KEY] = text
            text = chunk.prefix + text
        return Document(page_content=text, metadata=metadata, id=piece.id or chunk_id(key, index, text))


def _doc(document: Document) -> DocContext:
    """``document`` as the engine's input (for a splitter of one's own)."""
    return DocContext(doc_id="0", text=document.page_content, metadata=dict(document.metadata))


def _document_key(name: str | None, texts: list[str]) -> str:
    """A short, stable key of one document: a hash of its name, or of its text when it has none.

    A named document keeps its key when its text is edited, so re-ingesting it (LangChain's ``index``)
    rewrites only the chunks that changed.
    """
    digest = hashlib.sha256((name or "").encode("utf-8", "surrogatepass"))
    if name is None:
        for text in texts:
            digest.update(b"\0" + text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:20]


def _checked(documents: Sequence[Document]) -> list[Document]:
    documents = list(documents)
    for index, document in enumerate(documents):
        if not isinstance(document, Document):
            raise InputError(
                f"documents[{index}] is a {type(document).__name__}, not a langchain_core Document; "
                "wrap texts with Document(page_content=...)"
            )
    return documents
