"""The Ray adapter's rows without a cluster: batches chunked apart, prefix fitted afterwards, equal one process."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations import CHOPChunker
from chop_integrations._chop.base_chunks import METADATA_KEYS
from chop_integrations._chop.prefix import PrefixChoice
from chop_integrations._chop.records import POSITION_KEYS, RECORD_KEYS
from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations.ray import (
    CHUNK_COLUMNS,
    INTERNAL_COLUMNS,
    ChunkBatches,
    PrefixStats,
    fit_choice,
    identity_names,
    one_process_rows,
    public,
    render_prefixes,
)

from .conftest import README_SECTIONS, by_chunk, readme, real_table, synthetic_table

TABLE = synthetic_table(8)
REFERENCE = by_chunk(one_process_rows(TABLE, internal=True))


def split_run(table: pa.Table, cuts: list[int], order: list[int]) -> pa.Table:
    """What actors do: each part chunked by its own engine (prefix deferred), then one fitted choice rendered."""
    bounds = [0, *sorted(set(cuts)), table.num_rows]
    parts = [table.slice(a, b - a) for a, b in itertools.pairwise(bounds) if b > a]
    actor = ChunkBatches(defer_prefix=True, corpus_names=identity_names(table, text_column="text"))
    rows = [actor(parts[i % len(parts)]) for i in sorted(range(len(parts)), key=lambda i: order[i % len(order)])]
    stats = PrefixStats()
    for part in rows:
        stats = stats.merge(PrefixStats.of(part))
    return by_chunk(render_prefixes(pa.concat_tables(rows), fit_choice(stats)))


@given(
    cuts=st.lists(st.integers(min_value=1, max_value=7), max_size=7),
    order=st.lists(st.integers(min_value=0, max_value=100), min_size=1, max_size=8),
)
def test_any_split_into_batches_gives_the_one_process_rows(cuts: list[int], order: list[int]) -> None:
    assert split_run(TABLE, cuts, order).equals(REFERENCE)


def test_a_fresh_adaptive_engine_per_batch_gives_the_same_rows() -> None:
    # A document's name is its own: one document per actor prints (and sizes chunks) as one process does.
    naive = by_chunk(pa.concat_tables([one_process_rows(TABLE.slice(i, 1), internal=True) for i in range(8)]))
    assert naive.equals(REFERENCE)
    assert all(p.startswith("Nimbus AC-") for p in naive["chop_prefix"].to_pylist())
    assert split_run(TABLE, list(range(1, 8)), [0]).equals(REFERENCE)


def test_without_the_corpus_names_an_actor_sizes_chunks_the_same() -> None:
    alone = ChunkBatches(defer_prefix=True)(TABLE.slice(0, 1))
    told = ChunkBatches(defer_prefix=True, corpus_names=identity_names(TABLE, text_column="text"))(TABLE.slice(0, 1))
    reference = REFERENCE.filter(pa.compute.equal(REFERENCE["chop_document"], "doc-0")).select(["start", "end"])
    assert told.select(["start", "end"]).equals(reference) and alone.select(["start", "end"]).equals(reference)
    assert identity_names(TABLE, text_column="text") == {f"nimbus ac-{n}" for n in range(8)}


def test_fitted_choice_is_the_engines_own_choice() -> None:
    table = real_table(3)
    chop = CHOPChunker()
    chop.chunk_many(
        table.column("text").to_pylist(), metadatas=[{"source": s} for s in table.column("source").to_pylist()]
    )
    rows = one_process_rows(table, internal=True)
    assert fit_choice(PrefixStats.of(rows)).describe() == chop.last_usage.prefix_choice
    one = one_process_rows(table.slice(0, 1), internal=True)
    assert fit_choice(PrefixStats.of(one)).describe() == chop.last_usage.prefix_choice  # one name: printed all the same


def test_rows_are_lossless_with_exact_offsets_and_pass_metadata_through() -> None:
    assert REFERENCE.column_names == [*CHUNK_COLUMNS, *INTERNAL_COLUMNS, "id", "source", "shelf"]
    assert public(REFERENCE).column_names == [*CHUNK_COLUMNS, "id", "source", "shelf"]
    assert one_process_rows(TABLE).column_names == [*CHUNK_COLUMNS, "id", "source", "shelf"]
    columns = (TABLE["id"].to_pylist(), TABLE["text"].to_pylist(), TABLE["shelf"].to_pylist())
    for doc_id, text, shelf in zip(*columns, strict=True):
        mine = REFERENCE.filter(pa.compute.equal(REFERENCE["chop_document"], doc_id)).to_pylist()
        assert "".join(row["chop_text"] for row in mine) == text
        assert all(text[row["start"] : row["end"]] == row["chop_text"] for row in mine)
        assert all(row["embed_text"] == row["chop_prefix"] + row["chop_text"] for row in mine)
        assert {row["shelf"] for row in mine} == {shelf}
        assert [row["chop_index"] for row in mine] == list(range(len(mine)))
    assert any("Nimbus AC-3" in p for p in REFERENCE["chop_prefix"].to_pylist())


def test_lumber_rows_carry_no_signature() -> None:
    rows = one_process_rows(TABLE, engine="lumber", max_tokens=40, internal=True)
    assert rows.num_rows > TABLE.num_rows
    assert rows["embed_text"].equals(rows["chop_text"])
    for key in (
        "chop_prefix",
        "chop_category",
        "chop_nouns",
        "chop_model",
        "chop_continues",
        "_chop_nouns",
        "_chop_repeated",
    ):
        assert rows[key].null_count == rows.num_rows, key
    assert ChunkBatches("lumber", max_tokens=40)(TABLE).equals(public(rows))


def test_fixed_prefix_and_known_choice_need_no_fitting() -> None:
    assert by_chunk(ChunkBatches(prefix="fixed")(TABLE)).equals(by_chunk(one_process_rows(TABLE, prefix="fixed")))
    assert ChunkBatches(prefix="fixed")(TABLE).column_names == [*CHUNK_COLUMNS, "id", "source", "shelf"]
    choice = fit_choice(PrefixStats.of(REFERENCE))
    names = identity_names(TABLE, text_column="text")
    assert by_chunk(ChunkBatches(prefix_choice=choice, corpus_names=names)(TABLE.slice(2, 1))).equals(
        public(REFERENCE.filter(pa.compute.equal(REFERENCE["chop_document"], "doc-2")))
    )


def test_documents_given_as_paths_are_read_by_the_actor(tmp_path) -> None:
    paths = []
    for n in range(2):
        path = tmp_path / f"nimbus_ac-{n}.txt"
        path.write_text(TABLE["text"][n].as_py(), encoding="utf-8")
        paths.append(str(path))
    rows = ChunkBatches(prefix="fixed")(pa.table({"path": paths, "source": [f"nimbus_ac-{n}.txt" for n in range(2)]}))
    assert (
        "".join(rows.filter(pa.compute.equal(rows["chop_document"], "nimbus_ac-1.txt"))["chop_text"].to_pylist())
        == TABLE["text"][1].as_py()
    )


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({}, "prefix='adaptive'"),
        ({"defer_prefix": True, "new_document_resets": False}, "new_document_resets"),
        ({"engine": "nope"}, "engine must be"),
        ({"llm": lambda p: "x", "llm_factory": lambda: None, "prefix": "fixed"}, "not both"),
    ],
)
def test_options_that_cannot_give_one_process_rows_are_refused(options: dict, error: str) -> None:
    with pytest.raises(ConfigurationError, match=error):
        ChunkBatches(**options)


def test_rows_carry_the_adapters_metadata_keys_and_types() -> None:
    """The ``chop_*`` columns are what the LangChain and LlamaIndex adapters put in a chunk's metadata."""
    chunks = [
        c
        for chunks in CHOPChunker(prefix="fixed").chunk_many(
            TABLE["text"].to_pylist(), metadatas=[{"source": s} for s in TABLE["source"].to_pylist()]
        )
        for c in chunks
    ]
    rows = ChunkBatches(prefix="fixed")(TABLE).sort_by([("chop_document", "ascending"), ("chop_index", "ascending")])
    assert list(CHUNK_COLUMNS) == list(RECORD_KEYS)  # the record every output shares (the CLI's lines too)
    keys = [k for k in CHUNK_COLUMNS if k.startswith("chop_") and k not in POSITION_KEYS]
    assert keys == list(METADATA_KEYS)
    assert rows.select(keys).to_pylist() == [{k: c.metadata[k] for k in keys} for c in chunks]
    assert isinstance(rows["chop_nouns"][0].as_py(), str) and isinstance(rows["chop_continues"][0].as_py(), bool)


