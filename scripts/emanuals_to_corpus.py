"""Build a ``bench`` corpus from the Samsung e-manual data of Nandy et al. (EMNLP 2021 Findings, Apache-2.0).

Input: the folder ``data/other_emanuals_corpus`` of a checkout of
``https://github.com/abhi1nandy2/EMNLP-2021-Findings`` (one ``Galaxy_*.json`` per manual: ``section_N``
objects with ``title``, ``text`` lines and ``section_hierarchy``). Output, in the layout ``bench`` reads:

* ``manuals/<manual>.txt``: a cover page naming the model, then every section's text lines in order;
* ``sections.jsonl``: each section's title, title path and character span in its manual;
* ``queries-dev.jsonl``: model-specific questions about 1 in 25 sections whose title recurs in
  another manual (long enough to answer something: 200 characters or more), gold = that span.

The project's own copy was built from the same files with its own cleaning, so figures measured on a corpus
built here may differ from the README's. Usage::

    python scripts/emanuals_to_corpus.py EMNLP-2021-Findings/data/other_emanuals_corpus chop-data
"""

from __future__ import annotations

import argparse
import json
import zlib
from pathlib import Path
from typing import Any

#: Keep about 1 in this many eligible sections as questions (a fixed hash, so the set is reproducible).
QUESTION_EVERY = 25
#: Sections shorter than this (characters) are headings or menus, not answers.
MIN_ANSWER_CHARS = 200


def build_manual(manual: str, data: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """One manual's text (cover page, then each section's lines) and its sections' spans."""
    text = f"SAMSUNG\n{manual.replace('_', ' ')}\nUser Manual\n\n"
    ordered = sorted(data.values(), key=lambda s: int(s["id"].split("_")[1]))
    titles = {s["id"]: s["title"] for s in ordered}
    rows = []
    for section in ordered:
        body = "\n".join(line for line in section["text"] if line.strip())
        start = len(text)
        text += body + "\n\n"
        path = ">".join(titles.get(i, i) for i in section["section_hierarchy"].split(">"))
        rows.append(
            {
                "manual": manual,
                "section": section["id"],
                "title": section["title"],
                "path": path,
                "start": start,
                "end": start + len(body),
            }
        )
    return text, rows


def questions(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Model-specific questions about sections whose title recurs in another manual."""
    manuals_with: dict[str, set[str]] = {}
    for row in rows:
        manuals_with.setdefault(row["title"].lower(), set()).add(row["manual"])
    chosen = []
    for row in rows:
        others = len(manuals_with[row["title"].lower()]) - 1
        picked = zlib.crc32(f"{row['manual']}/{row['section']}".encode()) % QUESTION_EVERY == 0
        if others and picked and row["end"] - row["start"] >= MIN_ANSWER_CHARS:
            query = f"What does the {row['manual'].replace('_', ' ')} manual say about {row['title'].lower()}?"
            gold = {key: row[key] for key in ("manual", "section", "title", "start", "end")}
            chosen.append({"qid": f"q-{row['manual']}-{row['section']}", "query": query, **gold, "collisions": others})
    return chosen


def main(argv: list[str] | None = None) -> None:
    """Convert every ``Galaxy_*.json`` of the source folder into the corpus folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="EMNLP-2021-Findings/data/other_emanuals_corpus")
    parser.add_argument("out", type=Path, help="the corpus folder to write (bench --corpus)")
    args = parser.parse_args(argv)
    (args.out / "manuals").mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for file in sorted(args.source.glob("Galaxy_*.json")):
        text, sections = build_manual(file.stem, json.loads(file.read_text(encoding="utf-8")))
        (args.out / "manuals" / f"{file.stem}.txt").write_text(text, encoding="utf-8")
        rows.extend(sections)
    for name, items in (("sections.jsonl", rows), ("queries-dev.jsonl", questions(rows))):
        with (args.out / name).open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(item) + "\n" for item in items)
    print(f"{args.out}: {len({r['manual'] for r in rows})} manuals, {len(rows)} sections")


if __name__ == "__main__":
    main()
