"""Typed questions through the offline query reader: how many read the right model, none, or a wrong one.

The known models are the 30 manuals' cover names (:func:`cover_identity`); each question's expected model is its
manual's. Each question file is read as it is; with ``--retyped`` the dev questions are also read with the
manual's name re-typed (glued without the family word, other dashes and spaces, zero-width spaces, full width,
after a Han word), the forms people type that the committed files do not hold; and with the manual's number
renamed (+1, +3, +7: a model the store lacks, in three of those forms), where any reading is wrong.

Run: ``python scripts/read_typed.py ../shared/data/manuals benchmarks/queries-typed-heldout.jsonl
../shared/data/queries-dev.jsonl --retyped``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

from chop_integrations._offline.signature import cover_identity
from chop_integrations._query import QueryReader

RETYPINGS: dict[str, Callable[[str], str]] = {
    "glued": lambda n: "".join(n.split()[1:]),  # ZFlip, TabA8.0, TabS5e
    "en dash": lambda n: n.replace(" ", "\u2013"),
    "non-breaking hyphen": lambda n: n.replace(" ", "\u2011"),
    "no-break space": lambda n: n.replace(" ", "\u00a0"),
    "zero-width space": lambda n: n.replace(" ", " \u200b"),
    "full width": lambda n: "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in n),
    "after a Han word": lambda n: "我的" + "".join(n.split()[1:]) + "怎么",
}


def _count(reader: QueryReader, pairs: list[tuple[str, str]]) -> tuple[int, int, list[str], list[str]]:
    correct, unread, wrong = 0, [], []
    for question, expected in pairs:
        got = reader.read(question).model
        if got == expected:
            correct += 1
        elif got is None:
            unread.append(question)
        else:
            wrong.append(f"{question!r} -> {got!r} (expected {expected!r})")
    return correct, len(unread), unread, wrong


def main() -> None:
    """Print the counts for each question file (and its re-typed forms)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manuals", type=Path)
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--retyped", action="store_true")
    args = parser.parse_args()
    covers = {p.stem: cover_identity(p.read_text(encoding="utf-8")) for p in sorted(args.manuals.glob("*.txt"))}
    names = {stem: name for stem, name in covers.items() if name}
    reader = QueryReader(list(names.values()))
    for path in args.questions:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        records = [r for r in records if r["manual"] in names]
        pairs = [(r["query"], names[r["manual"]]) for r in records]
        correct, unread, missed, wrong = _count(reader, pairs)
        print(f"{path.name}: {correct} read / {unread} unread / {len(wrong)} wrong  unread: {missed[:5]}")
        for line in wrong:
            print("  WRONG", line)
        if not args.retyped or "typed" in path.name:
            continue
        for label, retype in RETYPINGS.items():
            named = [(r["query"], names[r["manual"]]) for r in records if names[r["manual"]] in r["query"]]
            retyped = [(q.replace("Samsung " + n, retype(n)).replace(n, retype(n)), n) for q, n in named]
            correct, unread, missed, wrong = _count(reader, retyped)
            print(f"  re-typed {label}: {correct} read / {unread} unread / {len(wrong)} wrong of {len(retyped)}")
            for line in wrong[:3]:
                print("    WRONG", line)
        _renamed(reader, records, names)


def _shifted(name: str, shift: int) -> str:
    """``name`` with its first number raised by ``shift`` (``Galaxy S10`` -> ``Galaxy S13``)."""
    return re.sub(r"\d+", lambda m: str(int(m.group()) + shift), name, count=1)


def _renamed(reader: QueryReader, records: list[dict[str, str]], names: dict[str, str]) -> None:
    """Questions whose model is renamed to one the store lacks: every reading is wrong."""
    known = set(names.values())
    asked, wrong = 0, []
    for record in records:
        name = names[record["manual"]]
        if name not in record["query"]:
            continue
        for shift in (1, 3, 7):
            new = _shifted(name, shift)
            if new in known:
                continue
            for form in (new, RETYPINGS["glued"](new), RETYPINGS["en dash"](new)):
                asked += 1
                got = reader.read(record["query"].replace(name, form)).model
                if got is not None:
                    wrong.append(f"{record['query'].replace(name, form)!r} -> {got!r}")
    print(f"  renamed to a model the store lacks: {len(wrong)} read as a known model of {asked}")
    for line in wrong[:3]:
        print("    WRONG", line)


if __name__ == "__main__":
    main()