def test_documents_need_an_id_and_columns_must_not_clash() -> None:
    actor = ChunkBatches(prefix="fixed")
    with pytest.raises(InputError, match="need an id"):
        actor(pa.table({"text": ["a b c"]}))
    with pytest.raises(ConfigurationError, match="clash"):
        actor(pa.table({"text": ["a b c"], "source": ["a.txt"], "start": [3]}))


def test_frozen_choice_renders_what_it_was_given() -> None:
    only_model = render_prefixes(REFERENCE, PrefixChoice("adaptive", ("model",)))
    assert any("Nimbus" in p for p in only_model["chop_prefix"].to_pylist())
    assert not any(" | " in p for p in only_model["chop_prefix"].to_pylist())  # no section: the choice left nouns out
    only_nouns = render_prefixes(REFERENCE, PrefixChoice("adaptive", ("nouns",)))
    assert only_nouns["chop_prefix"].to_pylist() == ["" for _ in range(REFERENCE.num_rows)]  # a section needs its name


def test_pandas_and_numpy_batches_give_the_same_rows() -> None:
    actor = ChunkBatches(prefix="fixed")
    arrow = actor(TABLE)
    assert actor(TABLE.to_pandas()).to_pylist() == arrow.to_pylist()
    numpy = {name: TABLE[name].to_numpy(zero_copy_only=False) for name in TABLE.column_names}
    assert actor(numpy).to_pylist() == arrow.to_pylist()


