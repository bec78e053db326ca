"""The fixed split of the dev questions into a tuning half and a held-out half.

Fixed on 2026-11-30, before any tuning of the fair-baseline round (issue 11), and never to be
changed: a question is held out when the SHA-256 of its ``qid`` is odd. On
``queries-dev.jsonl`` that holds out 173 of 320 questions and leaves 147 to tune on. Every
constant chosen by looking at the manuals names the split it was chosen on ("tune"); the
held-out figures are reported beside it and never used to choose anything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal, TypeVar

__all__ = ["SPLITS", "Split", "in_split", "split_of"]

Split = Literal["tune", "heldout", "all"]
SPLITS: tuple[Split, ...] = ("tune", "heldout", "all")

_Q = TypeVar("_Q")


def split_of(qid: str) -> Literal["tune", "heldout"]:
    """The half a question belongs to: ``"heldout"`` when SHA-256(qid) is odd, else ``"tune"``."""
    return "heldout" if int(hashlib.sha256(qid.encode("utf-8")).hexdigest(), 16) % 2 else "tune"


def in_split(queries: Iterable[_Q], split: Split, *, qid: str = "qid") -> list[_Q]:
    """The queries of one split (``"all"`` keeps every one); ``qid`` names the id attribute."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    return [q for q in queries if split == "all" or split_of(str(getattr(q, qid))) == split]
