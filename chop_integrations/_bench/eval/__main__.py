"""``python -m chop_integrations._bench.eval``: the retrieval benchmark without the top-level CLI."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
