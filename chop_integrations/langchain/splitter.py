"""LumberChunker as a LangChain ``TextSplitter``.

The splitter holds no algorithm: it builds a :class:`~chop_integrations.lumber.LumberChunker`
and turns its chunks into LangChain ``Document`` objects. Unlike the base class,
which finds each chunk's ``start_index`` by searching the text (wrong when a
passage repeats), it copies the engine's exact character offsets.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig
from langchain_text_splitters import TextSplitter

from ..errors import ConfigurationError
from ..llm.policy import OnLLMError
from ..llm.retry import RetryPolicy
from ..llm.usage import UsageReport
from ..lumber.chunker import LumberChunker
from ..lumber.prompts import Mode
from ..text.tokens import ALIASES, get_encoding
from ..types import Chunk
from .llm import wrap_llm


class LumberChunkerTextSplitter(TextSplitter):
    """Splits text where an LLM (or the offline decider) sees the topic shift: LumberChunker.

    Example:
        >>> splitter = LumberChunkerTextSplitter(max_tokens=200, add_start_index=True)  # offline decider
        >>> docs = splitter.split_documents(loader.load())

    Args:
        llm: Any LangChain ``BaseChatModel``, an object implementing the core LLM
            protocol, a ``Callable[[str], str]``, or ``None`` for the offline decider
            (no network, no key).
        mode: ``"default"`` (validated window-relative answers, hard token maximum)
            or ``"paper"`` (the original procedure and prompt).
        max_tokens: Hard maximum of tokens per chunk; ``None`` keeps the engine's default.
            ``chunk_size`` is accepted as an alias (so ``from_tiktoken_encoder`` works).
        on_llm_error: ``"fallback"`` (the offline decider answers, counted and logged)
            or ``"raise"`` (a typed ``LLMError``).
        token_counter: ``Callable[[str], int]`` counting tokens; ``None`` for tiktoken
            ``cl100k_base``. ``length_function`` is accepted as an alias.
        max_concurrency: LLM calls in flight at once (default-mode windows of all
            documents; paper mode: documents, each sequential within itself).
        cache: Answer cache, as for :class:`~chop_integrations.lumber.LumberChunker`.
        retry: ``RetryPolicy`` for transient errors, as for the engine.
        timeout: Seconds one LLM call may take, as for the engine.
        llm_config: ``RunnableConfig`` (callbacks, tags, metadata) for every call of a chat model.
        add_start_index: Put each chunk's exact character offset in ``metadata["start_index"]``.
        strip_whitespace: Strip whitespace around each chunk (offsets move with it);
            ``False`` (default) keeps chunks lossless: they concatenate to the input.
        chunker: A ready :class:`~chop_integrations.lumber.LumberChunker` to use instead
            of building one (then the engine options above must be left unset).
        **options: Further :class:`~chop_integrations.lumber.LumberChunker` options
            (``theta``, ``target_tokens``...; an unknown one raises), ``chunk_overlap`` (must be 0) and
            ``keep_separator`` (``True`` or ``"end"``, what the splitter does: chunks are
            lossless slices, so the blank line between two paragraphs ends the first chunk).

    Raises:
        ConfigurationError: On an invalid option (for example ``chunk_overlap > 0``, or
            ``keep_separator=False`` / ``"start"``, which lossless chunks cannot honour).
    """

    def __init__(
        self,
        llm: Any = None,
        *,
        mode: Mode = "default",
        max_tokens: int | None = None,
        on_llm_error: OnLLMError = "fallback",
        token_counter: Callable[[str], int] | str | None = None,
        max_concurrency: int = 8,
        cache: Any = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
        llm_config: RunnableConfig | None = None,
        add_start_index: bool = False,
        strip_whitespace: bool = False,
        chunker: LumberChunker | None = None,
        **options: Any,
    ) -> None:
        max_tokens = _alias(max_tokens, options.pop("chunk_size", None), "max_tokens", "chunk_size")
        token_counter = _alias(token_counter, options.pop("length_function", None), "token_counter", "length_function")
        if options.pop("chunk_overlap", 0):
            raise ConfigurationError("LumberChunker chunks do not overlap; leave chunk_overlap at 0")
        _check_keep_separator(options.pop("keep_separator", True))
        if chunker is None:
            engine_options: dict[str, Any] = {
                "mode": mode,
                "on_llm_error": on_llm_error,
                "token_counter": token_counter,
                "max_concurrency": max_concurrency,
                "cache": cache,
                "retry": retry,
                "timeout": timeout,
                **options,
                **({} if max_tokens is None else {"max_tokens": max_tokens}),
            }
            chunker = LumberChunker(wrap_llm(llm, llm_config), **engine_options)
        elif (
            llm is not None
            or max_tokens is not None
            or token_counter is not None
            or options
            or cache
            or retry
            or timeout
        ):
            raise ConfigurationError("pass either chunker= or the LumberChunker options (llm, max_tokens...), not both")
        self.chunker = chunker
        super().__init__(
            chunk_size=int(getattr(chunker, "max_tokens", None) or 4000),
            chunk_overlap=0,
            length_function=getattr(chunker, "count", None) or len,
            add_start_index=add_start_index,
            strip_whitespace=strip_whitespace,
        )

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
        loaded from a local copy where one exists (see :mod:`chop_integrations.text.tokens`)
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
        return [piece for piece, _, _ in self._pieces(self.chunker.chunk(text))]

    async def asplit_text(self, text: str) -> list[str]:
        """Async :meth:`split_text`."""
        return [piece for piece, _, _ in self._pieces(await self.chunker.achunk(text))]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        """Chunk ``texts`` (concurrently across texts) into ``Document`` objects.

        Each document gets a deep copy of its text's metadata, the chunk's markdown
        ``header_path`` (``"/Guide/Install/"``, as LlamaIndex's ``MarkdownNodeParser``
        writes it) and, with ``add_start_index=True``, the chunk's exact ``start_index``.

        Raises:
            InputError: When ``metadatas`` and ``texts`` differ in length, or a text is not a string.
        """
        texts, metas = _checked(texts, metadatas)
        chunked = self.chunker.chunk_many(texts, metadatas=metas)
        return self._documents(chunked, metas)

    async def acreate_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        """Async :meth:`create_documents` (native async, bounded by ``max_concurrency``)."""
        texts, metas = _checked(texts, metadatas)
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


def _alias(value: Any, alias: Any, name: str, alias_name: str) -> Any:
    if alias is None:
        return value
    if value is not None and value != alias:
        raise ConfigurationError(f"{name} and its alias {alias_name} disagree ({value!r} vs {alias!r}); pass one")
    return alias


def _checked(
    texts: Sequence[str], metadatas: Sequence[dict[Any, Any]] | None
) -> tuple[list[str], list[dict[Any, Any]]]:
    from ..checks import batch

    texts = list(texts)
    metas = [dict(m or {}) for m in metadatas] if metadatas is not None else [{} for _ in texts]
    batch(texts, metas)  # raises InputError with a clear message on bad input
    return texts, metas
