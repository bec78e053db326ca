"""The other names a document gives itself (``chop_aliases``), counted by the catalog as names of its model."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from chop_integrations._errors import InputError
from chop_integrations._query import SignatureCatalog
from chop_integrations._query.catalog import ALIASES_KEY, MODEL_KEY
from chop_integrations._types import CNM, Chunk

MPL = {"chop_model": "MPL-2.0", "chop_aliases": "Mozilla Public License 2.0 | MPL 2.0 |  | mpl-2.0 "}


def test_the_aliases_key_sits_beside_the_model_key() -> None:
    assert (MODEL_KEY, ALIASES_KEY) == ("chop_model", "chop_aliases")


def test_add_records_each_alias_as_a_name_of_the_chunks_model() -> None:
    catalog = SignatureCatalog()
    catalog.add({"chop_model": "Galaxy S10", "chop_aliases": " SM-G973 | Samsung Galaxy S10 "})
    catalog.add({"chop_model": "Galaxy S10", "chop_aliases": "SM-G973"})  # a second chunk of the same document
    assert catalog.aliases == {"SM-G973": "Galaxy S10", "Samsung Galaxy S10": "Galaxy S10"}
    assert catalog.models == {"Galaxy S10": 2}


def test_an_alias_without_a_model_or_of_another_type_is_not_recorded() -> None:
    catalog = SignatureCatalog.from_metadata(
        [
            {"chop_aliases": "orphan"},
            {"chop_model": " ", "chop_aliases": "blank"},
            {"chop_model": "A1", "chop_aliases": 3},
        ]
    )
    assert catalog.aliases == {} and catalog.to_dict()["aliases"] == {}


def test_an_alias_two_models_claim_or_equal_to_a_model_is_left_out() -> None:
    catalog = SignatureCatalog.from_metadata(
        [
            MPL,
            {"chop_model": "Apache-2.0", "chop_aliases": "Apache License 2.0 | MPL 2.0"},  # MPL 2.0: two claims
            {"chop_model": "GPL-3.0", "chop_aliases": "apache-2.0 | GNU  GPL v3"},  # reads as a model value
            {"chop_model": "LGPL-3.0", "chop_aliases": "gnu gpl V3"},  # the same name as GPL's, but for case/spaces
        ]
    )
    # mpl-2.0 is MPL-2.0's own value but for case: no other name
    assert catalog.aliases == {"Apache License 2.0": "Apache-2.0", "Mozilla Public License 2.0": "MPL-2.0"}
    # every recorded name is kept in the view, so a later load judges them the same way
    assert catalog.to_dict()["aliases"]["Apache-2.0"] == ["Apache License 2.0", "MPL 2.0"]


def test_from_chunks_reads_the_chunks_aliases() -> None:
    chunk = Chunk(
        text="t", start=0, end=1, token_count=1, cnm=CNM(model="MPL-2.0"), metadata={"chop_aliases": MPL[ALIASES_KEY]}
    )
    catalog = SignatureCatalog.from_chunks([chunk, Chunk(text="u", start=0, end=1, token_count=1)])
    assert catalog.aliases == {"MPL 2.0": "MPL-2.0", "Mozilla Public License 2.0": "MPL-2.0"}


def test_aliases_round_trip_through_the_view_and_the_file(tmp_path: Path) -> None:
    catalog = SignatureCatalog.from_metadata([MPL, {"chop_model": "Apache-2.0", "chop_aliases": "MPL 2.0"}])
    view = catalog.to_dict()
    assert view["version"] == 1
    assert view["aliases"] == {
        "Apache-2.0": ["MPL 2.0"],
        "MPL-2.0": ["MPL 2.0", "Mozilla Public License 2.0", "mpl-2.0"],
    }
    assert SignatureCatalog.from_dict(view) == catalog
    assert SignatureCatalog.from_dict(json.loads(json.dumps(view))).aliases == catalog.aliases
    catalog.save(tmp_path / "signatures.json")
    loaded = SignatureCatalog.load(tmp_path / "signatures.json")
    assert loaded == catalog and loaded.aliases == {"Mozilla Public License 2.0": "MPL-2.0"}


def test_a_view_without_aliases_still_loads() -> None:
    catalog = SignatureCatalog.from_dict({"version": 1, "models": {"Galaxy S10": 2}, "categories": {}})
    assert catalog.models == {"Galaxy S10": 2} and catalog.aliases == {}


@pytest.mark.parametrize(
    "aliases",
    [["MPL 2.0"], {"MPL-2.0": "MPL 2.0"}, {"MPL-2.0": [2]}, {"GPL-3.0": ["GNU GPL"]}],
    ids=["a list", "a name not in a list", "not a name", "a model not counted"],
)
def test_a_view_with_malformed_aliases_is_an_input_error(aliases: object) -> None:
    with pytest.raises(InputError):
        SignatureCatalog.from_dict({"version": 1, "models": {"MPL-2.0": 1}, "categories": {}, "aliases": aliases})


def test_aliases_are_counted_safely_from_many_threads() -> None:
    catalog = SignatureCatalog()

    def ingest(n: int) -> None:
        for i in range(200):
            catalog.add({"chop_model": f"M{n}", "chop_aliases": f"name {n} | other {n}-{i % 3}"})

    threads = [threading.Thread(target=ingest, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert catalog.models == {f"M{n}": 200 for n in range(8)}
    assert len(catalog.aliases) == 8 * 4 and catalog.aliases["name 5"] == "M5"
