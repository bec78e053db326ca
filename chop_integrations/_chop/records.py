"""One chunk record for every output: the keys Ray rows, the CLI's JSON lines and both adapters share.

A chunk says where it sits with the *position keys* (:data:`POSITION_KEYS`): ``chop_document`` (its
document's key), ``chop_index`` (its place in that document) and ``chop_text`` (its original text, what
context by continuity joins and a retriever gives back), and what it is about with the *signature keys*
(:data:`~chop_integrations._chop.base_chunks.METADATA_KEYS`: ``chop_model``, ``chop_category``...). A record
(:data:`RECORD_KEYS`) adds its offsets, its token count and ``embed_text`` (the prefix, then the text).
:func:`read_jsonl` reads records back, framework-free; the adapters' ``load_jsonl`` turn them into LangChain
documents and LlamaIndex nodes ready for their retrievers.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any

from .._errors import InputError
from .base_chunks import METADATA_KEYS

__all__ = [
    "DOCUMENT_KEY",
    "INDEX_KEY",
    "POSITION_KEYS",
    "RECORD_KEYS",
    "TEXT_KEY",
    "chunk_id",
    "read_jsonl",
    "record_metadata",
]

#: A chunk's document (a key: the same for every chunk of one document, different across documents).
DOCUMENT_KEY = "chop_document"
#: A chunk's position in its document, from 0.
INDEX_KEY = "chop_index"
#: A chunk's original text (where the embedded text holds a prefix before it).
TEXT_KEY = "chop_text"
#: The keys that say where a chunk sits.
POSITION_KEYS = (DOCUMENT_KEY, INDEX_KEY, TEXT_KEY)
#: The keys of one chunk record, in order: position, offsets, size, embedded text, then the signature keys
#: (absent, or null in a table, on a chunk with no signature: LumberChunker's).
RECORD_KEYS = (*POSITION_KEYS, "start", "end", "token_count", "embed_text", *METADATA_KEYS)
#: What a record must hold to be loaded.
_REQUIRED = (DOCUMENT_KEY, INDEX_KEY, TEXT_KEY, "embed_text")
_ID_NAMESPACE = uuid.UUID("5b1f3c2e-8d7a-4f60-9c1e-2a4b6d8f0c13")


def chunk_id(document: str, index: int, text: str) -> str:
    """The id of chunk ``index`` of ``document`` with ``text``: a UUID string (what Qdrant needs; any store takes it).

    The same chunk ingested again gets the same id (the store overwrites it); a different text never shares one.
    """
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return str(uuid.uuid5(_ID_NAMESPACE, f"{document}:{index}:{digest}"))


def read_jsonl(path: str | PathLike[str]) -> list[dict[str, Any]]:
    """The chunk records of a JSON Lines file (``chop-integrations chunk``'s output), checked, in order.

    Raises:
        InputError: When the file cannot be read, a line is not a JSON object, or a record lacks a position
            key or ``embed_text``, or holds one of the wrong type (the message names the line).
    """
    return list(_records(Path(path)))


def record_metadata(record: dict[str, Any]) -> dict[str, Any]:
    """The metadata a loaded chunk carries: ``source`` (its file), the signature keys it has, its position keys."""
    metadata: dict[str, Any] = {"source": record.get("path") or record[DOCUMENT_KEY]}
    metadata.update((key, record[key]) for key in METADATA_KEYS if key in record)
    metadata.update({DOCUMENT_KEY: record[DOCUMENT_KEY], INDEX_KEY: record[INDEX_KEY]})
    return metadata


def _records(path: Path) -> Iterator[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read chunk records from {path}: {err}") from err
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}:{number}: not a JSON line ({err.msg})") from err
        if not isinstance(record, dict):
            raise InputError(f"{path}:{number}: a chunk record is a JSON object, got {type(record).__name__}")
        missing = [key for key in _REQUIRED if key not in record]
        if missing:
            raise InputError(
                f"{path}:{number}: the record has no {', '.join(missing)}; write the file with "
                "`chop-integrations chunk` (lines written before the position keys came lack them: chunk again)"
            )
        _check(path, number, record)
        yield record


def _check(path: Path, number: int, record: dict[str, Any]) -> None:
    index = record[INDEX_KEY]
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise InputError(f"{path}:{number}: {INDEX_KEY} must be an int >= 0, got {index!r}")
    for key in (DOCUMENT_KEY, TEXT_KEY, "embed_text"):
        if not isinstance(record[key], str):
            raise InputError(f"{path}:{number}: {key} must be a string, got {type(record[key]).__name__}")
