"""Real documents unpacked from Debian packages by ``scripts/fetch_docs.py`` (never copied into the repository).

A test that needs one calls :func:`doc_text`: it skips when the document is missing on a developer's machine and
fails in CI (``CI`` set), where ``.ci/run`` fetches them first, so the check never goes quietly unrun there.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

#: Where ``scripts/fetch_docs.py`` unpacks the packages (the same rule as the script's).
DOCS_DIR = Path(os.environ.get("CHOP_DOCS_DIR") or Path(__file__).resolve().parents[2] / ".cache" / "docs")


def doc_path(package: str, relpath: str) -> Path:
    """The unpacked file ``relpath`` of ``package`` (it may not exist)."""
    return DOCS_DIR / package / relpath


def doc_text(package: str, relpath: str) -> str:
    """The text of one unpacked file (gunzipped when it ends in ``.gz``); skip, or fail in CI, when missing."""
    path = doc_path(package, relpath)
    if not path.is_file():
        message = f"{path} is missing: run `python scripts/fetch_docs.py`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
