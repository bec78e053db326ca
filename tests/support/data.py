"""Where the evaluation data lies: ``../shared/data`` beside the checkout (CI lays it there too)."""

from __future__ import annotations

from pathlib import Path

#: The evaluation data folder; tests that need it skip when ``MANUALS`` is not a folder.
SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
#: The product manuals inside it.
MANUALS = SHARED_DATA / "manuals"
