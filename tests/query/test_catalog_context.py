"""Where the known values come from (ingestion's chunks, metadata read back, a saved file) and section runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations import CHOPChunker
from chop_integrations._errors import InputError
from chop_integrations._query import QueryReader, SignatureCatalog, section_run
from chop_integrations._types import CNM, Chunk

MANUAL = "Nimbus {model}\nUser Manual\n\nCleaning the filter\nOpen the front panel and take the filter out.\n"


def _chunk(model: str | None, category: str | None = None) -> Chunk:
    return Chunk(text="t", start=0, end=1, token_count=1, cnm=CNM(model=model, category=category))


def test_the_catalog_of_what_chop_emitted_reads_the_question() -> None:
    chunker = CHOPChunker()
    results = chunker.chunk_many(
        [MANUAL.format(model="AC-12"), MANUAL.format(model="AC-18")],
        metadatas=[{"source": "Nimbus_AC-12.txt"}, {"source": "Nimbus_AC-18.txt"}],
    )
    catalog = SignatureCatalog.from_chunks(c for chunks in results for c in chunks)
    emitted = {c.cnm.model for chunks in results for c in chunks if c.cnm is not None}
    assert set(catalog.models) == emitted and len(emitted) == 2
    reader = QueryReader.from_catalog(catalog)
    (ac18,) = [m for m in emitted if "18" in m]
    assert reader.read("How do I clean the filter of my ac-18?").model == ac18


def test_from_chunks_counts_models_and_categories_and_skips_missing_ones() -> None:
    catalog = SignatureCatalog.from_chunks(
        [_chunk("Galaxy S10", "phone"), _chunk("Galaxy S10"), _chunk(None, "phone"), _chunk("  ")]
    )
    assert catalog.models == {"Galaxy S10": 2} and catalog.categories == {"phone": 2}


def test_from_metadata_reads_back_what_a_store_returns() -> None:
    metadatas = [{"chop_model": "225B", "chop_category": "camera"}, {"chop_model": "225B"}, None, {"source": "x"}]
    catalog = SignatureCatalog.from_metadata(metadatas)
    assert catalog.models == {"225B": 2} and catalog.categories == {"camera": 1}
    assert QueryReader.from_catalog(catalog).read("lens cap of the 225b").model == "225B"


def test_a_saved_catalog_loads_back_equal(tmp_path: Path) -> None:
    catalog = SignatureCatalog({"Galaxy S10": 3, "Galaxy A6": 1}, ["phone"])
    path = tmp_path / "store" / "signatures.json"
    catalog.save(path)
    assert SignatureCatalog.load(path) == catalog
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1
    assert [p.name for p in path.parent.iterdir()] == ["signatures.json"]  # no temporary file left behind


@pytest.mark.parametrize(
    "content", ["not json", json.dumps({"version": 9}), json.dumps({"version": 1, "models": {"a": -1}})]
)
def test_loading_something_else_is_an_input_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError):
        SignatureCatalog.load(path)
    with pytest.raises(InputError):
        SignatureCatalog.load(tmp_path / "missing.json")


def test_section_run_widens_within_the_run_and_the_budget() -> None:
    continues = [None, True, True, False, True]
    tokens = [10, 10, 10, 10, 10]
    assert section_run(continues, tokens, 1, 30) == range(0, 3)
    assert section_run(continues, tokens, 1, 20) == range(1, 3)  # the following chunk first
    assert section_run(continues, tokens, 3, 100) == range(3, 5)  # chunk 3 starts a new run
    assert section_run(continues, tokens, 0, 5) == range(0, 1)  # the hit alone, even over the budget


@given(st.lists(st.tuples(st.sampled_from([None, True, False]), st.integers(1, 50)), min_size=1), st.data())
def test_section_run_holds_the_hit_stays_in_its_run_and_in_budget(
    chunks: list[tuple[bool | None, int]], data: st.DataObject
) -> None:
    continues, tokens = [c for c, _ in chunks], [t for _, t in chunks]
    hit = data.draw(st.integers(0, len(chunks) - 1))
    budget = data.draw(st.integers(0, 300))
    run = section_run(continues, tokens, hit, budget)
    assert hit in run
    assert all(continues[i] is True for i in range(run.start + 1, run.stop))
    assert len(run) == 1 or sum(tokens[i] for i in run) <= budget


def test_section_run_rejects_bad_arguments() -> None:
    for args in (([True], [1, 2], 0, 5), ([True], [1], 1, 5), ([True], [1], 0, -1)):
        with pytest.raises(InputError):
            section_run(*args)
