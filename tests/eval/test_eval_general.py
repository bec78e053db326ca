"""The general-documents set: headings -> questions and exact gold spans; the heading detector."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from chop_bench.cli import main as bench_main
from chop_bench.eval.general import (
    HELDOUT_SOURCES,
    SOURCES,
    Source,
    build_general_set,
    questions_for,
    sections_of,
    without_headings,
)
from chop_bench.eval.headings import clean_heading, detect_headings, heading_path
from chop_bench.eval.splits import in_view, split_of, style_of

BODY = " ".join(["word"] * 25)

MARKDOWN = f"""# Widget

Intro {BODY}

## Install the `widget` package

{BODY}

```
# not a heading
```

## Usage
Short.

### [Advanced](https://example.org) options

{BODY}
"""

RST = f"""=======
Gadget
=======

Setup
-----

{BODY}

Notes
~~~~~

{BODY}
"""

LEGAL = f"""   1. Definitions.

      "License" shall mean {BODY}

   2. Grant of Copyright License. Subject to {BODY}

   3. you may not do {BODY}
"""


def test_detects_atx_setext_rst_and_numbered_headings() -> None:
    md = detect_headings(MARKDOWN)
    assert [(h.level, clean_heading(h.title)) for h in md] == [
        (1, "Widget"),
        (2, "Install the widget package"),
        (2, "Usage"),
        (3, "Advanced options"),
    ]
    rst = detect_headings(RST)
    assert [(h.level, h.title, h.kind) for h in rst] == [
        (1, "Gadget", "setext"),
        (2, "Setup", "setext"),
        (3, "Notes", "setext"),
    ]
    assert rst[0].start == 0  # the overline belongs to the heading
    legal = detect_headings(LEGAL)
    # "3. you may not do ..." is a sentence, not a title: not a heading.
    assert [(h.title, h.kind) for h in legal] == [
        ("Definitions", "numbered"),
        ("Grant of Copyright License", "numbered"),
    ]
    assert LEGAL[legal[1].body_start :].startswith(" Subject to")


def test_heading_path_nests_by_level() -> None:
    headings = detect_headings(MARKDOWN)
    assert heading_path(headings, MARKDOWN.index("Short.")) == ["Widget", "Usage"]
    assert heading_path(headings, len(MARKDOWN) - 1) == ["Widget", "Usage", "Advanced options"]
    assert heading_path(headings, 0) == ["Widget"]


def test_sections_span_from_heading_to_next_heading_exactly() -> None:
    sections = sections_of(MARKDOWN)
    assert [s.title for s in sections] == ["Widget", "Install the widget package", "Usage", "Advanced options"]
    for section, following in itertools.pairwise(sections):
        assert MARKDOWN[section.start :].startswith("#")
        assert section.end <= following.start
        assert MARKDOWN[section.end : following.start].strip() == ""
    assert sections[-1].end == len(MARKDOWN.rstrip())


def test_questions_only_for_sections_with_body_and_both_variants() -> None:
    queries = questions_for("widget_README", "widget README", MARKDOWN, taken_elsewhere={"widget"})
    texts = [q.text for q in queries]
    # "Usage" has one word of body: no question; "Widget" is a heading elsewhere too: no plain variant.
    assert texts == [
        "Widget in the widget README",
        "Install the widget package",
        "Install the widget package in the widget README",
        "Advanced options",
        "Advanced options in the widget README",
    ]
    install = queries[1].gold
    assert install.doc == "widget_README"
    assert (
        MARKDOWN[install.start : install.end]
        == f"## Install the `widget` package\n\n{BODY}\n\n```\n# not a heading\n```"
    )
    assert len({q.qid for q in queries}) == len(queries)


def test_repeated_headings_in_one_document_are_skipped() -> None:
    text = f"# Changes\n\n## Fixed\n\n{BODY}\n\n## Fixed\n\n{BODY}\n\n## Added\n\n{BODY}\n"
    assert [q.text for q in questions_for("c", "c", text)] == ["Added", "Added in the c"]


def test_build_general_set_from_files_is_deterministic_and_skips_missing(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(MARKDOWN, encoding="utf-8")
    (tmp_path / "b.rst").write_text(RST, encoding="utf-8")
    sources = [
        Source("a_README", "readme", "a README", None, str(tmp_path / "a.md")),
        Source("gone", "licence", "gone", None, str(tmp_path / "missing")),
        Source("b_README", "readme", "b README", None, str(tmp_path / "b.rst")),
    ]
    first, second = build_general_set(sources), build_general_set(sources)
    assert [n for n, _ in first.corpus.docs] == ["a_README", "b_README"]
    assert first.corpus.queries == second.corpus.queries
    assert first.manifest[1] == {"name": "gone", "kind": "licence", "missing": True}
    assert len(first.manifest[0]["sha256"]) == 64
    texts = dict(first.corpus.docs)
    for query in first.corpus.queries:
        span = texts[query.gold.doc][query.gold.start : query.gold.end]
        assert query.text.split(" in the ")[0].split()[0] in span


def test_the_installed_set_is_mixed_and_offsets_are_exact() -> None:
    general = build_general_set()
    kinds = set(general.kinds.values())
    assert len(general.corpus.docs) >= 30 and {"readme", "licence"} <= kinds
    assert len({s.name for s in SOURCES}) == len(SOURCES)
    texts = dict(general.corpus.docs)
    for query in general.corpus.queries:
        gold = query.gold
        assert 0 <= gold.start < gold.end <= len(texts[gold.doc])
        assert texts[gold.doc][gold.start : gold.end].rstrip() == texts[gold.doc][gold.start : gold.end]


def test_the_held_out_set_shares_no_document_with_the_development_set() -> None:
    """Held out means other documents: no distribution's text in both lists, and none of the same text twice."""
    assert len({s.name for s in HELDOUT_SOURCES}) == len(HELDOUT_SOURCES)
    assert not {s.name for s in HELDOUT_SOURCES} & {s.name for s in SOURCES}
    assert not {(s.dist, s.file) for s in HELDOUT_SOURCES} & {(s.dist, s.file) for s in SOURCES}
    heldout, development = build_general_set(HELDOUT_SOURCES), build_general_set()
    assert len(heldout.corpus.docs) >= 40 and {"readme", "licence"} <= set(heldout.kinds.values())
    assert not {m["sha256"] for m in heldout.manifest if "sha256" in m} & {
        m["sha256"] for m in development.manifest if "sha256" in m
    }
    assert len(heldout.corpus.queries) >= 300
    texts = dict(heldout.corpus.docs)
    for query in heldout.corpus.queries:
        assert 0 <= query.gold.start < query.gold.end <= len(texts[query.gold.doc])


