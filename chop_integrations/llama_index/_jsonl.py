"""The CLI's JSON lines as LlamaIndex nodes, ready for an index and :class:`CHOPRetriever`.

``chop-integrations chunk --out chunks.jsonl`` writes one chunk record per line with the keys every output
shares (:mod:`chop_integrations._chop.records`); :func:`load_jsonl` turns them into the nodes an
``IngestionPipeline`` with :class:`~chop_integrations.llama_index.CHOPExtractor` gives: the original text in
``node.text``, the signature keys in metadata (``chop_prefix`` shown to the embedding, the rest hidden as the
extractor hides them), the position keys, offsets and prev/next/source relations. No re-chunking, no engine.
"""

from __future__ import annotations

import itertools
from os import PathLike
from typing import Any

from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from .._chop.records import DOCUMENT_KEY, INDEX_KEY, TEXT_KEY, chunk_id, read_jsonl, record_metadata
from ._extractor import CHOPExtractor

__all__ = ["load_jsonl"]

#: Keys the loader adds besides the signature: never shown to the embedding or the LLM.
_POSITION = ("source", DOCUMENT_KEY, INDEX_KEY)


def load_jsonl(path: str | PathLike[str]) -> list[TextNode]:
    """The chunks of a ``chop-integrations chunk`` JSON Lines file as LlamaIndex text nodes, in order.

    Args:
        path: The file ``chunk --out`` wrote.

    Returns:
        One node per line: ``text`` the chunk's text, ``start_char_idx``/``end_char_idx`` its offsets, metadata
        ``source`` (the file), ``chop_document``, ``chop_index`` and the signature keys where the line has
        them, hidden from the embedding and the LLM as :class:`~chop_integrations.llama_index.CHOPExtractor`
        hides them by default (the embedding reads ``chop_prefix`` above the text); a stable id, and
        prev/next relations between a document's chunks and a source relation to the document.

    Raises:
        InputError: When the file cannot be read or a line is not a chunk record.
    """
    fields = CHOPExtractor.model_fields
    embed_hidden = [*_default(fields["excluded_embed_metadata_keys"]), *_POSITION]
    llm_hidden = [*_default(fields["excluded_llm_metadata_keys"]), *_POSITION]
    nodes = [_node(record, embed_hidden, llm_hidden) for record in read_jsonl(path)]
    for previous, node in itertools.pairwise(nodes):
        if previous.metadata[DOCUMENT_KEY] == node.metadata[DOCUMENT_KEY]:
            previous.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=node.node_id)
            node.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=previous.node_id)
    return nodes


def _default(field: Any) -> list[str]:
    return list(field.default_factory())


def _node(record: dict[str, Any], embed_hidden: list[str], llm_hidden: list[str]) -> TextNode:
    metadata = record_metadata(record)
    text = record[TEXT_KEY]
    start, end = record.get("start"), record.get("end")
    return TextNode(
        id_=chunk_id(record[DOCUMENT_KEY], record[INDEX_KEY], text),
        text=text,
        metadata=metadata,
        start_char_idx=start if isinstance(start, int) else None,
        end_char_idx=end if isinstance(end, int) else None,
        excluded_embed_metadata_keys=embed_hidden,
        excluded_llm_metadata_keys=llm_hidden,
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=str(record[DOCUMENT_KEY]))},
    )
