"""LiveReader: the catalog read back from a store is read again when the store may have changed, and only then."""

from __future__ import annotations

import logging

import pytest

from chop_integrations._query import QueryReader, SignatureCatalog
from chop_integrations._query.live import DEFAULT_REFRESH, LiveReader, warn_if_empty


class Store:
    """A stand-in store: its chunks' metadata, how often it was read back, and a clock."""

    def __init__(self, *models: str, sized: bool = True) -> None:
        self.metadatas = [{"chop_model": m} for m in models]
        self.reads = 0
        self.now = 0.0
        self.sized = sized
        self.fail = False

    def read(self) -> SignatureCatalog:
        self.reads += 1
        if self.fail:
            raise ConnectionError("store down")
        return SignatureCatalog.from_metadata(self.metadatas)

    def mark(self) -> int | None:
        return len(self.metadatas) if self.sized else None

    def clock(self) -> float:
        return self.now

    def live(self, every: float | None = DEFAULT_REFRESH) -> LiveReader:
        return LiveReader(self.read, mark=self.mark, every=every, where="the test store", clock=self.clock)


def test_a_store_whose_size_changed_is_read_again_once_before_the_next_query() -> None:
    store = Store("Galaxy S10")
    live = store.live()
    assert store.reads == 1 and live.reader().read("my Note 10 pen").model is None
    assert store.reads == 1  # unchanged size: not read again, however many queries
    store.metadatas.append({"chop_model": "Galaxy Note 10"})
    assert live.reader().read("my Note 10 pen").model == "Galaxy Note 10"
    assert live.reader() is live.current and store.reads == 2


def test_a_store_without_a_size_is_read_again_when_the_interval_has_passed() -> None:
    store = Store("Galaxy S10", sized=False)
    live = store.live(every=30)
    store.metadatas.append({"chop_model": "Galaxy Note 10"})
    store.now = 29.9
    assert live.reader().read("Note 10 pen").model is None and store.reads == 1
    store.now = 30.0
    assert live.reader().read("Note 10 pen").model == "Galaxy Note 10" and store.reads == 2
    store.now = 45.0
    live.reader()
    assert store.reads == 2  # the interval runs from the last reading


def test_every_none_reads_the_store_once() -> None:
    store = Store("Galaxy S10")
    live = store.live(every=None)
    store.metadatas.append({"chop_model": "Galaxy Note 10"})
    store.now = 1e9
    assert live.reader().read("Note 10 pen").model is None and store.reads == 1
    assert not live.refreshing


def test_a_mark_that_fails_leaves_it_to_the_clock() -> None:
    store = Store("Galaxy S10")

    def broken() -> int:
        raise RuntimeError("no count today")

    live = LiveReader(store.read, mark=broken, every=10, clock=store.clock)
    store.metadatas.append({"chop_model": "Galaxy Note 10"})
    assert live.reader().read("Note 10").model is None
    store.now = 10
    assert live.reader().read("Note 10").model == "Galaxy Note 10"


def test_a_failed_reading_keeps_the_known_models_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    store = Store("Galaxy S10")
    live = store.live()
    store.metadatas.append({"chop_model": "Galaxy Note 10"})
    store.fail = True
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert live.reader().read("my Galaxy S10").model == "Galaxy S10"
        assert live.reader().read("my Galaxy S10").model == "Galaxy S10"
    assert store.reads == 2  # tried once for this change, not on every query
    assert [r.getMessage() for r in caplog.records] == [
        "could not read the test store again (ConnectionError: store down); kept its known models"
    ]
    store.fail = False
    store.metadatas.append({"chop_model": "Galaxy A6"})
    assert live.reader().read("Note 10").model == "Galaxy Note 10"


def test_an_empty_store_warns_once_not_on_every_query(caplog: pytest.LogCaptureFixture) -> None:
    store = Store()
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        live = store.live()
        store.metadatas.append({"source": "notes.txt"})  # a change, still no model
        for _ in range(3):
            live.reader().read("my S10")
    assert store.reads == 2
    (record,) = caplog.records
    assert record.name == "chop_integrations" and record.levelno == logging.WARNING
    message = record.getMessage()
    assert "no chunk in the test store carries chop_model" in message
    assert "CHOPDocumentTransformer" in message and "CHOPExtractor" in message and "catalog=" in message
    store.metadatas.append({"chop_model": "Galaxy S10"})
    assert live.reader().read("my Galaxy S10").model == "Galaxy S10"


def test_warn_if_empty_says_nothing_of_a_catalog_with_models(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert not warn_if_empty(SignatureCatalog(["A6"]), "x")
        assert warn_if_empty(SignatureCatalog(), "the catalog given (catalog=)")
    assert len(caplog.records) == 1


def test_a_fixed_reader_is_never_read_again() -> None:
    reader = QueryReader(["Galaxy S10"])
    live = LiveReader.fixed(reader)
    assert live.reader() is reader and live.current is reader and not live.refreshing
    with pytest.raises(ValueError):
        LiveReader()
    with pytest.raises(ValueError):
        LiveReader(Store().read, reader=reader)


async def test_the_async_path_reads_again_too() -> None:
    store = Store("Galaxy S10")
    live = store.live()
    assert await live.areader() is live.current and store.reads == 1
    store.metadatas.append({"chop_model": "Galaxy Note 10"})
    assert (await live.areader()).read("Note 10").model == "Galaxy Note 10" and store.reads == 2
    assert await LiveReader.fixed(live.current).areader() is live.current
