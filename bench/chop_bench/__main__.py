"""``python -m chop_bench``: the ``chop-bench`` command."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
