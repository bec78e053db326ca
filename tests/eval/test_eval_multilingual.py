"""The multilingual sets: chapters of German and Chinese Debian manuals, heading-made questions, per-language views."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chop_bench.eval import bench
from chop_bench.eval.headings import gold_headings
from chop_bench.eval.multilingual import (
    DEV_SOURCES,
    HELDOUT_SOURCES,
    MAX_CHARS,
    ManualSource,
    build_multilingual_set,
    chapters,
    questions_for,
)
from chop_bench.eval.retrievers import BM25Retriever
from chop_bench.eval.splits import in_view, lang_of
from chop_bench.eval.suites import run_suites
from chop_integrations._errors import ChopError
from tests.support.docs import DOCS_DIR, doc_text

REFERENCE_DE = ("debian-reference-de", "usr/share/debian-reference/debian-reference.de.txt.gz")
REFERENCE_ZH = ("debian-reference-zh-cn", "usr/share/debian-reference/debian-reference.zh-cn.txt.gz")


def test_the_reference_gold_has_its_numbered_headings_and_no_shell_comment() -> None:
    text = doc_text(*REFERENCE_DE)
    headings = gold_headings(text)
    titles = [h.title for h in headings]
    assert "2.1.6. Paketabhängigkeiten" in titles
    assert "Kapitel 2. Debian-Paketmanagement" in titles
    assert all(not text[h.start].isspace() for h in headings)
    assert not any("CDPATH" in t or t.startswith("#") for t in titles)
    in_toc = text.index("Inhaltsverzeichnis")
    assert not any(in_toc < h.start < text.index("Tabellenverzeichnis") for h in headings)


def test_the_chinese_reference_has_as_many_sections_as_the_german_one() -> None:
    german, chinese = gold_headings(doc_text(*REFERENCE_DE)), gold_headings(doc_text(*REFERENCE_ZH))
    assert abs(len(german) - len(chinese)) <= 5
    assert sum(h.title.startswith("第") for h in chinese) == sum(h.title.startswith("Kapitel") for h in german) >= 12


def test_chapters_open_with_their_chapter_heading_and_stay_under_the_cap() -> None:
    parts = chapters(doc_text(*REFERENCE_ZH))
    assert len(parts) >= 12
    assert all(re.match(r"(第\s*\d+\s*章|附录)", p) for p in parts)
    assert all(len(p) <= MAX_CHARS for p in parts)


@pytest.mark.parametrize("sources", [DEV_SOURCES, HELDOUT_SOURCES], ids=["dev", "heldout"])
def test_the_sets_make_questions_in_both_languages_with_gold_at_a_heading(sources: tuple[ManualSource, ...]) -> None:
    for source in sources:
        doc_text(source.package, source.file)
    built = build_multilingual_set(sources, folder=DOCS_DIR)
    docs = dict(built.corpus.docs)
    queries = built.corpus.queries
    assert {built.langs[q.gold.doc] for q in queries} == {"de", "zh"}
    assert all(lang_of(q.qid) == built.langs[q.gold.doc] for q in queries)
    starts = {name: {h.start for h in gold_headings(text)} for name, text in docs.items()}
    for query in queries:
        assert query.gold.start in starts[query.gold.doc]
        assert not re.match(r"\s*(\d+\.|第\s*\d|Kapitel)", query.text)
    assert not {q.gold.doc for q in queries} - set(docs)


def test_questions_use_the_heading_without_its_number_and_name_the_manual() -> None:
    body = "这是正文，" * 30
    text = f"第 1 章 概览\n\n{body}\n\n1.1.\xa0软件包依赖\n\n{body}\n"
    queries = questions_for("ref.zh-cn#01", "Debian 参考手册", text)
    assert [q.text for q in queries] == ["概览", "Debian 参考手册: 概览", "软件包依赖", "Debian 参考手册: 软件包依赖"]
    assert queries[2].gold.start == text.index("1.1.")


def test_language_views_follow_the_document_name() -> None:
    assert lang_of("debian-reference.de#02#3-plain") == "de"
    assert lang_of("maint-guide.zh-cn#01#0-named") == "zh"
    assert lang_of("requests_README#1-plain") is None
    assert in_view("debian-faq.zh-cn#01#0-named", "zh") and not in_view("debian-faq.zh-cn#01#0-named", "de")


def test_bm25_finds_a_chinese_word_inside_a_clause() -> None:
    pytest.importorskip("bm25s")
    pytest.importorskip("jieba")
    retriever = BM25Retriever()
    retriever.index(["如果你的桌面菜单没有使用适当权限启动管理工具", "在终端模拟器中启动它", "Debian 的软件包管理"])
    assert retriever.search(["桌面菜单", "终端模拟器"], k=1) == [[0], [1]]


def test_a_multilingual_suite_without_its_documents_names_the_fetch_script(tmp_path: Path) -> None:
    config = bench.BenchConfig(strategies=[], retrievers=["bm25"], out=tmp_path, cache_dir=tmp_path / "c")
    with pytest.raises(ChopError, match=r"fetch_docs\.py"):
        run_suites(
            config,
            suites=["multilingual"],
            corpus_dir=None,
            queries=None,
            gutenqa=None,
            strategies=["recursive-500"],
            docs_dir=tmp_path / "nothing",
        )


def test_missing_documents_of_a_later_suite_fail_before_the_first_suite_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = bench.BenchConfig(strategies=[], retrievers=["bm25"], out=tmp_path, cache_dir=tmp_path / "c")
    monkeypatch.setattr(bench, "make_embedder", lambda _config: pytest.fail("a suite started"))
    with pytest.raises(ChopError, match=r"fetch_docs\.py"):
        run_suites(
            config,
            suites=["general", "multilingual-heldout"],
            corpus_dir=None,
            queries=None,
            gutenqa=None,
            strategies=["recursive-500"],
            docs_dir=tmp_path / "nothing",
        )
