"""The query strategies of the benchmark: chop+query (filter), chop+query-boost and chop+query+context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from chop_bench.cli import main as bench_main
from chop_bench.eval.bench import BenchConfig, build_strategies, make_embedder, run_benchmark
from chop_bench.eval.corpus import load_corpus
from chop_bench.eval.metrics import ChunkRef
from chop_bench.eval.query_strategies import QueryStrategy, query_strategy_parts
from chop_bench.eval.strategies import Engine, NativeTokens, StrategyUnavailable

NAMES = ["chop", "chop+query", "chop+query-boost", "chop+query+context"]


class Reversed:
    """A fake retriever: every chunk, last first (so a filter's effect is plain to see)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.calls: list[tuple[int, int]] = []

    def search(self, queries: Sequence[str], *, k: int = 10) -> list[list[int]]:
        self.calls.append((len(queries), k))
        return [list(range(self.size - 1, -1, -1))[:k] for _ in queries]


def _config(tmp_path: Path, strategies: list[str]) -> BenchConfig:
    return BenchConfig(
        strategies=strategies, retrievers=["bm25"], out=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False
    )


def _built(tiny_corpus: Path, tmp_path: Path) -> tuple[list[QueryStrategy], Engine, list[ChunkRef], list[str]]:
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl")
    config = _config(tmp_path, NAMES)
    strategies, skipped = build_strategies(config, corpus, make_embedder(config))
    assert not skipped and [s.name for s in strategies] == NAMES
    base = strategies[0]
    assert isinstance(base, Engine)
    queries = [s for s in strategies[1:] if isinstance(s, QueryStrategy)]
    assert all(q.base is base for q in queries)  # one CHOP pass, shared
    for strategy in queries:  # each registers the corpus it will rank
        per_doc = strategy.chunk_corpus(corpus.docs, progress=False)
    refs = [ChunkRef(name, s, e) for (name, _), pieces in zip(corpus.docs, per_doc, strict=True) for s, e, _ in pieces]
    models = [c.cnm.model for chunks in next(iter(base.chunks.values())) for c in chunks]
    return queries, base, refs, models


def test_names_parse_to_a_base_and_a_mode() -> None:
    assert query_strategy_parts("chop+query") == ("chop", "filter")
    assert query_strategy_parts("chop-llm+query-boost") == ("chop-llm", "boost")
    assert query_strategy_parts("chop+query+context") == ("chop", "context")
    assert query_strategy_parts("lumber+query") is None and query_strategy_parts("chop+name") is None
    with pytest.raises(StrategyUnavailable):
        QueryStrategy(NativeTokens(), "filter")


def test_filter_boost_and_context_rank_from_chop_s_own_signatures(tiny_corpus: Path, tmp_path: Path) -> None:
    (query, boost, context), _, refs, models = _built(tiny_corpus, tmp_path)
    alpha = next(m for m in models if m and "Alpha" in m)
    questions = ["Charge the battery of the phone alpha", "Charge the battery"]
    retriever = Reversed(len(refs))
    everything = [refs[i] for i in range(len(refs) - 1, -1, -1)]

    filtered, plain = query.rank(retriever, questions, refs)
    assert filtered == [r for r, m in zip(everything, reversed(models), strict=True) if m == alpha][:10]
    assert plain == everything[:10]  # a question naming no model: exactly chop's ranking
    assert query.readings == {"questions": 2, "read": 1}

    boosted, _ = boost.rank(retriever, questions, refs)
    assert boosted[: len(filtered)] == filtered and len(boosted) == min(10, len(refs))

    widened, _ = context.rank(retriever, questions, refs)
    assert len(set(widened)) == len(widened)  # a run already returned is not returned twice
    assert all(any(w.doc == f.doc and w.start <= f.start and f.end <= w.end for w in widened) for f in filtered)


def test_unread_questions_score_exactly_as_chop(tiny_corpus: Path, tmp_path: Path) -> None:
    queries = tiny_corpus / "queries.jsonl"
    rows = [json.loads(line) for line in queries.read_text(encoding="utf-8").splitlines()]
    for row in rows:  # no model named any more
        row["query"] = row["query"].split(" on the ")[0]
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    corpus = load_corpus(tiny_corpus, queries)
    config = _config(tmp_path, ["chop", "chop+query", "chop+query-boost"])
    strategies, _ = build_strategies(config, corpus, make_embedder(config))
    runs = run_benchmark(config, corpus, strategies, make_embedder(config))["runs"]
    assert runs[0]["metrics"] == runs[1]["metrics"] == runs[2]["metrics"]
    assert runs[1]["readings"] == {"questions": len(rows), "read": 0}


def test_the_cli_runs_the_maintainers_command(tiny_corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = bench_main(
        [
            "bench",
            *("--corpus", str(tiny_corpus), "--suite", "manuals", "--split", "all"),
            *("--queries", str(tiny_corpus / "queries.jsonl"), "--strategies", "chop,chop+query"),
            *("--retrievers", "bm25", "--out", str(out), "--no-progress"),
        ]
    )
    assert code == 0
    runs = json.loads((out / "results.json").read_text(encoding="utf-8"))["suites"]["manuals"]["runs"]
    assert [r["strategy"] for r in runs] == ["chop", "chop+query"]
    assert runs[1]["splits"]["all"]["metrics"]["doc@1"] == 1.0
    assert runs[1]["readings"]["read"] == runs[1]["readings"]["questions"] == 6


def test_bench_help_lists_the_query_strategies(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # one line per option: argparse wraps at hyphens ("chop+query-" "boost")
    assert bench_main(["bench", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    for name in ("chop+query", "chop+query-boost", "chop+query+context"):
        assert name in help_text


def _row(strategy: str, retriever: str, split: str | None, **metrics: float) -> dict[str, object]:
    row: dict[str, object] = {"strategy": strategy, "retriever": retriever, "metrics": dict(metrics)}
    if split is not None:
        row["splits"] = {split: {"queries": 3, "metrics": dict(metrics)}}
    return row


def test_must_show_checks_chop_query_only_when_it_ran() -> None:
    from chop_bench.eval.mustshow import check_must_show

    manuals = {
        "runs": [
            row
            for retriever in ("dense", "bm25")
            for row in (
                _row("chop", retriever, "heldout", **{"doc@1": 0.9, "span@1": 0.70}),
                _row(
                    "chop+query",
                    retriever,
                    "heldout",
                    **{"doc@1": 0.99, "span@1": 0.75 if retriever == "dense" else 0.74},
                ),
            )
        ]
    }
    general = {
        "runs": [
            _row("chop", "dense", None, **{"doc@1": 0.5, "ndcg@10": 0.4}),
            _row("chop+query", "dense", None, **{"doc@1": 0.504, "ndcg@10": 0.41}),
        ]
    }
    checks = {c["criterion"]: c["result"] for c in check_must_show({"manuals": manuals, "general": general})}
    query = {name: result for name, result in checks.items() if "chop+query" in name}
    assert query == {
        "manuals heldout: chop+query doc@1 >= 0.98, span@1 >= chop + 0.05 [dense]": "PASS",
        "manuals heldout: chop+query doc@1 >= 0.98, span@1 >= chop + 0.05 [bm25]": "FAIL",
        "general: chop+query = chop within 0.005, every metric [dense]": "FAIL",  # ndcg@10 is 0.01 apart
        "general: chop+query = chop within 0.005, every metric [bm25]": "n/a",
    }
    plain = check_must_show({"manuals": {"runs": [r for r in manuals["runs"] if r["strategy"] == "chop"]}})
    assert not any("chop+query" in c["criterion"] for c in plain)
