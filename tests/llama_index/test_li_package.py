"""The sub-package's public face and its error without the extra."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_public_names_are_pinned() -> None:
    import chop_integrations.llama_index as li

    assert li.__all__ == [
        "CHOPBoostPostprocessor",
        "CHOPContextPostprocessor",
        "CHOPExtractor",
        "CHOPRetriever",
        "LlamaIndexLLM",
        "LumberChunkerNodeParser",
        "catalog_from_index",
        "load_jsonl",
    ]


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("chop_integrations.llama_index")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "llama_index.core", None)  # makes `import llama_index.core` fail
    with pytest.raises(ImportError, match=r"pip install 'chop-integrations\[llama-index\]'"):
        importlib.import_module("chop_integrations.llama_index")
