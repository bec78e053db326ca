"""The harness on a tiny synthetic corpus: offsets are checked, metrics come out exact (BM25 only: no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chop_bench.cli import main as bench_main
from chop_bench.eval import cli
from chop_bench.eval.bench import BenchConfig, check_pieces, make_embedder, run_benchmark
from chop_bench.eval.corpus import load_corpus
from chop_bench.eval.gutenqa import load_gutenqa, normalize, run_gutenqa
from chop_bench.eval.strategies import Oracle, Strategy, align_starts, tile
from chop_integrations._errors import InputError


class Paragraphs(Strategy):
    """A test strategy: one chunk per blank-line-separated paragraph, the model name in front."""

    name = "paragraphs"

    def __init__(self, shift: int = 0) -> None:
        super().__init__()
        self.shift = shift

    def __call__(self, doc_name, text):
        pieces, start = [], 0
        for block in text.split("\n\n"):
            if block.strip():
                s = start + self.shift
                pieces.append((s, s + len(block), f"{doc_name.replace('_', ' ')}: {block}"))
            start += len(block) + 2
        return pieces


def _config(tmp_path: Path, strategies: list[str]) -> BenchConfig:
    return BenchConfig(
        strategies=strategies, retrievers=["bm25"], out=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False
    )


def test_run_benchmark_scores_exact_spans(tiny_corpus: Path, tmp_path: Path) -> None:
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl")
    assert len(corpus.docs) == 2 and len(corpus.queries) == 6
    config = _config(tmp_path, ["paragraphs"])
    results = run_benchmark(config, corpus, [Paragraphs()], make_embedder(config))
    (run,) = results["runs"]
    # Every query names its model and its section title, so BM25 finds the exact paragraph first.
    assert run["metrics"]["doc@1"] == 1.0
    assert run["metrics"]["span@1"] == 1.0
    assert run["chunks"] == 8  # cover + 3 sections, per manual
    assert all(0.0 <= v <= 1.0 for v in run["metrics"].values())


def test_harness_rejects_chunks_that_lost_their_offsets(tiny_corpus: Path, tmp_path: Path) -> None:
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl")
    config = _config(tmp_path, ["paragraphs"])
    with pytest.raises(InputError, match="offsets"):
        run_benchmark(config, corpus, [Paragraphs(shift=1)], make_embedder(config))


def test_check_pieces() -> None:
    text = "abc def"
    check_pieces("d", text, [(0, 3, "abc"), (4, 7, "[p] def")], "s")
    for bad in ([(0, 8, "abc def")], [(3, 3, "")], [(0, 3, "abd")]):
        with pytest.raises(InputError):
            check_pieces("d", text, bad, "s")


def test_align_starts_ignores_whitespace_changes() -> None:
    text = "First line.\nSecond  line here.\n\nThird one!  Fourth."
    pieces = ["First line. Second line here.", "Third one! Fourth."]
    starts = align_starts(text, pieces)
    assert starts == [0, text.index("Third")]
    tiled = tile(text, starts)
    assert "".join(t for _, _, t in tiled) == text
    with pytest.raises(InputError):
        align_starts(text, ["not in the text"])


def test_oracle_prefixes_model_name(tiny_corpus: Path) -> None:
    corpus = load_corpus(tiny_corpus, None)
    text = dict(corpus.docs)["Phone_Beta"]
    pieces = Oracle(corpus.sections)("Phone_Beta", text)
    assert len(pieces) == 3
    for start, end, embed_text in pieces:
        assert embed_text == "Phone Beta: " + text[start:end]


def test_load_corpus_limits_and_validates(tiny_corpus: Path, tmp_path: Path) -> None:
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl", max_docs=1, max_queries=2)
    assert [name for name, _ in corpus.docs] == ["Phone_Alpha"]
    assert len(corpus.queries) == 2 and all(q.gold.doc == "Phone_Alpha" for q in corpus.queries)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"qid": "x", "query": "q", "manual": "Phone_Alpha", "start": 0, "end": 10**6}) + "\n")
    with pytest.raises(InputError, match="outside"):
        load_corpus(tiny_corpus, bad)


def test_gutenqa_containment(tmp_path: Path) -> None:
    book = {
        "title": "A Book",
        "paragraphs": [
            {"chapter": "I", "text": "It was a “bright” cold day in April."},
            {"chapter": "I", "text": "The clocks were striking thirteen, as always."},
        ],
        "questions": [
            {"question": "What were the clocks striking?", "answer": "13", "must_contain": "striking  thirteen"},
            {"question": "What kind of day?", "answer": "cold", "must_contain": 'a "bright" cold day'},
            {"question": "Who?", "answer": "?", "must_contain": "not in the book"},
        ],
    }
    path = tmp_path / "book.json"
    path.write_text(json.dumps(book), encoding="utf-8")
    title, _text, questions = load_gutenqa(path)
    assert title == "A Book" and len(questions) == 3
    assert normalize("A “B”\n c") == 'a "b" c'
    config = _config(tmp_path, ["paragraphs"])
    result = run_gutenqa(path, config, [Paragraphs()], make_embedder(config))
    assert result["answerable"] == 2
    (run,) = result["runs"]
    assert run["metrics"]["hit@10"] == pytest.approx(2 / 3, abs=1e-4)
    with pytest.raises(InputError):
        path.write_text("{}", encoding="utf-8")
        load_gutenqa(path)


def test_cli_registers_bench_with_func() -> None:
    import argparse

    from chop_bench.commands import BENCH

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    BENCH.add_parser(sub, load=True)
    args = parser.parse_args(["bench", "--corpus", "x", "--strategies", "chop,oracle", "--retrievers", "bm25"])
    assert args.func is cli.run
    assert args.strategies == ["chop", "oracle"] and args.retrievers == ["bm25"]


def test_cli_reports_a_missing_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = bench_main(["bench", "--corpus", str(tmp_path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 2
    assert "manuals/*.txt" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["lumber-llm", "chop-llm"])
def test_llm_strategies_use_the_given_llm_and_report_usage(name: str, tiny_corpus: Path, tmp_path: Path) -> None:
    from chop_bench.eval.strategies import build_strategy
    from chop_integrations._errors import ConfigurationError
    from chop_integrations.testing import ScriptedLLM

    config = _config(tmp_path, [name])
    embedder = make_embedder(config)
    with pytest.raises(ConfigurationError, match="--llm-model"):
        build_strategy(name, embedder=embedder)
    llm = ScriptedLLM(default="not an answer any parser accepts", model_id="scripted-bench")
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl")
    strategy = build_strategy(name, embedder=embedder, llm=llm)
    per_doc = strategy.chunk_corpus(corpus.docs, progress=False)
    for (doc_name, text), pieces in zip(corpus.docs, per_doc, strict=True):
        check_pieces(doc_name, text, pieces, name)
    assert llm.prompts, "the LLM strategy never asked the LLM"
    assert strategy.usage is not None and strategy.usage.calls > 0


def test_embedding_cache_round_trips_every_key(tmp_path: Path) -> None:
    import numpy as np

    from chop_bench.eval.retrievers import EmbeddingCache

    cache = EmbeddingCache(tmp_path)
    keys = [bytes([i]) * 15 + b"\x00" for i in range(5)] + [b"\xff" + b"\x00" * 15]  # trailing NULs must survive
    for number, key in enumerate(keys):
        cache.put(key, np.full(3, number, dtype=np.float32))
    cache.flush()
    again = EmbeddingCache(tmp_path)
    assert len(again) == len(keys)
    for number, key in enumerate(keys):
        assert again.get(key) is not None and again.get(key)[0] == number
