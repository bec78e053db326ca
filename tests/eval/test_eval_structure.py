"""bench-structure: the gold heading reader on each kind of line, and the measures on hand-made chunkings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chop_bench import structure
from chop_bench.eval.headings import gold_headings
from chop_bench.structure import Span, bad_cuts, label_names, measure, stranded
from chop_integrations._cli import main as cli_main

NBSP = "\xa0"

MANUAL = f"""Kapitel 2. Debian-Paketmanagement

    Einleitung des Kapitels mit etwas Text.

2.1. Voraussetzungen

2.1.6. Paketabhängigkeiten

    Das Paketsystem kennt Abhängigkeiten.

    # set CDPATH to a good one
{NBSP}{NBSP}{NBSP} # chvt 3
    $ apt-get install foo

1.1.5. Systemadministrations-Werkzeuge mit grafischer Oberfläche
(GUI)

    Text.
"""


def _titles(text: str) -> list[str]:
    return [h.title for h in gold_headings(text)]


def test_gold_reads_numbered_plain_headings_chapters_and_wrapped_titles() -> None:
    headings = gold_headings(MANUAL)
    assert [(h.title, h.level, h.kind) for h in headings] == [
        ("Kapitel 2. Debian-Paketmanagement", 1, "plain"),
        ("2.1. Voraussetzungen", 2, "plain"),
        ("2.1.6. Paketabhängigkeiten", 3, "plain"),
        ("1.1.5. Systemadministrations-Werkzeuge mit grafischer Oberfläche (GUI)", 3, "plain"),
    ]
    wrapped = headings[-1]
    assert MANUAL[wrapped.start : wrapped.body_start].endswith("(GUI)")


def test_gold_reads_chinese_chapters_and_sections_with_no_break_spaces() -> None:
    text = f"第{NBSP}9{NBSP}章{NBSP}系统技巧\n\n    正文。\n\n9.1.{NBSP}控制台技巧\n\n    正文。\n"
    assert [(h.level, h.title) for h in gold_headings(text)] == [
        (1, f"第{NBSP}9{NBSP}章{NBSP}系统技巧"),
        (2, f"9.1.{NBSP}控制台技巧"),
    ]


def test_gold_skips_shell_comments_prompts_code_and_tables_of_contents() -> None:
    text = (
        "Inhaltsverzeichnis\n\n1. GNU/Linux-Lehrstunde\n    1.1. Grundlagen\n2. Debian-Paketmanagement\n\n"
        "    # set CDPATH to a good one\n\n    1. Installieren Sie das Paket\n\n```\n# not a heading\n```\n\n"
        "| 1. cell | 2. cell |\n\n1. Run the installer.\n\n1. **Copy the settings**\n"
    )
    assert gold_headings(text) == []


def test_gold_reads_markdown_rst_and_changelog_versions() -> None:
    text = (
        "# Title\n\nIntro.\n\n=====\nOver\n=====\n\nBody.\n\nSection\n-------\n\nBody.\n\n"
        "1.26.12 (2022-08-22)\n\n* Fixed a bug.\n\nVersion 1.75.0\n- Stabilised an API.\n\n3.4.5\n\nA bare number.\n"
    )
    assert [(h.title, h.kind) for h in gold_headings(text)] == [
        ("Title", "atx"),
        ("Over", "setext"),
        ("Section", "setext"),
        ("1.26.12 (2022-08-22)", "version"),
        ("Version 1.75.0", "version"),
    ]


def test_gold_keeps_legal_sections_and_drops_indented_list_items() -> None:
    text = "   1. Definitions.\n\n      Body.\n\n  4. Limitations and Disclaimers.\n     1. No trademark.\n\n"
    text += "        2. Befehlsname Zeile\n"
    assert _titles(text) == ["Definitions", "Limitations and Disclaimers"]


DOC = "1. Intro\n\nSome words here.\n\n2. Usage\n\nMore words follow.\n"


def test_stranded_counts_a_heading_whose_body_starts_in_the_next_chunk() -> None:
    headings = gold_headings(DOC)
    usage = DOC.index("2. Usage")
    body = DOC.index("More")
    kept = [Span(0, usage), Span(usage, len(DOC))]
    assert stranded(DOC, headings, kept) == []
    cut = [Span(0, body), Span(body, len(DOC))]
    assert [h.title for h in stranded(DOC, headings, cut)] == ["2. Usage"]
    assert measure(DOC, headings, cut)["stranded"] == 1


def test_indentation_left_before_a_heading_strands_nothing() -> None:
    text = "1. Scope.\n\n   Body of the first clause, long enough.\n\n   2. Terms.\n\n   Body of the second clause.\n"
    headings = [h for h in gold_headings(text) if h.title == "Terms"]
    assert headings  # the indented clause title is a gold heading
    heading = text.index("2. Terms")
    gap = [Span(0, heading), Span(heading, len(text))]  # the chunk before ends with the title's indentation
    assert stranded(text, headings, gap) == []
    title = text.index("Terms")
    inside = [Span(0, title), Span(title, len(text))]  # the number left behind: stranded
    assert len(stranded(text, headings, inside)) == 1


def test_bad_cuts_count_a_cut_inside_a_word_not_at_a_space() -> None:
    text = "The pump moves water from the tank.\n"
    middle = text.index("water") + 2
    assert bad_cuts(text, [Span(0, middle), Span(middle, len(text))]) == ([middle], [], [])
    space = text.index(" water") + 1
    assert bad_cuts(text, [Span(0, space), Span(space, len(text))]) == ([], [], [])


def test_bad_cuts_call_a_cut_inside_a_word_forced_only_when_the_word_fills_the_chunk_before() -> None:
    digest = "a1" * 40
    text = f"See the digest {digest} and https://example.org/{digest} here.\n"
    start = text.index(digest)
    inside = start + 30
    assert bad_cuts(text, [Span(0, start), Span(start, inside), Span(inside, len(text))]) == ([], [], [inside])
    assert bad_cuts(text, [Span(0, inside), Span(inside, len(text))]) == ([inside], [], [])
    slash = text.index("org/") + 4  # a URL cut at its own punctuation: no cut inside a word
    assert bad_cuts(text, [Span(0, slash), Span(slash, len(text))]) == ([], [], [])


def test_bad_cuts_count_a_cut_between_ideographs_only_when_punctuation_came_before() -> None:
    text = "如果菜单没有启动，你可以在终端中启动它。\n"
    cut = text.index("终端") + 1
    assert bad_cuts(text, [Span(0, cut), Span(cut, len(text))]) == ([], [cut], [])
    bare = "如果菜单没有启动你可以在终端中启动它\n"
    cut = bare.index("终端") + 1
    assert bad_cuts(bare, [Span(0, cut), Span(cut, len(bare))]) == ([], [], [cut])  # no punctuation: forced


def test_bad_cuts_count_a_cut_at_a_wrapped_chinese_line_inside_a_sentence() -> None:
    text = "    密码信息，都使用加密。机会使用野蛮暴\n    力猜测密码。\n\n    新段落开始。\n"
    wrap = text.index("力")
    paragraph = text.index("新段落")
    assert bad_cuts(text, [Span(0, wrap), Span(wrap, len(text))]) == ([], [wrap], [])
    assert bad_cuts(text, [Span(0, paragraph), Span(paragraph, len(text))]) == ([], [], [])


def test_label_names_its_own_section_and_not_a_neighbour() -> None:
    assert label_names("Paketabhängigkeiten, Debian-Paketmanagement", "2.1.6. Paketabhängigkeiten")
    assert label_names("Stabilized APIs | Version 1.63.0 (2022-08-11)", "Version 1.63.0 (2022-08-11)")
    assert label_names(f"2.1.{NBSP}控制台技巧", f"2.1.{NBSP}控制台技巧")
    assert not label_names("set CDPATH to a good one", "2.1.6. Paketabhängigkeiten")
    assert not label_names("C++", "12.3.1. C")
    assert not label_names("1.26.11", "1.26.12")
    assert not label_names("", "Intro")
    # the brackets a prefix cannot hold; a long title cut at a word with an ellipsis, keeping 40 characters or more
    assert label_names("Changelog, Unreleased", "[Unreleased]")
    assert label_names("Examples, Render a prompt", ":point_right: Render a prompt")
    assert label_names(
        "Added partial matches (Hg issue 102)", "Added partial matches (`Hg issue 102 <https://x/102>`_)"
    )
    question = "3.1.6. Hier ist die Rede davon, dass Testing kaputt gehen kann. Was soll das heißen?"
    assert label_names("3.1.6. Hier ist die Rede davon, dass Testing kaputt gehen kann. Was\u2026", question)
    assert not label_names("3.1.6. Hier ist die Rede davon, dass Testing kaputt gehen kann. Wa\u2026", question)
    assert not label_names("3.1.6. Hier ist die Rede\u2026", question)
    assert not label_names("3.1.6. Hier ist die Rede davon, dass Testing kaputt gehen darf\u2026", question)


def test_measure_counts_right_labels_of_chunks_inside_a_section() -> None:
    text = "Preamble words.\n\n" + DOC
    headings = gold_headings(text)
    usage = text.index("2. Usage")
    spans = [Span(0, 17, "Intro"), Span(17, usage, "Intro"), Span(usage, len(text), "Intro")]
    counts = measure(text, headings, spans)
    assert (counts["in_section"], counts["label_right"]) == (2, 1)
    assert counts["examples"]["labels"] == ["'2. Usage' labelled 'Intro'"]


_MANUALS = [("manual", "\n".join([MANUAL] * 3))]


def _bench_structure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *options: str) -> dict[str, Any]:
    """``bench-structure`` with ``options`` on three copies of :data:`MANUAL`: the JSON it writes."""
    monkeypatch.setattr(structure, "load_set", lambda name, docs_dir=None: _MANUALS)
    out = tmp_path / "s.json"
    assert cli_main(["bench-structure", *options, "--json", str(out)]) == 0
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_bench_structure_runs_on_a_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _bench_structure(monkeypatch, tmp_path, "--set", "multilingual", "--sizes", "default,20")
    assert [(r["method"], r["max_tokens"]) for r in result["rows"]] == [
        ("lumber", "default"),
        ("lumber", 20),
        ("chop", "default"),
        ("chop", 20),
    ]
    assert all(r["headings"] == 12 for r in result["rows"])
    assert "label_share" in result["rows"][2] and "label_share" not in result["rows"][0]
    assert "| chop | 20 |" in capsys.readouterr().out


def test_bench_structure_rejects_an_unknown_method(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["bench-structure", "--methods", "cosine"]) == 2
    assert "--methods" in capsys.readouterr().err


def test_bench_structure_runs_on_a_simulated_llm_in_paper_mode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    options = ("--methods", "lumber", "--llm", "simulated", "--mode", "paper", "--sizes", "100")
    (row,) = _bench_structure(monkeypatch, tmp_path, *options)["rows"]
    assert row["method"] == "lumber simulated LLM paper mode" and row["headings"] == 12
    assert row["stranded"] == 0 and "label_share" not in row
    offline = structure.run_set(_MANUALS, "lumber", 100, mode="paper")
    assert offline["chunks"] != row["chunks"]  # the simulated model cut elsewhere than the offline decider


def test_bench_structure_paper_mode_is_lumberchunkers(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["bench-structure", "--mode", "paper"]) == 2
    assert "--methods lumber" in capsys.readouterr().err
