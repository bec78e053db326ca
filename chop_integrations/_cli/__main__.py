"""``python -m chop_integrations._cli``: the ``chop-integrations`` command."""

from __future__ import annotations

import sys

from . import main

sys.exit(main())
