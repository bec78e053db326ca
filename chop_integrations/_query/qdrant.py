"""Paging through a Qdrant collection, for both adapters' catalog readers and neighbour fetches.

Duck-typed on ``qdrant_client.QdrantClient.scroll``: the client package is never imported here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["scroll"]


def scroll(
    client: Any, collection: str, *, payload: list[str] | bool, page: int, scroll_filter: Any = None
) -> Iterator[Any]:
    """Every point of ``collection`` that ``scroll_filter`` keeps (all of them without one), ``page`` at a time.

    Args:
        client: A ``QdrantClient`` (local mode or a server).
        collection: The collection's name.
        payload: The payload fields to return (``True``: all of them); vectors are never returned.
        page: Points per request.
        scroll_filter: A ``qdrant_client.models.Filter``, or ``None``.
    """
    offset = None
    while True:
        points, offset = client.scroll(
            collection_name=collection,
            scroll_filter=scroll_filter,
            with_payload=payload,
            with_vectors=False,
            limit=page,
            offset=offset,
        )
        yield from points
        if offset is None:
            return
