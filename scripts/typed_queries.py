"""Rewrite the held-out dev questions so the model is typed the way people type it.

The rule, fixed before any query reader existed (and never tuned against one):

1. Keep only held-out questions (SHA-256 of the ``qid`` odd, as ``chop_bench.eval.splits``).
2. Find the manual's model name in the question (``Samsung Galaxy Note 10+`` or ``Galaxy Note 10+``;
   the name is the manual's file stem with ``_`` read as a space).
3. Replace that mention with one of six typings, chosen by ``SHA-256(qid) // 2 % 6`` so the choice is
   fixed and spread evenly. ``core`` is the name without ``Samsung``/``Galaxy`` (``Note 10+``):

   ====  =====================================  ==========================
   k     typing                                 ``Galaxy Note 10+`` becomes
   ====  =====================================  ==========================
   0     the core alone, prefixed "my"          ``my Note 10+``
   1     lower case, hyphens for spaces         ``galaxy-note-10+``
   2     letters and digits joined              ``Note10+``
   3     "+" spelled "plus", lower case core    ``note 10 plus``
   4     maker without family                   ``Samsung Note 10+``
   5     core joined, "+" spelled "Plus"        ``Note10 Plus``
   ====  =====================================  ==========================

   Joining removes a space between a letter run and a digit run only (``Tab A 10.5`` becomes ``Tab A10.5``;
   ``S10 Lite`` stays ``S10 Lite``), as people type "Note10", "A10.5".
4. Everything else in the record (qid, manual, section, span) is unchanged, so ``--split heldout`` keeps them all.

Run: ``python scripts/typed_queries.py ../shared/data/queries-dev.jsonl benchmarks/queries-typed-heldout.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path


def _digest(qid: str) -> int:
    return int(hashlib.sha256(qid.encode("utf-8")).hexdigest(), 16)


def _join(core: str) -> str:
    """Join a letter run and a following digit run: ``Note 10+`` -> ``Note10+``, ``Tab A 10.5`` -> ``Tab A10.5``."""
    return re.sub(r"(?<=[A-Za-z]) (?=\d)", "", core)


def typed(name: str, k: int) -> str:
    """The model ``name`` (``Galaxy Note 10+``) typed the ``k``-th way of the module's rule."""
    core = re.sub(r"^(Samsung )?Galaxy ", "", name)
    if k == 0:
        return f"my {core}"
    if k == 1:
        return name.lower().replace(" ", "-")
    if k == 2:
        return _join(core)
    if k == 3:
        return core.lower().replace("+", " plus")
    if k == 4:
        return f"Samsung {core}"
    return _join(core).replace("+", " Plus")


def rewrite(record: dict[str, object]) -> dict[str, object] | None:
    """The record with its model typed by the rule, or None when it is not held out or names no model."""
    qid = str(record["qid"])
    digest = _digest(qid)
    if digest % 2 == 0:
        return None
    name = str(record["manual"]).replace("_", " ")
    query = str(record["query"])
    for mention in (f"Samsung {name}", name):
        if mention in query:
            new = query.replace(mention, typed(name, digest // 2 % 6), 1)
            return {**record, "query": new}  # same qid: the split stays the same
    return None


def main(source: str, target: str) -> None:
    """Write the rewritten held-out questions of ``source`` (queries-dev.jsonl) to ``target``."""
    rows = [json.loads(line) for line in Path(source).read_text(encoding="utf-8").splitlines() if line.strip()]
    out = [r for r in map(rewrite, rows) if r is not None]
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    print(f"{len(out)} held-out questions rewritten -> {target}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
