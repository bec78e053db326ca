"""LumberChunker as a LangChain ``TextSplitter``.

The splitter holds no algorithm: it builds a :class:`~chop_integrations.LumberChunker`
and turns its chunks into LangChain ``Document`` objects. Unlike the base class,
which finds each chunk's ``start_index`` by searching the text (wrong when a
passage repeats), it copies the engine's exact character offsets.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig
from langchain_text_splitters import TextSplitter

from .._errors import ConfigurationError
from .._llm.engine import Engine
from .._llm.options import EngineConfig
from .._llm.progress_bar import watched
from .._llm.usage import UsageReport
from .._lumber.chunker import LumberChunker
from .._lumber.config import LumberConfig
from .._text.tokens import ALIASES, get_encoding
from .._types import Chunk
from ._llm import wrap_llm


class LumberChunkerTextSplitter(TextSplitter):
    """Splits text where an LLM (or the offline decider) sees the topic shift: LumberChunker.

    Example:
        >>> splitter = LumberChunkerTextSplitter(max_tokens=200, add_start_index=True)  # offline decider
        >>> docs = splitter.split_documents(loader.load())

    Args:
        llm: Any LangChain ``BaseChatModel``, an object implementing the core LLM
            protocol, a ``Callable[[str], str]``, or ``None`` for the offline decider
            (no network, no key).
        config: A ready :class:`~chop_integrations.LumberConfig`; ``options`` override its fields.
        llm_config: ``RunnableConfig`` (callbacks, tags, metadata) for every call of a chat model.
        add_start_index: Put each chunk's exact character offset in ``metadata["start_index"]``.
        strip_whitespace: Strip whitespace around each chunk (offsets move with it);
            ``False`` (default) keeps chunks lossless: they concatenate to the input.
        chunker: A ready engine to use instead of building a LumberChunker: a
            :class:`~chop_integrations.LumberChunker` or any other engine (a subclass of
            ``Engine``, registered or your own); then ``llm``, ``config`` and the options must be left unset.
        show_progress: With an LLM, a bar over each call's decisions (calls, tokens, time left) on a terminal
            (never in logs or pipes), moving within a document.
        **options: Any :class:`~chop_integrations.LumberConfig` field by name, with its default
            (``max_tokens``, ``mode``, ``token_counter``, ``max_concurrency``, ``cache``...; an unknown
            name raises and names the valid ones). LangChain's names are accepted too: ``chunk_size``
            for ``max_tokens`` (so ``from_tiktoken_encoder`` works), ``length_function`` for
            ``token_counter``, ``chunk_overlap`` (must be 0) and ``keep_separator`` (``True`` or
            ``"end"``, what the splitter does: chunks are lossless slices, so the blank line between
            two paragraphs ends the first chunk).

    Attributes:
        chunker: The engine doing the work (a :class:`~chop_integrations.LumberChunker` unless given).
        config: Its config (a :class:`~chop_integrations.LumberConfig` for a LumberChunker).

    Raises:
        ConfigurationError: On an invalid option (for example ``chunk_overlap > 0``, or
            ``keep_separator=False`` / ``"start"``, which lossless chunks cannot honour).
    """

    def __init__(
        self,
        llm: Any = None,
        config: LumberConfig | None = None,
        *,
        llm_config: RunnableConfig | None = None,
        add_start_index: bool = False,
        strip_whitespace: bool = False,
        chunker: Engine | None = None,
        show_progress: bool = False,
        **options: Any,
    ) -> None:
        self.show_progress = bool(show_progress)
        options = _engine_options(options)
        if chunker is None:
            chunker = LumberChunker(wrap_llm(llm, llm_config), config, **options)
        elif llm is not None or config is not None or llm_config is not None or options:
            raise ConfigurationError("pass either chunker= or the LumberChunker options (llm, max_tokens...), not both")
        self.chunker = chunker
        super().__init__(
            chunk_size=int(getattr(chunker.settings, "max_tokens", None) or 4000),
            chunk_overlap=0,
            length_function=getattr(chunker.settings, "count", None) or len,
            add_start_index=add_start_index,
            strip_whitespace=strip_whitespace,
        )

    @property
    def config(self) -> EngineConfig:
        """The engine's config (a :class:`~chop_integrations.LumberConfig` for a LumberChunker)."""
        return self.chunker.config

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "cl100k_base",
        model_name: str | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> LumberChunkerTextSplitter:
        """A splitter that counts tokens with a tiktoken encoding (LangChain's constructor, offline by default).

        The default encoding is ``cl100k_base``, not LangChain's ``gpt2``: the package ships
        ``cl100k_base``, so this works with no network. The encoding (or ``model_name``'s) is
        loaded from a local copy where one exists (see :mod:`chop_integrations._text.tokens`)
        before LangChain asks tiktoken for it; any other one is downloaded once, as tiktoken does.

        Args:
            encoding_name: A tiktoken encoding name (``"cl100k"``/``"o200k"`` for short).
            model_name: An OpenAI model name whose encoding to use instead (tiktoken's table).
            allowed_special: Special tokens encoded as such (LangChain's option).
            disallowed_special: Special tokens that raise when met (LangChain's option).
            **kwargs: The splitter's own options (``chunk_size`` is ``max_tokens``).

        Raises:
            ConfigurationError: When the encoding is in no local folder and cannot be downloaded.
        """
        import tiktoken

        name = tiktoken.encoding_name_for_model(model_name) if model_name else ALIASES.get(encoding_name, encoding_name)
        get_encoding(name)  # tiktoken keeps what this loads, so LangChain's lookup below needs no network
        return super().from_tiktoken_encoder(name, None, allowed_special, disallowed_special, **kwargs)

    @property
    def last_usage(self) -> UsageReport:
        """The usage report of the last run: calls, tokens, retries, fallbacks, wall time."""
        return self.chunker.last_usage

    # -- TextSplitter ----------------------------------------------------------------------------

    def split_text(self, text: str) -> list[str]:
        """Split one text into chunk strings (lossless unless ``strip_whitespace=True``)."""
        with self._progress():
            chunks = self.chunker.chunk(text)
        return [piece for piece, _, _ in self._pieces(chunks)]

    async def asplit_text(self, text: str) -> list[str]:
        """Async :meth:`split_text`."""
        with self._progress():
            chunks = await self.chunker.achunk(text)
        return [piece for piece, _, _ in self._pieces(chunks)]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        """Chunk ``texts`` (concurrently across texts) into ``Document`` objects.

        Each document gets a deep copy of its text's metadata, the chunk's markdown
        ``header_path`` (``"/Guide/Install/"``, as LlamaIndex's ``MarkdownNodeParser``
        writes it) and, with ``add_start_index=True``, the chunk's exact ``start_index``.

        Raises:
            InputError: When ``metadatas`` and ``texts`` differ in length, or a text is not a string.
        """
        texts, metas = _checked(texts, metadatas)
        with self._progress():
            chunked = self.chunker.chunk_many(texts, metadatas=metas)
        return self._documents(chunked, metas)

    async def acreate_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        """Async :meth:`create_documents` (native async, bounded by ``max_concurrency``)."""
        texts, metas = _checked(texts, metadatas)
        with self._progress():
            chunked = await self.chunker.achunk_many(texts, metadatas=metas)
        return self._documents(chunked, metas)

    async def asplit_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Async :meth:`split_documents`."""
        documents = list(documents)
        return await self.acreate_documents(
            [d.page_content for d in documents], metadatas=[d.metadata for d in documents]
        )

    async def atransform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Split documents asynchronously: real async LLM calls, not a thread around the sync path."""
        return await self.asplit_documents(list(documents))

    def split_text_stream(self, pieces: Iterable[str], *, metadata: dict[Any, Any] | None = None) -> Iterator[Document]:
        """Documents of one text that arrives in pieces (pages, lines, blocks of a file), each yielded once final.

        The documents equal ``create_documents(["".join(pieces)], [metadata])``, in memory
        bounded by the engine's windows (see :meth:`~chop_integrations.LumberChunker.chunk_stream`).

        Raises:
            ConfigurationError: When the engine is in paper mode.
            InputError: When a piece is not a string.
        """
        _, (meta,) = _checked([""], None if metadata is None else [metadata])
        return self._documents_of(self.chunker.chunk_stream(pieces, metadata=meta), meta)

    def lazy_split_documents(self, documents: Iterable[Document]) -> Iterator[Document]:
        """Split documents one at a time as they come (for a loader's ``lazy_load()``): one document in memory."""
        for document in documents:
            texts, (meta,) = _checked([document.page_content], [document.metadata])
            yield from self._documents_of(self.chunker.chunk(texts[0], metadata=meta), meta)

    # -- internals -------------------------------------------------------------------------------

    def _progress(self) -> AbstractContextManager[Any]:
        return watched(show=self.show_progress and self.chunker.llm is not None, description="LumberChunker")

    def _pieces(self, chunks: Iterable[Chunk]) -> Iterator[tuple[str, int, Chunk]]:
        for chunk in chunks:
            text, start = chunk.text, chunk.start
            if self._strip_whitespace:
                stripped = text.lstrip()
                start += len(text) - len(stripped)
                text = stripped.rstrip()
                if not text:
                    continue
            yield text, start, chunk

    def _documents(self, chunked: list[list[Chunk]], metas: list[dict[Any, Any]]) -> list[Document]:
        return [d for chunks, meta in zip(chunked, metas, strict=True) for d in self._documents_of(chunks, meta)]

    def _documents_of(self, chunks: Iterable[Chunk], meta: dict[Any, Any]) -> Iterator[Document]:
        for text, start, chunk in self._pieces(chunks):
            metadata = copy.deepcopy(meta)
            if "header_path" in chunk.metadata:
                metadata.setdefault("header_path", chunk.metadata["header_path"])
            if self._add_start_index:
                metadata["start_index"] = start
            yield Document(page_content=text, metadata=metadata)


