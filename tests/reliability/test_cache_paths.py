"""A cache path that cannot hold a cache is a ConfigurationError naming it, raised before any call."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from chop_integrations import LumberChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.sqlite_cache import SQLiteCache
from tests.support.permissions import read_only_folder


def _bad_paths(tmp_path: Path) -> dict[str, Path]:
    parent_file = tmp_path / "a-file"
    parent_file.write_text("not a folder")
    fifo = tmp_path / "cache.fifo"
    os.mkfifo(fifo)
    return {
        "parent is a file": parent_file / "cache.sqlite",
        "grandparent is a file": parent_file / "deeper" / "cache.sqlite",
        "fifo": fifo,
        "read-only file system": Path("/proc/chop-no-such-folder/cache.sqlite"),
    }


@pytest.mark.parametrize("case", ["parent is a file", "grandparent is a file", "fifo", "read-only file system"])
def test_a_bad_cache_path_is_a_configuration_error_naming_it(tmp_path: Path, case: str) -> None:
    path = _bad_paths(tmp_path)[case]
    with pytest.raises(ConfigurationError, match="cannot hold a cache") as caught:
        SQLiteCache(path)
    assert str(path) in str(caught.value)
    assert not isinstance(caught.value, (sqlite3.Error, OSError))
    with pytest.raises(ConfigurationError, match="cannot hold a cache"):
        LumberChunker(lambda prompt: "TRUE", cache=str(path))  # through the engines' cache= as well


def test_a_read_only_folder_is_a_configuration_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only_folder(folder, monkeypatch):  # as a non-root user sees it, root (CI) included
        with pytest.raises(ConfigurationError, match="not writable") as caught:
            SQLiteCache(folder / "cache.sqlite")
        assert str(folder / "cache.sqlite") in str(caught.value)
        with pytest.raises(ConfigurationError, match="not writable"):
            LumberChunker(lambda prompt: "TRUE", cache=str(folder / "cache.sqlite"))
    assert list(folder.iterdir()) == []


def test_a_good_path_still_works_and_missing_folders_are_created(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "new" / "folder" / "cache.sqlite")
    cache.set("k", "v")
    assert cache.get("k") == "v"
