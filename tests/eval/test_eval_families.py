"""The families: near-identical documents, two layouts, three question forms, built from documents the tests write."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from chop_bench.eval import bench
from chop_bench.eval.anonymise import coded
from chop_bench.eval.corpus import load_corpus
from chop_bench.eval.families import (
    FAMILIES,
    FAMILY_SUITES,
    HELDOUT_FAMILIES,
    MAX_PER_FORM,
    SUITE_GROUPS,
    TUNE_FAMILIES,
    Family,
    build_family_set,
    code_names,
    families_dir,
)
from chop_bench.eval.family_questions import (
    absent_version,
    first_sentence,
    topics_of,
    typed_name,
)
from chop_bench.eval.splits import FORMS, form_of, in_view
from chop_bench.eval.suites import SUITE_STRATEGIES, SUITES, expand_suites, run_suites
from chop_integrations._errors import ChopError, ConfigurationError

TOY = Family("toy", "Toy", "Toy {v}", "{v}.txt", "toy-{v}-notes", ("1.0.1", "1.0.2", "1.0.3", "1.1.1"))
BODY = "the widget no longer crashes when the gizmo is frobnicated twice under heavy load on a busy server today"


def _notes(version: str, title: str = "Toy {v} release notes") -> str:
    heading = title.format(v=version)
    bar = "=" * len(heading)
    return (
        f"{bar}\n{heading}\n{bar}\n\n*July 3, 2023*\n\nToy {version} fixes several bugs in the previous release.\n\n"
        f"Bugfixes\n========\n\n* Fixed a regression where {BODY} (:ticket:`{len(version)}`).\n\n"
        f"Security\n========\n\nThe ``parse()`` helper in {BODY} and it now rejects oversized inputs early.\n"
    )


def _write(root: Path, family: Family, *, title: str = "Toy {v} release notes") -> Path:
    folder = root / family.key
    folder.mkdir(parents=True)
    for version in family.members:
        (folder / family.file.format(v=version)).write_text(_notes(version, title), encoding="utf-8")
    (folder / "ORIGIN.json").write_text(json.dumps({"archive": "toy-2.0.tar.gz", "sha256": "ab"}), encoding="utf-8")
    return root


def test_named_layout_names_files_as_people_do_and_gold_follows(tmp_path: Path) -> None:
    built = build_family_set(TOY, "named", folder=_write(tmp_path, TOY))
    assert [name for name, _ in built.corpus.docs] == [f"toy-{v}-notes" for v in TOY.members]
    assert built.names == {v: f"toy-{v}-notes" for v in TOY.members}
    texts = dict(built.corpus.docs)
    for query in built.corpus.queries:
        assert query.gold.doc in texts
        assert 0 <= query.gold.start < query.gold.end <= len(texts[query.gold.doc])


def test_codes_layout_has_the_same_documents_and_questions_under_codes(tmp_path: Path) -> None:
    root = _write(tmp_path, TOY)
    named, codes = build_family_set(TOY, "named", folder=root), build_family_set(TOY, "codes", folder=root)
    assert sorted(codes.names.values()) == ["doc_01", "doc_02", "doc_03", "doc_04"]
    assert codes.names == code_names(TOY)
    back = {codes.names[v]: named.names[v] for v in TOY.members}
    assert {back[name]: text for name, text in codes.corpus.docs} == dict(named.corpus.docs)
    assert [q.text for q in codes.corpus.queries] == [q.text for q in named.corpus.queries]
    for ours, theirs in zip(codes.corpus.queries, named.corpus.queries, strict=True):
        assert back[ours.gold.doc] == theirs.gold.doc
        assert (ours.gold.start, ours.gold.end) == (theirs.gold.start, theirs.gold.end)
        assert not any(v in ours.gold.doc for v in TOY.members)


def test_each_topic_is_asked_in_three_forms_and_absent_members_are_never_in_the_store(tmp_path: Path) -> None:
    built = build_family_set(TOY, folder=_write(tmp_path, TOY))
    queries = built.corpus.queries
    assert len(queries) % 3 == 0 and queries
    for exact, typed, absent in zip(queries[::3], queries[1::3], queries[2::3], strict=True):
        assert [form_of(q.qid) for q in (exact, typed, absent)] == list(FORMS)
        assert exact.gold == typed.gold == absent.gold
        version = next(v for v, name in built.names.items() if name == exact.gold.doc)
        assert exact.text.endswith(f" in Toy {version}")
        assert version in typed.text and f"Toy {version}" not in typed.text
        named = absent.text.rsplit(" in Toy ", 1)[1]
        assert named not in TOY.members
        assert named == ("1.0.4" if version.startswith("1.0.") else "1.1.2")
    topics = {q.text.rsplit(" in ", 1)[0] for q in queries[::3]}
    assert "Bugfixes" in topics and "Security" in topics


def test_topics_are_sections_with_body_and_gold_starts_at_their_heading() -> None:
    text = _notes("1.0.2")
    topics = topics_of(text)
    assert [t.text for t in topics] == ["Bugfixes", "Security"]
    for topic in topics:
        assert text[topic.start :].startswith(topic.text)
        assert not text[topic.end - 1].isspace()


def test_a_member_with_short_sections_gets_a_sentence_topic_without_versions() -> None:
    text = "Toy 1.0.9\n=========\n\nToy 1.0.9 fixes one bug.\n\nBugfixes\n========\n\n* Fixed a crash of ``run()``.\n"
    topics = topics_of(text)
    assert [t.text for t in topics] == ["Fixed a crash of run()"]
    assert text[topics[0].start :].startswith("Bugfixes")


def test_first_sentence_unwraps_rst_and_skips_dates_and_directives() -> None:
    body = "\n.. currentmodule:: toy\n\n*May 2, 2022*\n\n"
    body += "- Fixed :meth:`.Frame.drop` with ``inplace=True`` (:issue:`45`).\n"
    assert first_sentence(body) == "Fixed Frame.drop with inplace=True"
    assert first_sentence("\n\n") == ""


def test_typed_names_follow_a_rule_that_names_no_family() -> None:
    assert [typed_name("Django", "3.2.4", k)[0] for k in range(6)] == [
        "django 3.2.4",
        "django3.2.4",
        "Django v3.2.4",
        "Django-3.2.4",
        "3.2.4",
        "django version 3.2.4",
    ]
    assert typed_name("Django", "3.2.4", 0)[1] and not typed_name("Django", "3.2.4", 2)[1]
    assert typed_name("Ubuntu", "Jammy", 4) == ("ubuntu jammy", True)


def test_absent_version_is_one_patch_beyond_the_highest_of_its_series() -> None:
    members = ("3.2.1", "3.2.23", "4.0.1")
    assert absent_version("3.2.1", members) == "3.2.24"
    assert absent_version("4.0.1", members) == "4.0.2"
    assert absent_version("7", ("5", "7")) == "7.1"


def test_building_is_deterministic_and_the_manifest_has_every_members_hash(tmp_path: Path) -> None:
    root = _write(tmp_path, TOY)
    first, second = build_family_set(TOY, folder=root), build_family_set(TOY, folder=root)
    assert first.corpus.queries == second.corpus.queries and first.manifest == second.manifest
    assert first.manifest[0] == {"family": "toy", "archive": "toy-2.0.tar.gz", "sha256": "ab"}
    texts = dict(first.corpus.docs)
    for entry, version in zip(first.manifest[1:], TOY.members, strict=True):
        assert entry["member"] == version and entry["file"] == f"{version}.txt"
        assert entry["sha256"] == hashlib.sha256(texts[entry["name"]].encode()).hexdigest()


def test_questions_are_capped_per_form_taking_members_in_turns(tmp_path: Path) -> None:
    built = build_family_set(TOY, folder=_write(tmp_path, TOY), max_per_form=5)
    exact = [q for q in built.corpus.queries if in_view(q.qid, "exact")]
    assert len(exact) == 5
    assert [q.qid.split("#")[1] for q in exact] == ["0-exact"] * 4 + ["1-exact"]


def test_a_family_not_fetched_names_the_fetch_command(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"python scripts/fetch_families\.py toy"):
        build_family_set(TOY, folder=tmp_path)
    config = bench.BenchConfig(strategies=[], retrievers=["bm25"], out=tmp_path, cache_dir=tmp_path / "c")
    with pytest.raises(ChopError, match=r"fetch_families\.py django"):
        run_suites(
            config,
            suites=["families"],
            corpus_dir=None,
            queries=None,
            gutenqa=None,
            strategies=["recursive-500"],
            docs_dir=tmp_path / "nothing",
        )


def test_suites_groups_and_split_by_family() -> None:
    assert set(TUNE_FAMILIES) | set(HELDOUT_FAMILIES) == set(FAMILIES)
    assert not set(TUNE_FAMILIES) & set(HELDOUT_FAMILIES)
    assert TUNE_FAMILIES == ("django", "numpy", "pandas") and HELDOUT_FAMILIES == ("pillow",)
    assert expand_suites(["families-heldout", "manuals"]) == ["family-pillow", "family-pillow-codes", "manuals"]
    assert set(expand_suites(["families"])) == {f"family-{k}{s}" for k in TUNE_FAMILIES for s in ("", "-codes")}
    for suite in (*FAMILY_SUITES, "manuals-codes"):
        assert suite in SUITES
        assert {"lumber", "lumber+name", "chop-chunks+name", "chop", "chop+query"} <= set(SUITE_STRATEGIES[suite])
    assert set(SUITE_GROUPS) == {"families", "families-heldout"}
    assert families_dir(Path("/x")) == Path("/x/families")


def test_the_held_out_family_is_named_as_its_project_names_its_releases() -> None:
    pillow = FAMILIES["pillow"]
    assert (pillow.word, pillow.title.format(v="10.0.1")) == ("Pillow", "Pillow 10.0.1")
    assert pillow.named.format(v="10.0.1") == "pillow-10.0.1-release-notes"
    assert len(pillow.members) == len(set(pillow.members)) == 24
    assert absent_version("10.0.1", pillow.members) == "10.0.2"


def test_a_family_suite_runs_and_reports_each_form(tmp_path: Path) -> None:
    django = FAMILIES["django"]
    root = _write(tmp_path / "docs" / "families", django, title="Django {v} release notes").parent
    config = bench.BenchConfig(
        strategies=[], retrievers=["bm25"], out=tmp_path, cache_dir=tmp_path / "c", progress=False
    )
    out = run_suites(
        config,
        suites=["family-django-codes"],
        corpus_dir=None,
        queries=None,
        gutenqa=None,
        strategies=["recursive-500"],
        docs_dir=root,
    )
    result = out["suites"]["family-django-codes"]
    assert set(result["runs"][0]["splits"]) == {*FORMS, "all"}
    assert result["names"]["3.2.1"].startswith("doc_")
    assert result["runs"][0]["splits"]["all"]["queries"] == 3 * min(2 * len(django.members), MAX_PER_FORM)


def test_coded_manuals_are_named_by_number_and_gold_follows(tiny_corpus: Path) -> None:
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl")
    renamed = coded(corpus)
    assert [name for name, _ in renamed.docs] == ["doc01", "doc02"]
    assert [text for _, text in renamed.docs] == [text for _, text in corpus.docs]
    assert renamed.sections is not None and corpus.sections is not None
    assert renamed.sections["doc01"] == corpus.sections["Phone_Alpha"]
    assert [q.gold.doc for q in renamed.queries] == ["doc01"] * 3 + ["doc02"] * 3
    assert [q.text for q in renamed.queries] == [q.text for q in corpus.queries]


def test_the_fetched_families_when_present_keep_to_their_limits() -> None:
    root = families_dir()
    if not all((root / key).is_dir() for key in FAMILIES):
        pytest.skip(f"families not fetched in {root}: run `python scripts/fetch_families.py`")
    for key, family in FAMILIES.items():
        built = build_family_set(key)
        assert 20 <= len(built.corpus.docs) == len(family.members) <= 40
        assert len(built.corpus.queries) <= 3 * MAX_PER_FORM
        members = {f"{family.title.format(v=v)}" for v in family.members}
        for query in built.corpus.queries:
            if form_of(query.qid) == "absent":
                assert query.text.rsplit(" in ", 1)[1] not in members


def test_must_show_holds_chop_query_to_chop_on_the_absent_questions() -> None:
    from chop_bench.eval.mustshow import check_must_show

    def run(strategy: str, retriever: str, doc: float) -> dict[str, object]:
        return {
            "strategy": strategy,
            "retriever": retriever,
            "metrics": {"doc@1": 0.9},
            "splits": {"absent": {"metrics": {"doc@1": doc}, "queries": 4}},
        }

    runs = [run("chop", r, 0.5) for r in ("dense", "bm25")] + [run("chop+query", "dense", 0.5)]
    runs.append(run("chop+query", "bm25", 0.25))
    checks = {c["criterion"]: c["result"] for c in check_must_show({"family-toy-codes": {"runs": runs}})}
    assert checks["family-toy-codes absent: chop+query = chop within 0.005, every metric [dense]"] == "PASS"
    assert checks["family-toy-codes absent: chop+query = chop within 0.005, every metric [bm25]"] == "FAIL"
