"""CHOP as a LlamaIndex metadata extractor.

:class:`CHOPExtractor` gives every node a CHOP signature (Category, Nouns,
Model) and the continuity decision against the node before, computed by
:meth:`chop_integrations.CHOPChunker.aannotate`. It writes them into node
metadata and never touches the stored text:

=================  =======================================  =========  ======
key                value                                    EMBED      LLM
=================  =======================================  =========  ======
``chop_prefix``    ``"[camera | air filter | 225B] "``      shown      hidden
``chop_category``  ``"camera"`` or ``""``                   hidden     shown
``chop_nouns``     ``"air filter, lens"`` (comma-joined)    hidden     shown
``chop_model``     ``"225B"`` or ``""``                     hidden     shown
``chop_continues`` True/False (False for a document's first) hidden    hidden
``chop_document``  the node's document (see below)           hidden     hidden
``chop_index``     the node's place in that document, from 0 hidden     hidden
=================  =======================================  =========  ======

so ``node.get_content(MetadataMode.EMBED)`` reads ``chop_prefix: [...]`` above
the text (what CHOP embeds) while ``node.text`` stays the original. The two
"hidden" columns are the fields ``excluded_embed_metadata_keys`` and
``excluded_llm_metadata_keys``; change them to choose what the LLM sees at
query time. Every value is a str or a bool (never None or a list), the same
types as the LangChain transformer writes, because vector stores accept only flat
metadata values.

Chunk size: the extractor runs after parsing, so its keys never shrink a chunk
made by :class:`~chop_integrations.llama_index.LumberChunkerNodeParser` (which
ignores metadata anyway). A ``MetadataAwareTextSplitter`` placed *after* this
extractor would count the longer of the EMBED and LLM metadata strings against
its ``chunk_size``: put CHOP last, before the embedding model.

Documents: nodes are grouped by their source document (``ref_doc_id``, else
their SOURCE node, else themselves) and each group is annotated as its own
document, so a signature never crosses from one document to another. The group is
``chop_document`` and a node's place in it ``chop_index``: the position keys the
LangChain transformer, the CLI's JSON lines and Ray rows carry too (``node.text`` is
the original text, which the others carry as ``chop_text``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, ClassVar

from llama_index.core.bridge.pydantic import Field
from llama_index.core.extractors import BaseExtractor
from llama_index.core.schema import DEFAULT_TEXT_NODE_TMPL, BaseNode, MetadataMode

from .._chop.base_chunks import METADATA_KEYS, signature_metadata
from .._chop.chunker import CHOPChunker
from .._chop.config import CHOPConfig
from .._chop.corpus import CorpusState
from .._chop.records import DOCUMENT_KEY as POSITION_DOCUMENT
from .._chop.records import INDEX_KEY
from .._llm.progress_bar import watched
from .._llm.usage import UsageReport
from .._types import Chunk
from ._fields import EngineComponent, config_model, progress
from ._node_parser import engine_metadata

#: Metadata key (seen only by the engine) that names a node's document; the engine groups by it.
DOCUMENT_KEY = "_chop_document"
#: The metadata keys the extractor writes: the engine's signature keys, then the position keys.
CHOP_KEYS = (*METADATA_KEYS, POSITION_DOCUMENT, INDEX_KEY)

logger = logging.getLogger("chop_integrations")

#: ``show_progress=`` given to the call in progress (None: the field's value).
_SHOW: ContextVar[bool | None] = ContextVar("chop_extractor_show_progress", default=None)


def document_key(node: BaseNode, source_key: str = "source") -> str:
    """The identity of the document ``node`` comes from: ``metadata[source_key]``, else its source document."""
    named = node.metadata.get(source_key)
    if named not in (None, ""):
        return str(named)
    if node.ref_doc_id:
        return node.ref_doc_id
    source = node.source_node
    return source.node_id if source is not None else node.node_id


def group_by_document(nodes: Sequence[BaseNode], source_key: str = "source") -> list[list[int]]:
    """Indexes of ``nodes`` grouped by :func:`document_key`, groups in first-seen order, order kept inside."""
    groups: dict[str, list[int]] = {}
    for index, node in enumerate(nodes):
        groups.setdefault(document_key(node, source_key), []).append(index)
    return list(groups.values())


def chop_metadata(chunk: Chunk) -> dict[str, Any]:
    """The ``chop_*`` metadata of one annotated chunk."""
    return signature_metadata(chunk.cnm, chunk.prefix, chunk.continues_previous, chunk.metadata)


def engine_input_metadata(node: BaseNode, source_key: str = "source") -> dict[str, Any]:
    """What the engine sees of ``node``: its metadata without ``chop_*`` keys, its document and start offset."""
    metadata = {k: v for k, v in engine_metadata(node).items() if k not in CHOP_KEYS}
    metadata[DOCUMENT_KEY] = document_key(node, source_key)
    start = getattr(node, "start_char_idx", None)
    if start is not None:
        metadata["start_index"] = start
    return metadata


class CHOPExtractor(EngineComponent, BaseExtractor, config_model("CHOPFields", CHOPConfig)):  # type: ignore[misc]
    """Adds CHOP signatures to nodes so the embedding sees ``PFX(M_i) + C_i``.

    Place it after a node parser in an ``IngestionPipeline``. Every
    :class:`~chop_integrations.CHOPConfig` option is a field of the same name, type and
    default (``prefix``, ``decisions``, ``max_concurrency``...); ``config=`` takes a ready
    config, ``corpus=`` the corpus state the adaptive prefix reads (passed to the engine).
    Without an LLM (``llm=None``) the offline deciders (patterns, lexicon, document
    boundaries) produce the signatures; ``llm="settings"`` takes LlamaIndex's ``Settings.llm``.
    Nodes are grouped into documents by ``metadata[source_key]`` where they have it, else by
    their source document. The extractor keeps its engine and builds it again only when a
    field changes; every option that changes the output is in ``to_dict()``.

    Attributes:
        config: The :class:`~chop_integrations.CHOPConfig` the fields make.
        last_usage: The usage report (calls, tokens, fallbacks) of the last extraction.
    """

    CONFIG: ClassVar[type[CHOPConfig]] = CHOPConfig
    ENGINE_INPUTS: ClassVar[tuple[str, ...]] = ("corpus",)

    corpus: Any = Field(
        default=None,
        exclude=True,
        description="The corpus state the adaptive prefix reads and adds to, passed to the engine; "
        "observe_corpus() fills one. Not serialised; its identity is in object_ids.",
    )
    excluded_embed_metadata_keys: list[str] = Field(
        default_factory=lambda: [
            "chop_category",
            "chop_nouns",
            "chop_model",
            "chop_continues",
            "chop_model_source",
            "chop_aliases",
            "chop_document",
            "chop_index",
        ],
        description="chop_* keys the embedding does not see (it sees chop_prefix by default).",
    )
    excluded_llm_metadata_keys: list[str] = Field(
        default_factory=lambda: [
            "chop_prefix",
            "chop_continues",
            "chop_model_source",
            "chop_aliases",
            "chop_document",
            "chop_index",
        ],
        description="chop_* keys the LLM does not see at query time.",
    )
    node_text_template: str = Field(
        default=DEFAULT_TEXT_NODE_TMPL,
        description="Text template set on processed nodes: metadata lines, a blank line, the text.",
    )
    show_progress: bool = Field(
        default=True,
        description="A progress bar on a terminal (never in logs or pipes), as LlamaIndex's extractors draw: with an "
        "LLM over the run's decisions (calls, tokens, time left), moving within a document; offline over its "
        "documents. show_progress= at call time (extractor(nodes, show_progress=False)) overrides it.",
    )

    @classmethod
    def class_name(cls) -> str:
        """Name used in serialisation and in the IngestionPipeline cache key."""
        return "CHOPExtractor"

    def _engine(self) -> CHOPChunker:
        """The kept engine; it groups nodes by :data:`DOCUMENT_KEY` (see :func:`document_key`)."""
        engine = self._engines.get(None)
        if engine is None:
            config = CHOPConfig.of(self._config, {"source_key": DOCUMENT_KEY})
            engine = self._engines[None] = CHOPChunker(self._llm, config, corpus=self.corpus)
        return engine

    def observe_corpus(self, documents: Sequence[BaseNode]) -> None:
        """Tell the adaptive prefix the whole corpus (names, categories) before a run; no chunking, no LLM call.

        A document's name is its own (printed alone as in a batch); what the corpus changes is the category,
        printed once two are seen. ``IngestionPipeline.run(num_workers=N)`` runs the extractor in N processes,
        each seeing only its share of the documents; the memory this fills travels with the extractor into every
        process, so when categories matter call it first::

            extractor.observe_corpus(documents)
            pipeline.run(documents=documents, num_workers=4)
        """
        if self.corpus is None:
            self.corpus = CorpusState()  # what the adaptive prefix reads from now on: kept, pickled, shared
        texts = [document.get_content(metadata_mode=MetadataMode.NONE) for document in documents]
        metadatas = [engine_input_metadata(document, self.source_key) for document in documents]
        self._engine().observe_corpus(texts, metadatas=metadatas)

    async def aextract(self, nodes: Sequence[BaseNode]) -> list[dict[str, Any]]:
        """Annotate ``nodes`` (one engine run, at most ``max_concurrency`` LLM calls at once).

        Returns:
            One ``chop_*`` metadata dict per node, in the order of ``nodes``.
        """
        groups = group_by_document(nodes, self.source_key)
        order = [index for group in groups for index in group]
        texts = [nodes[index].get_content(metadata_mode=MetadataMode.NONE) for index in order]
        metadatas = [engine_input_metadata(nodes[index], self.source_key) for index in order]
        engine = self._engine()
        show = _SHOW.get()
        show = self.show_progress if show is None else show
        live = engine.llm is not None
        with (
            watched(show=show and live, description="CHOP signatures"),
            progress(len(groups), show and not live, "CHOP signatures") as bar,
        ):
            try:
                chunks = await engine.aannotate(texts, metadatas=metadatas) if texts else []
            finally:
                self._usage_slot.set(engine.last_usage if texts else UsageReport())
            bar.update(len(groups))
        results: list[dict[str, Any]] = [{} for _ in nodes]
        for index, chunk in zip(order, chunks, strict=True):
            results[index] = chop_metadata(chunk)
        for group in groups:
            for place, index in enumerate(group):
                document = document_key(nodes[index], self.source_key)
                results[index].update({POSITION_DOCUMENT: document, INDEX_KEY: place})
        return results

    async def aprocess_nodes(
        self,
        nodes: Sequence[BaseNode],
        excluded_embed_metadata_keys: list[str] | None = None,
        excluded_llm_metadata_keys: list[str] | None = None,
        **kwargs: Any,
    ) -> list[BaseNode]:
        """Write the ``chop_*`` metadata and hide keys as configured (once, however often it runs).

        ``show_progress=`` overrides the field for this call, as LlamaIndex's extractors read it.
        """
        token = _SHOW.set(kwargs.pop("show_progress", None))
        try:
            processed = await super().aprocess_nodes(nodes, **kwargs)
        finally:
            _SHOW.reset(token)
        embed_hidden = [*self.excluded_embed_metadata_keys, *(excluded_embed_metadata_keys or [])]
        llm_hidden = [*self.excluded_llm_metadata_keys, *(excluded_llm_metadata_keys or [])]
        for node in processed:
            node.excluded_embed_metadata_keys.extend(
                k for k in dict.fromkeys(embed_hidden) if k not in node.excluded_embed_metadata_keys
            )
            node.excluded_llm_metadata_keys.extend(
                k for k in dict.fromkeys(llm_hidden) if k not in node.excluded_llm_metadata_keys
            )
        return processed
