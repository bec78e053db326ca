"""LumberChunker as a LlamaIndex ``NodeParser``.

The parser only adapts: :class:`chop_integrations.LumberChunker` chooses
the boundaries; this module turns its chunks into ``TextNode`` objects with
exact ``start_char_idx``/``end_char_idx`` (offsets into the parsed node's text,
as the built-in parsers give them), the SOURCE relation to the parsed node, and
PREVIOUS/NEXT relations between neighbours of one source.

Metadata-aware, as LlamaIndex's ``SentenceSplitter.split_text_metadata_aware``:
the longer of a node's EMBED and LLM metadata strings is embedded (or shown)
with every chunk, so its tokens are taken off ``max_tokens`` (and off the
embedder's limit, with ``embedding=``) for that node's chunks; a ValueError
when nothing is left, as LlamaIndex raises. Each node gets the markdown
``header_path`` of its chunk (as ``MarkdownNodeParser`` writes it), kept out
of the embedded text (``excluded_embed_metadata_keys``: the chunk's size and a
CHOP prefix stay as they were; remove it from that list to embed it). The
``chop_*`` keys that :class:`~chop_integrations.llama_index.CHOPExtractor`
adds after parsing are not known here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.callbacks import CallbackManager
from llama_index.core.node_parser import NodeParser
from llama_index.core.node_parser.node_utils import build_nodes_from_splits
from llama_index.core.schema import BaseNode, Document, MetadataMode, TextNode

from .._errors import ConfigurationError
from .._llm.aio import run_sync
from .._llm.engine import Engine
from .._llm.progress_bar import watched
from .._llm.usage import UsageReport
from .._lumber.chunker import LumberChunker
from .._lumber.config import LumberConfig
from .._text.embedding_limit import resolve_embedding_limit
from .._types import Chunk
from ._fields import EngineComponent, config_model, progress

#: Engines kept at most, one per metadata reserve (token count of a node's embedded metadata).
KEPT_ENGINES = 32
#: What the ``engine`` field is (its description).
ENGINE_HELP = (
    "A ready engine of another kind (any Engine: a registered one or your own) that chunks instead of the "
    "LumberChunker the fields make, at its own sizes (the nodes' metadata is not taken off them). Not serialised; "
    "its identity is in object_ids."
)
#: Node metadata keys used, in this order, as the document's ``source`` hint for the engine.
SOURCE_KEYS = ("source", "file_path", "file_name", "filename", "url")


def engine_metadata(node: BaseNode) -> dict[str, Any]:
    """The metadata the engines see for ``node``: its own, a ``source`` name hint, and a ``doc_id`` for errors.

    ``source`` is a CNM hint (a file name often names the model), so it is
    taken only from metadata that really names the source, never from an id.
    """
    metadata = dict(node.metadata)
    if not metadata.get("source"):
        hint = next((metadata[k] for k in SOURCE_KEYS if metadata.get(k)), None)
        if hint is not None:
            metadata["source"] = str(hint)
    metadata.setdefault("doc_id", str(node.ref_doc_id or node.node_id))
    return metadata


class LumberChunkerNodeParser(EngineComponent, NodeParser, config_model("LumberFields", LumberConfig)):  # type: ignore[misc]
    """Splits documents where an LLM sees the topic shift (LumberChunker), with exact offsets.

    Every :class:`~chop_integrations.LumberConfig` option is a field of the same name, type
    and default (``max_tokens``, ``mode``, ``token_counter``...); ``config=`` takes a ready
    config and ``chunker=`` a ready :class:`~chop_integrations.LumberChunker` (its config
    and LLM). Without an LLM (``llm=None``) the offline topic-shift decider chooses the
    boundaries, so the parser runs with no key and no network; ``llm="settings"`` takes
    LlamaIndex's ``Settings.llm``. The parser keeps its engine and builds it again only
    when a field changes. Every option that changes the output is in ``to_dict()`` (objects
    by their identity in ``object_ids``, the LLM's in ``llm_id``), so an ``IngestionPipeline``
    cache never serves one configuration's nodes to another.

    Example:
        >>> parser = LumberChunkerNodeParser.from_defaults(max_tokens=200)
        >>> nodes = parser.get_nodes_from_documents([Document(text="...")], show_progress=True)

    Attributes:
        config: The :class:`~chop_integrations.LumberConfig` the fields make.
        last_usage: The usage report (calls, tokens, fallbacks) of the last parse.
    """

    CONFIG: ClassVar[type[LumberConfig]] = LumberConfig
    ENGINE_INPUTS: ClassVar[tuple[str, ...]] = ("engine",)

    engine: Any = Field(None, exclude=True, description=ENGINE_HELP)

    _exact: dict[str, tuple[int, int]] = PrivateAttr(default_factory=dict)

    @classmethod
    def class_name(cls) -> str:
        """Name used in serialisation and in the IngestionPipeline cache key."""
        return "LumberChunkerNodeParser"

    @classmethod
    def _take_ready(cls, data: dict[str, Any]) -> dict[str, Any]:
        """``chunker=``: a ready LumberChunker gives its config and LLM; another engine is kept whole, as ``engine``.

        Raises:
            ConfigurationError: When it is no engine, or comes with ``config`` or ``llm``.
        """
        chunker = data.pop("chunker", None)
        if chunker is None:
            return data
        if not isinstance(chunker, Engine):
            raise ConfigurationError(f"chunker must be a LumberChunker or another Engine, got {type(chunker).__name__}")
        if data.get("config") is not None or data.get("llm") is not None:
            raise ConfigurationError("pass either chunker= or its config and llm, not both")
        if not isinstance(chunker, LumberChunker):
            return {**data, "engine": chunker}
        return {**data, "config": chunker.config, "llm": chunker.llm}

    @classmethod
    def from_dict(cls, data: dict[str, Any], **kwargs: Any) -> LumberChunkerNodeParser:  # type: ignore[override]
        """Rebuild from :meth:`to_dict` output (pass ``llm=`` and object options again: they are not serialised).

        ``to_dict()`` writes ``id_func`` as a description, which LlamaIndex's own
        parsers cannot read back; it is dropped here, so the default ids are used.
        """
        data = {k: v for k, v in data.items() if not (k == "id_func" and isinstance(v, dict))}
        return super().from_dict(data, **kwargs)

    @classmethod
    def from_defaults(  # type: ignore[override]
        cls,
        llm: Any = None,
        config: LumberConfig | None = None,
        *,
        chunker: Engine | None = None,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
        callback_manager: CallbackManager | None = None,
        id_func: Any = None,
        **options: Any,
    ) -> LumberChunkerNodeParser:
        """Build a parser the way LlamaIndex's built-in parsers are built.

        Args:
            llm: As the field ``llm``.
            config: A ready :class:`~chop_integrations.LumberConfig`; ``options`` override its fields.
            chunker: A ready :class:`~chop_integrations.LumberChunker` instead of ``llm`` and ``config``, or
                another engine (kept whole as ``engine``).
            include_metadata: LlamaIndex's own option (see the class).
            include_prev_next_rel: LlamaIndex's own option.
            callback_manager: LlamaIndex's own option.
            id_func: LlamaIndex's own option.
            **options: :class:`~chop_integrations.LumberConfig` fields by name.

        Raises:
            ConfigurationError: On an unknown option or an invalid value.
        """
        return cls(
            llm=llm,
            config=config,
            chunker=chunker,
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
            callback_manager=callback_manager or CallbackManager([]),
            id_func=id_func,
            **options,
        )

    def _engine(self, reserve: int = 0) -> Engine:
        """The kept engine for nodes whose metadata takes ``reserve`` tokens off the maximum (or ``engine``).

        Raises:
            ValueError: When the metadata leaves no room, as LlamaIndex's ``SentenceSplitter`` raises.
        """
        if self.engine is not None:
            return self.engine  # type: ignore[no-any-return]
        engine = self._engines.get(reserve)
        if engine is None:
            if len(self._engines) >= KEPT_ENGINES:  # many metadata sizes: keep memory bounded
                self._engines.clear()
            engine = self._engines[reserve] = LumberChunker(self._llm, self._reserved(reserve))
        return engine

    def _reserved(self, reserve: int) -> LumberConfig:
        """The config with ``reserve`` tokens taken off ``max_tokens`` (and off the embedder's limit)."""
        config = self._config
        if not reserve:
            return config
        limit = resolve_embedding_limit(config.embedding)
        room = None if limit is None else limit.max_tokens - config.embedding_reserve
        if config.max_tokens - reserve < 1 or (room is not None and room - reserve < 1):
            raise ValueError(
                f"Metadata length ({reserve}) is longer than chunk size ({config.max_tokens}) "
                "or the embedder's limit. Consider increasing the chunk size or decreasing the size of your "
                "metadata to avoid this."
            )
        options: dict[str, Any] = {"max_tokens": config.max_tokens - reserve}
        if limit is not None:
            options["embedding_reserve"] = config.embedding_reserve + reserve
        return LumberConfig.of(config, options)

    def _reserves(self, nodes: Sequence[BaseNode]) -> list[int]:
        """Tokens of each node's embedded metadata (the longer of EMBED and LLM), 0 without include_metadata."""
        if not self.include_metadata or self.engine is not None:
            return [0] * len(nodes)
        count = self._engine().settings.count
        out = []
        for node in nodes:
            embed, llm = node.get_metadata_str(MetadataMode.EMBED), node.get_metadata_str(MetadataMode.LLM)
            text = embed if len(embed) > len(llm) else llm
            out.append(count(text) if text else 0)
        return out

    @staticmethod
    def _inputs(nodes: Sequence[BaseNode]) -> tuple[list[str], list[dict[str, Any]]]:
        texts = [node.get_content(metadata_mode=MetadataMode.NONE) for node in nodes]
        metadatas = [engine_metadata(node) for node in nodes]
        return texts, metadatas

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        return run_sync(self._aparse_nodes(nodes, show_progress))

    async def _aparse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        """Chunk the nodes, one batch per metadata reserve (in slices of ``max_concurrency`` with a progress bar)."""
        chunked: list[list[Chunk]] = [[] for _ in nodes]
        usage = UsageReport()
        live = self._llm is not None  # with an LLM the bar counts decisions, so it moves within a document
        step = self._config.max_concurrency if show_progress and not live else len(nodes)
        try:
            with (
                watched(show=show_progress and live, description="Chunking documents"),
                progress(len(nodes), show_progress and not live, "Chunking documents") as bar,
            ):
                for reserve, indexes in self._groups(nodes).items():
                    engine = self._engine(reserve)
                    for at in range(0, len(indexes), step):
                        part = indexes[at : at + step]
                        texts, metadatas = self._inputs([nodes[i] for i in part])
                        try:
                            results = await engine.achunk_many(texts, metadatas=metadatas)
                        finally:
                            usage.merge(engine.last_usage)
                        for i, chunks in zip(part, results, strict=True):
                            chunked[i] = chunks
                        bar.update(len(part))
        finally:
            self._usage_slot.set(usage)
        return self._build(nodes, chunked)

    def get_nodes_from_stream(
        self, pieces: Iterable[str], *, metadata: dict[str, Any] | None = None, doc_id: str | None = None
    ) -> Iterator[TextNode]:
        """Nodes of one document that arrives in pieces, each yielded once final (one node behind, for NEXT).

        The nodes equal those of ``get_nodes_from_documents([Document(text="".join(pieces),
        metadata=metadata, id_=doc_id)])`` (text, exact offsets, metadata, relations), in memory
        bounded by the engine's windows (see :meth:`~chop_integrations.LumberChunker.chunk_stream`).
        """
        parent = Document(text="", metadata=dict(metadata or {}), **({"id_": doc_id} if doc_id else {}))
        engine = self._engine(self._reserves([parent])[0])
        previous: BaseNode | None = None
        try:
            for chunk in engine.chunk_stream(pieces, metadata=engine_metadata(parent)):
                (node,) = self._build([parent], [[chunk]])
                pair = [previous, node] if previous is not None else [node]
                self._postprocess_parsed_nodes(pair, {parent.id_: parent})
                if previous is not None:
                    yield previous  # type: ignore[misc]
                previous = node
        finally:
            self._usage_slot.set(engine.last_usage)
        if previous is not None:
            yield previous  # type: ignore[misc]

    def _groups(self, nodes: Sequence[BaseNode]) -> dict[int, list[int]]:
        """Node indexes grouped by metadata reserve: one engine (one batch) per distinct reserve."""
        groups: dict[int, list[int]] = {}
        for index, reserve in enumerate(self._reserves(nodes)):
            groups.setdefault(reserve, []).append(index)
        return groups

    def _build(self, nodes: Sequence[BaseNode], chunked: Sequence[Sequence[Chunk]]) -> list[BaseNode]:
        """Make one TextNode per chunk, recording the engine's exact offsets."""
        out: list[BaseNode] = []
        for node, chunks in zip(nodes, chunked, strict=True):
            built = build_nodes_from_splits([c.text for c in chunks], node, id_func=self.id_func)
            for text_node, chunk in zip(built, chunks, strict=True):
                text_node.start_char_idx, text_node.end_char_idx = chunk.start, chunk.end
                if self.include_metadata and "header_path" in chunk.metadata:
                    text_node.metadata["header_path"] = chunk.metadata["header_path"]
                    if "header_path" not in text_node.excluded_embed_metadata_keys:
                        excluded = [*text_node.excluded_embed_metadata_keys, "header_path"]
                        text_node.excluded_embed_metadata_keys = excluded  # a new list: never the parent's
                self._exact[text_node.node_id] = (chunk.start, chunk.end)
            out.extend(built)
        return out

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        """Relations and metadata as the base class sets them; offsets from the engine, not a text search.

        The base class re-derives offsets with ``str.find`` from the previous
        node's start, which lands on an earlier copy of a chunk whose text also
        occurs inside the chunk before it; the engine's offsets are exact.
        """
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node in nodes:
            exact = self._exact.pop(node.node_id, None)
            if exact is not None and isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = exact
        return nodes
