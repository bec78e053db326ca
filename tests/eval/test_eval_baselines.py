"""Fair baselines: +name and contextual-header texts, shared base chunks, LlamaIndex's default, anonymisation."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_bench.eval.anonymise import anonymise, blank, hashed_name
from chop_bench.eval.baselines import (
    LlamaIndexDefault,
    Prefixed,
    header_text,
    name_text,
    our_heading_paths,
    timed_pieces,
)
from chop_bench.eval.bench import check_pieces
from chop_bench.eval.corpus import load_corpus
from chop_bench.eval.strategies import Piece, Strategy, build_strategy
from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._text.tokens import get_encoding

BODY = "Connect the charger to the device and to a power outlet, then wait until it is full."
MARKDOWN = f"# Phone\n\n## Battery\n\n### Charging\n\n{BODY}\n\n## Wi-Fi\n\n{BODY}\n"
MANUAL = f"Getting started\n\nCharge the battery\n{BODY}\n\nConnections\n\nWi-Fi\n{BODY}\n"


class Paragraphs(Strategy):
    """One piece per blank-line-separated block; counts its calls."""

    name = "paragraphs"
    description = "paragraphs"

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __call__(self, doc_name: str, text: str) -> list[tuple[int, int, str]]:
        self.calls += 1
        pieces, start = [], 0
        for block in text.split("\n\n"):
            if block.strip():
                pieces.append((start, start + len(block), block))
            start += len(block) + 2
        return pieces


def test_name_and_header_texts() -> None:
    assert name_text("Galaxy_A20") == "Galaxy A20\n\n"
    assert header_text("Galaxy_A20", []) == "Galaxy A20\n\n"
    assert header_text("x_README", ["A", "B", "C", "D"]) == "x README\nB > C > D\n\n"


def test_prefixed_variants_share_the_base_chunks_and_keep_offsets() -> None:
    base = Paragraphs()
    docs = [("Phone_X", MARKDOWN)]
    named, header = Prefixed(base, "name"), Prefixed(base, "header")
    (name_pieces,), (header_pieces,) = named.chunk_corpus(docs), header.chunk_corpus(docs)
    assert base.calls == 1  # chunked once for both variants
    check_pieces("Phone_X", MARKDOWN, name_pieces, named.name)
    check_pieces("Phone_X", MARKDOWN, header_pieces, header.name)
    assert all(t.startswith("Phone X\n\n") for _, _, t in name_pieces)
    body = [t for s, _, t in header_pieces if MARKDOWN[s:].startswith("Connect")]
    assert body[0] == f"Phone X\nPhone > Battery > Charging\n\n{BODY}"
    assert body[1] == f"Phone X\nPhone > Wi-Fi\n\n{BODY}\n"
    _, seconds, cpu = timed_pieces(header, docs, progress=False)
    _, base_seconds, base_cpu = timed_pieces(base, docs, progress=False)
    assert seconds >= base_seconds and cpu >= base_cpu >= 0.0
    with pytest.raises(ValueError, match="unknown prefix"):
        Prefixed(base, "title")


class FreezeSeen(Paragraphs):
    """Paragraphs that note how many objects the garbage collector had frozen while it chunked."""

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        self.frozen = gc.get_freeze_count()
        return super().chunk_corpus(docs, progress=progress)


class FailsToChunk(Paragraphs):
    """Paragraphs that fail halfway through a run."""

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        raise ZeroDivisionError("a strategy failed")


def test_a_strategy_chunks_with_the_runs_objects_frozen_and_they_thaw_after() -> None:
    strategy, held = FreezeSeen(), [[i] for i in range(1000)]  # objects the run holds already
    timed_pieces(strategy, [("A", MARKDOWN)], progress=False)
    assert strategy.frozen >= len(held)  # the run's objects were out of the collector's passes
    assert gc.get_freeze_count() == 0  # and back in them afterwards
    with pytest.raises(ZeroDivisionError):
        timed_pieces(FailsToChunk(), [("A", MARKDOWN)], progress=False)
    assert gc.get_freeze_count() == 0  # also when the strategy failed


def test_standard_headers_find_nothing_on_plain_manuals_ours_do() -> None:
    base = Paragraphs()
    (standard,) = Prefixed(base, "header").chunk_corpus([("M", MANUAL)])
    assert all(t.startswith("M\n\n") for _, _, t in standard)  # no markdown/rst heading: the header is the title
    wifi = MANUAL.index("Wi-Fi")
    assert our_heading_paths(MANUAL, [wifi, wifi + 10]) == [["Connections", "Wi-Fi"], ["Connections", "Wi-Fi"]]
    (ours,) = Prefixed(base, "header-ours").chunk_corpus([("M", MANUAL)])
    assert [t for s, _, t in ours if s == wifi] == [f"M\nConnections > Wi-Fi\n\nWi-Fi\n{BODY}\n"]


def test_llamaindex_default_embeds_file_path_over_exact_spans() -> None:
    text = "\n\n".join(f"Section {i}\n{BODY} " * 3 for i in range(40))
    (pieces,) = LlamaIndexDefault().chunk_corpus([("Phone_X", text)])
    assert len(pieces) > 1
    check_pieces("Phone_X", text, pieces, "llamaindex")
    assert all(t.startswith("file_path: /data/docs/Phone_X.txt\n\n") for _, _, t in pieces)
    assert pieces[1][0] < pieces[0][1]  # SentenceSplitter's default overlap


def test_anonymise_blanks_covers_keeps_offsets_and_remaps_gold(tiny_corpus: Path) -> None:
    corpus = load_corpus(tiny_corpus, tiny_corpus / "queries.jsonl")
    anon = anonymise(corpus)
    before, after = dict(corpus.docs), dict(anon.docs)
    assert sorted(after) == sorted(hashed_name(n) for n in before)
    assert all(len(name) == 10 and int(name, 16) >= 0 for name in after)
    sections = corpus.sections
    assert sections is not None
    for name, text in before.items():
        new = after[hashed_name(name)]
        cover_end = min(s for s, _ in sections[name])
        assert len(new) == len(text) and new[cover_end:] == text[cover_end:]
        assert new[:cover_end].strip() == "" and new[:cover_end].count("\n") == text[:cover_end].count("\n")
        assert "Phone" not in new[:cover_end]
    for old, new_query in zip(corpus.queries, anon.queries, strict=True):
        assert new_query.gold.doc == hashed_name(old.gold.doc) and new_query.text == old.text
        assert (
            after[new_query.gold.doc][new_query.gold.start : new_query.gold.end]
            == (before[old.gold.doc][old.gold.start : old.gold.end])
        )
    assert blank("ab\ncd", 4) == "  \n d"
    with pytest.raises(InputError, match="sections"):
        anonymise(load_corpus(tiny_corpus, None).__class__(docs=corpus.docs, sections=None))


@given(text=st.text(alphabet="ab \n\t", max_size=60), end=st.integers(0, 70))
def test_blank_keeps_length_newlines_and_the_rest(text: str, end: int) -> None:
    out = blank(text, end)
    assert len(out) == len(text) and out[end:] == text[end:]
    assert [i for i, c in enumerate(out) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    assert set(out[:end]) <= {" ", "\n"}


@pytest.mark.parametrize(("name", "size"), [("recursive-160", 160), ("native-160t", 160), ("recursive-500", 500)])
def test_fixed_size_baselines_at_any_size(name: str, size: int) -> None:
    strategy = build_strategy(name, embedder=None)  # type: ignore[arg-type]
    text = "A sentence about the pump and its filter, said once more. " * 400
    pieces = strategy("doc", text)
    assert strategy.name == name and all(text[start:end] == piece for start, end, piece in pieces)
    counts = [len(get_encoding("cl100k_base").encode(p[2])) for p in pieces]
    assert max(counts) <= size + 1 and len(pieces) >= len(get_encoding("cl100k_base").encode(text)) // (size + 1)


@pytest.mark.parametrize("name", ["recursive-0", "native-160", "recursive-x"])
def test_a_malformed_fixed_size_is_an_unknown_strategy(name: str) -> None:
    with pytest.raises(ConfigurationError, match="recursive-N"):
        build_strategy(name, embedder=None)  # type: ignore[arg-type]