def test_without_headings_blanks_heading_lines_and_keeps_every_offset(tmp_path: Path) -> None:
    for name, text in (("md", MARKDOWN), ("rst", RST), ("legal", LEGAL)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    sources = [Source(n, "readme", f"{n} README", None, str(tmp_path / n)) for n in ("md", "rst", "legal")]
    general = build_general_set(sources)
    headless = without_headings(general)
    assert headless.corpus.queries == general.corpus.queries and headless.manifest == general.manifest
    for (name, before), (_, after) in zip(general.corpus.docs, headless.corpus.docs, strict=True):
        assert len(after) == len(before) and [i for i, c in enumerate(after) if c == "\n"] == [
            i for i, c in enumerate(before) if c == "\n"
        ]
        assert detect_headings(after) == [], name
        kept = [i for i, (a, b) in enumerate(zip(after, before, strict=True)) if a == b]
        assert len(kept) > len(before) // 2  # only heading lines changed
    body = dict(headless.corpus.docs)["md"]
    assert "Install" not in body and BODY in body and "# not a heading" in body  # code stays


def test_clean_heading_drops_badges_and_list_items_are_no_legal_headings() -> None:
    badge = "Thread-pool Controls [![Build Status](https://ci/badge.svg)](https://ci) ![logo](x.png)"
    assert clean_heading(badge) == "Thread-pool Controls"
    text = "1. Easy-to-use state-of-the-art models:\n    - fast\n\n2. Grant of Patent License. Subject to terms.\n"
    assert [h.title for h in detect_headings(text)] == ["Grant of Patent License"]


def test_every_question_has_one_style_and_the_report_gives_each_its_table(tmp_path: Path) -> None:
    queries = questions_for("widget_README", "widget README", MARKDOWN)
    assert [style_of(q.qid) for q in queries] == ["plain", "named"] * (len(queries) // 2)
    assert all(in_view(q.qid, style_of(q.qid) or "") and in_view(q.qid, "all") for q in queries)
    assert style_of("dev-0001") is None and not in_view("dev-0001", "plain")
    assert in_view("dev-0001", split_of("dev-0001"))  # the manuals' questions keep their tune/heldout split

    out = tmp_path / "out"
    argv = ["bench", "--suite", "general", "--strategies", "lumber", "--retrievers", "bm25", "--max-queries", "30"]
    assert bench_main([*argv, "--out", str(out), "--cache-dir", str(tmp_path / "cache"), "--no-progress"]) == 0
    run = json.loads((out / "results.json").read_text(encoding="utf-8"))["suites"]["general"]["runs"][0]
    assert list(run["splits"]) == ["plain", "named", "all"]
    assert (
        run["splits"]["plain"]["queries"] + run["splits"]["named"]["queries"] == run["splits"]["all"]["queries"] == 30
    )
    assert run["splits"]["all"]["metrics"] == run["metrics"]
    text = (out / "results.md").read_text(encoding="utf-8")
    assert "### general, `plain` questions" in text and "### general, `named` questions" in text

    argv = ["bench", "--suite", "headless", "--strategies", "lumber", "--retrievers", "bm25", "--max-queries", "20"]
    assert bench_main([*argv, "--out", str(out), "--cache-dir", str(tmp_path / "cache"), "--no-progress"]) == 0
    run = json.loads((out / "results.json").read_text(encoding="utf-8"))["suites"]["headless"]["runs"][0]
    assert list(run["splits"]) == ["plain", "named", "all"] and run["splits"]["all"]["queries"] == 20
