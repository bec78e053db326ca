"""Where the evaluation data lies: ``$CHOP_TEST_DATA``, else ``../shared/data`` beside the checkout (as CI lays it).

Every test that reads the data asks here, so one environment variable moves it:
``CHOP_TEST_DATA=/path/to/data pytest tests``.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The checkout's root.
ROOT = Path(__file__).resolve().parents[2]
#: The evaluation data folder; tests that need it skip when ``MANUALS`` is not a folder.
SHARED_DATA = Path(os.environ.get("CHOP_TEST_DATA") or ROOT.parent / "shared" / "data").expanduser()
#: The product manuals inside it.
MANUALS = SHARED_DATA / "manuals"
#: The questions of the development split.
QUERIES_DEV = SHARED_DATA / "queries-dev.jsonl"
