"""Shared helpers for the command-line tests: small sample files in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

MANUAL_A = """Nimbus K20 Kettle
User Manual

Safety
Keep the kettle away from children. Never immerse the base in water.

Descaling
Descale the Nimbus K20 every month with citric acid. Rinse twice.

Warranty
The warranty lasts two years from the date of purchase.
"""

MANUAL_B = """Nimbus K30 Kettle
User Manual

Safety
Keep the kettle away from children. Never immerse the base in water.

Descaling
Descale every two months with citric acid. Rinse three times.

Wi-Fi
Pair the kettle with the Nimbus app: hold the power button for five seconds.
"""


@pytest.fixture
def manuals(tmp_path: Path) -> list[Path]:
    """Two small UTF-8 manuals."""
    a = tmp_path / "nimbus_k20.txt"
    b = tmp_path / "nimbus_k30.txt"
    a.write_text(MANUAL_A, encoding="utf-8")
    b.write_text(MANUAL_B, encoding="utf-8")
    return [a, b]