def _examples(rows: pa.Table) -> list[str]:
    """The prefixes of the rows whose chunk opens an "Examples" section, in (document, chunk) order."""
    return [r["chop_prefix"] for r in by_chunk(rows).to_pylist() if r["chop_text"].startswith("### Examples")]


def test_a_repeated_sub_heading_keeps_its_parent_in_any_blocks_and_any_order() -> None:
    table = pa.table({"id": ["a", "b"], "text": [readme("Alpha"), readme("Beta")], "source": ["alpha.md", "beta.md"]})
    reference = by_chunk(one_process_rows(table, max_tokens=60, internal=True))
    assert _examples(reference) == [f"{n}: [{p}Examples | {n}] " for n in ("Alpha", "Beta") for p in ("", "API > ")]
    choice = fit_choice(PrefixStats.of(reference))
    # Each document's rows split in two blocks, the later block rendered first; then every row in reverse order.
    later = pa.compute.greater_equal(reference["start"], table["text"][0].as_py().index("## API"))
    blocks = [reference.filter(later), reference.filter(pa.compute.invert(later))]
    assert by_chunk(pa.concat_tables([render_prefixes(b, choice) for b in blocks])).equals(reference)
    reverse = reference.take(pa.array(range(reference.num_rows - 1, -1, -1)))
    assert by_chunk(render_prefixes(reverse, choice)).equals(reference)
    # Rendered by an actor that saw one document: its own choice already prints what the corpus run prints.
    actor = ChunkBatches(defer_prefix=True, corpus_names=identity_names(table, text_column="text"), max_tokens=60)
    alone = actor(table.slice(1, 1))
    expected = reference.filter(pa.compute.equal(reference["chop_document"], "b"))
    assert by_chunk(alone).select(["chop_prefix"]).equals(expected.select(["chop_prefix"]))
    assert by_chunk(render_prefixes(alone, choice)).equals(expected)


def test_two_documents_with_one_name_in_one_block_each_keep_their_own_labels() -> None:
    # The second "Tool" has "Examples" under "API" only: there the title is its first, and prints alone.
    texts = [readme("Tool"), readme("Tool", README_SECTIONS[2:]), readme("Other")]
    table = pa.table({"id": ["a", "b", "c"], "text": texts, "title": ["Tool", "Tool", "Other"]})
    reference = by_chunk(one_process_rows(table, max_tokens=60, internal=True))
    labels = _examples(reference.filter(pa.compute.not_equal(reference["chop_document"], "c")))
    assert labels == ["Tool: [Examples | Tool] ", "Tool: [API > Examples | Tool] ", "Tool: [Examples | Tool] "]
    assert by_chunk(render_prefixes(reference, fit_choice(PrefixStats.of(reference)))).equals(reference)


def test_rows_without_the_internal_columns_cannot_be_refitted() -> None:
    with pytest.raises(InputError, match="defer_prefix=True"):
        PrefixStats.of(public(REFERENCE))
    with pytest.raises(InputError, match="_chop_nouns, _chop_repeated"):
        render_prefixes(public(REFERENCE), fit_choice(PrefixStats.of(REFERENCE)))
