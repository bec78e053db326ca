"""CHOP as a LlamaIndex metadata extractor.

:class:`CHOPExtractor` gives every node a CHOP signature (Category, Nouns,
Model) and the continuity decision against the node before, computed by
:meth:`chop_integrations.chop.CHOPChunker.aannotate`. It writes them into node
metadata and never touches the stored text:

=================  =======================================  =========  ======
key                value                                    EMBED      LLM
=================  =======================================  =========  ======
``chop_prefix``    ``"[camera | air filter | 225B] "``      shown      hidden
``chop_category``  ``"camera"`` or ``""``                   hidden     shown
``chop_nouns``     ``"air filter, lens"`` (comma-joined)    hidden     shown
``chop_model``     ``"225B"`` or ``""``                     hidden     shown
``chop_continues`` True/False (False for a document's first) hidden    hidden
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
document, so a signature never crosses from one document to another.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Sequence
from typing import Any, Literal

from llama_index.core.bridge.pydantic import Field, PrivateAttr, model_validator
from llama_index.core.extractors import BaseExtractor
from llama_index.core.schema import DEFAULT_TEXT_NODE_TMPL, BaseNode, MetadataMode

from ..chop.base_chunks import METADATA_KEYS, signature_metadata
from ..chop.decide import DecisionMode
from ..llm.protocol import LLM
from ..llm.usage import UsageReport, UsageSlot
from ..types import Chunk
from ._fields import (
    DEFAULT_EXTRACTOR_ID,
    LLMIdentityMixin,
    cache_field,
    llm_field,
    llm_id_field,
    object_identity,
    on_llm_error_field,
    retry_field,
    timeout_field,
)
from .node_parser import engine_metadata

#: Metadata key (seen only by the engine) that names a node's document; the engine groups by it.
DOCUMENT_KEY = "_chop_document"
#: The metadata keys the extractor writes (the engine's own).
CHOP_KEYS = METADATA_KEYS

logger = logging.getLogger("chop_integrations")


def document_key(node: BaseNode) -> str:
    """The identity of the document ``node`` comes from."""
    if node.ref_doc_id:
        return node.ref_doc_id
    source = node.source_node
    return source.node_id if source is not None else node.node_id


def group_by_document(nodes: Sequence[BaseNode]) -> list[list[int]]:
    """Indexes of ``nodes`` grouped by :func:`document_key`, groups in first-seen order, order kept inside."""
    groups: dict[str, list[int]] = {}
    for index, node in enumerate(nodes):
        groups.setdefault(document_key(node), []).append(index)
    return list(groups.values())


def chop_metadata(chunk: Chunk) -> dict[str, Any]:
    """The ``chop_*`` metadata of one annotated chunk."""
    return signature_metadata(chunk.cnm, chunk.prefix, chunk.continues_previous)


def engine_input_metadata(node: BaseNode) -> dict[str, Any]:
    """What the engine sees of ``node``: its metadata without ``chop_*`` keys, its document and start offset."""
    metadata = {k: v for k, v in engine_metadata(node).items() if k not in CHOP_KEYS}
    metadata[DOCUMENT_KEY] = document_key(node)
    start = getattr(node, "start_char_idx", None)
    if start is not None:
        metadata["start_index"] = start
    return metadata


class CHOPExtractor(LLMIdentityMixin, BaseExtractor):
    """Adds CHOP signatures to nodes so the embedding sees ``PFX(M_i) + C_i``.

    Place it after a node parser in an ``IngestionPipeline``. Without an LLM
    (``llm=None``) the offline deciders (patterns, lexicon, document
    boundaries) produce the signatures. ``max_concurrency`` (the engines' name; ``None``:
    ``num_workers``, LlamaIndex's own) bounds the LLM calls in flight, across all documents.

    Attributes:
        last_usage: The usage report (calls, tokens, fallbacks) of the last extraction.
    """

    llm: Any = llm_field("A LlamaIndex LLM (or any LLM protocol object); None uses the offline deciders.")
    llm_id: str = llm_id_field()
    prefix: str = Field(
        default="adaptive",
        description=(
            "'adaptive' (fields that tell nodes apart in the corpus seen so far), 'fixed' (CHOP's template) "
            "or a str.format template over {category}, {nouns}, {model}."
        ),
    )
    new_document_resets: bool = Field(
        default=True, description="A node from another document never inherits the previous signature."
    )
    on_llm_error: Literal["fallback", "raise"] = on_llm_error_field()
    max_concurrency: int | None = Field(
        default=None, ge=1, description="LLM calls in flight at once, as in the engines; None: num_workers."
    )
    excluded_embed_metadata_keys: list[str] = Field(
        default_factory=lambda: ["chop_category", "chop_nouns", "chop_model", "chop_continues"],
        description="chop_* keys the embedding does not see (it sees chop_prefix by default).",
    )
    excluded_llm_metadata_keys: list[str] = Field(
        default_factory=lambda: ["chop_prefix", "chop_continues"],
        description="chop_* keys the LLM does not see at query time.",
    )
    node_text_template: str = Field(
        default=DEFAULT_TEXT_NODE_TMPL,
        description="Text template set on processed nodes: metadata lines, a blank line, the text.",
    )
    show_progress: bool = Field(default=False, description="Unused: CHOP reports through last_usage.")
    cache: Any = cache_field()
    timeout: float | None = timeout_field()
    retry: Any = retry_field()
    decisions: DecisionMode = Field(
        default="window",
        description="How the LLM decides continuity: 'window' (one call per window), 'pair' or 'separate'.",
    )
    offline_extractor: Any = Field(
        default=None,
        exclude=True,
        description="CNM extractor for llm=None and fallbacks (e.g. one with an extended Lexicon); None: the default.",
    )
    offline_extractor_id: str = Field(
        default=DEFAULT_EXTRACTOR_ID,
        description="Identity of `offline_extractor` (class and settings); set from it, part of the cache key.",
    )

    _llm: LLM | None = PrivateAttr(default=None)
    _usage_slot: UsageSlot = PrivateAttr(default_factory=UsageSlot)
    _corpus: Any = PrivateAttr(default=None)  # a CorpusState once observe_corpus told the corpus

    @classmethod
    def class_name(cls) -> str:
        """Name used in serialisation and in the IngestionPipeline cache key."""
        return "CHOPExtractor"

    @model_validator(mode="after")
    def _identify_offline_extractor(self) -> Any:
        self._refresh_offline_extractor_id()
        return self

    def _refresh_offline_extractor_id(self) -> None:
        extractor = self.offline_extractor
        identity = DEFAULT_EXTRACTOR_ID if extractor is None else object_identity(extractor)
        object.__setattr__(self, "offline_extractor_id", identity)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "offline_extractor":  # keep the identity (and so the cache key) in step with the extractor
            self._refresh_offline_extractor_id()

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle, keeping the corpus state :meth:`observe_corpus` filled (LlamaIndex re-inits and drops it)."""
        super().__setstate__(state)
        corpus = (state.get("__pydantic_private__") or {}).get("_corpus")
        if corpus is not None:
            self._corpus = corpus

    def _engine(self) -> Any:
        from ..chop.chunker import CHOPChunker
        from ..chop.corpus import CorpusState

        return CHOPChunker(
            self._llm,
            prefix=self.prefix,
            # the corpus observe_corpus told, else a fresh state per run (kept on the engine for the check below)
            corpus=self._corpus if self._corpus is not None else CorpusState(),
            new_document_resets=self.new_document_resets,
            on_llm_error=self.on_llm_error,
            max_concurrency=self.num_workers if self.max_concurrency is None else self.max_concurrency,
            source_key=DOCUMENT_KEY,
            cache=self.cache,
            timeout=self.timeout,
            retry=self.retry,
            decisions=self.decisions,
            offline_extractor=self.offline_extractor,
        )

    def observe_corpus(self, documents: Sequence[BaseNode]) -> None:
        """Tell the adaptive prefix the whole corpus (names, categories) before a run; no chunking, no LLM call.

        ``IngestionPipeline.run(num_workers=N)`` runs the extractor in N processes, each seeing only its
        share of the documents: one that gets a single document would find one name and print no prefix.
        The memory this fills travels with the extractor into every process, so call it first::

            extractor.observe_corpus(documents)
            pipeline.run(documents=documents, num_workers=4)
        """
        from ..chop.corpus import CorpusState

        if self._corpus is None:
            self._corpus = CorpusState()
        texts = [document.get_content(metadata_mode=MetadataMode.NONE) for document in documents]
        self._engine().observe_corpus(texts, metadatas=[engine_input_metadata(document) for document in documents])

    def _warn_if_blind_worker(self, engine: Any) -> None:
        """Warn when a pipeline worker process ran the adaptive prefix knowing fewer than two document names."""
        if self.prefix != "adaptive" or multiprocessing.parent_process() is None:
            return
        if engine.corpus.counts()["model"] < 2:
            logger.warning(
                "CHOPExtractor ran in a worker process (IngestionPipeline num_workers > 1) that knew fewer than "
                "two document names, so its nodes got no document name in their prefix: call "
                "extractor.observe_corpus(documents) before pipeline.run()"
            )

    async def aextract(self, nodes: Sequence[BaseNode]) -> list[dict[str, Any]]:
        """Annotate ``nodes`` (one engine run, at most ``num_workers`` LLM calls at once).

        Returns:
            One ``chop_*`` metadata dict per node, in the order of ``nodes``.
        """
        order = [index for group in group_by_document(nodes) for index in group]
        texts = [nodes[index].get_content(metadata_mode=MetadataMode.NONE) for index in order]
        metadatas = [engine_input_metadata(nodes[index]) for index in order]
        engine = self._engine()
        try:
            chunks = await engine.aannotate(texts, metadatas=metadatas) if texts else []
        finally:
            self._usage_slot.set(engine.last_usage if texts else UsageReport())
        if texts:
            self._warn_if_blind_worker(engine)  # after the run: it has read the memory kept in a persistent cache
        results: list[dict[str, Any]] = [{} for _ in nodes]
        for index, chunk in zip(order, chunks, strict=True):
            results[index] = chop_metadata(chunk)
        return results

    async def aprocess_nodes(
        self,
        nodes: Sequence[BaseNode],
        excluded_embed_metadata_keys: list[str] | None = None,
        excluded_llm_metadata_keys: list[str] | None = None,
        **kwargs: Any,
    ) -> list[BaseNode]:
        """Write the ``chop_*`` metadata and hide keys as configured (once, however often it runs)."""
        processed = await super().aprocess_nodes(nodes, **kwargs)
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