def _check_keep_separator(value: Any) -> None:
    """Accept what lossless chunks do (separators end the chunk before them); reject the rest.

    Raises:
        ConfigurationError: For ``False``, ``"start"`` or anything else.
    """
    if value is True or value == "end":
        return
    raise ConfigurationError(
        f"keep_separator={value!r} cannot be honoured: LumberChunker chunks are lossless slices of the text, "
        "so every separator stays, at the end of the chunk before it (keep_separator=True or 'end'). "
        "Pass strip_whitespace=True to trim whitespace (blank lines included) at the edges of each chunk"
    )


#: LangChain's names for LumberConfig fields, which the splitter accepts too.
_ALIASES = {"chunk_size": "max_tokens", "length_function": "token_counter"}


def _engine_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with LangChain's names turned into LumberConfig's and LangChain-only options checked.

    Raises:
        ConfigurationError: When a name and its alias disagree, ``chunk_overlap`` is not 0, or
            ``keep_separator`` cannot be honoured.
    """
    options = dict(options)
    if options.pop("chunk_overlap", 0):
        raise ConfigurationError("LumberChunker chunks do not overlap; leave chunk_overlap at 0")
    _check_keep_separator(options.pop("keep_separator", True))
    for alias, name in _ALIASES.items():
        if alias not in options:
            continue
        value = options.pop(alias)
        if options.get(name) is not None and options[name] != value:
            raise ConfigurationError(
                f"{name} and its alias {alias} disagree ({options[name]!r} vs {value!r}); pass one"
            )
        options[name] = value
    return options


def _checked(
    texts: Sequence[str], metadatas: Sequence[dict[Any, Any]] | None
) -> tuple[list[str], list[dict[Any, Any]]]:
    from .._checks import batch

    texts = list(texts)
    metas = [dict(m or {}) for m in metadatas] if metadatas is not None else [{} for _ in texts]
    batch(texts, metas)  # raises InputError with a clear message on bad input
    return texts, metas
