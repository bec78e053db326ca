"""The CLI's JSON lines as LangChain documents, ready for a vector store and :class:`CHOPRetriever`.

``chop-integrations chunk --out chunks.jsonl`` writes one chunk record per line with the keys every output
shares (:mod:`chop_integrations._chop.records`); :func:`load_jsonl` turns them into the documents
:class:`~chop_integrations.langchain.CHOPDocumentTransformer` gives: ``prefix + text`` in ``page_content``
(what a store embeds), the original in ``metadata["chop_text"]``, the position and signature keys in
metadata, and the same kind of stable id. No re-chunking, no engine.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

from langchain_core.documents import Document

from .._chop.records import DOCUMENT_KEY, INDEX_KEY, TEXT_KEY, chunk_id, read_jsonl, record_metadata

__all__ = ["load_jsonl"]


def load_jsonl(path: str | PathLike[str], *, prefix_page_content: bool = True) -> list[Document]:
    """The chunks of a ``chop-integrations chunk`` JSON Lines file as LangChain documents, in order.

    Args:
        path: The file ``chunk --out`` wrote.
        prefix_page_content: ``page_content`` is the record's ``embed_text`` (the prefix, then the text) and
            ``metadata["chop_text"]`` the text, as the transformer writes them by default; ``False``:
            ``page_content`` is the text alone.

    Returns:
        One document per line: metadata ``source`` (the file the chunk came from), ``start_index``,
        ``chop_document``, ``chop_index``, ``chop_text`` and the signature keys (``chop_model``...) where the
        line has them (a ``--method chop`` line does; a LumberChunker line has no signature).

    Raises:
        InputError: When the file cannot be read or a line is not a chunk record.
    """
    return [_document(record, prefix_page_content) for record in read_jsonl(path)]


def _document(record: dict[str, Any], prefix_page_content: bool) -> Document:
    metadata = record_metadata(record)
    if isinstance(record.get("start"), int):
        metadata["start_index"] = record["start"]
    text = record[TEXT_KEY]
    if prefix_page_content:
        metadata[TEXT_KEY] = text
        text = record["embed_text"]
    return Document(page_content=text, metadata=metadata, id=chunk_id(record[DOCUMENT_KEY], record[INDEX_KEY], text))
