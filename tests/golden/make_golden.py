"""Write the golden-output fixtures from the code as it is now.

Run it only from code whose behaviour is the reference (before a refactoring), then commit the fixtures alone::

    python tests/golden/make_golden.py            # demo samples and, where present, the 30 manuals
    python tests/golden/make_golden.py --demo-only
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1]), str(HERE.parent)]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import golden_run  # noqa: E402

from tests.support.data import MANUALS  # noqa: E402

FIXTURES = HERE / "fixtures"


def write(name: str, data: object) -> None:
    """Write one fixture as indented, key-sorted JSON."""
    FIXTURES.mkdir(exist_ok=True)
    path = FIXTURES / name
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path} ({path.stat().st_size} bytes)")


def main() -> None:
    """Regenerate the demo fixtures and, unless told otherwise and where the data exist, the manuals'."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--demo-only", action="store_true")
    args = parser.parse_args()
    demo = golden_run.load(golden_run.SAMPLES)
    write("demo.json", golden_run.record(demo, golden_run.FAST))
    write("demo_samples.json", golden_run.samples(demo))
    if args.demo_only:
        return
    if not MANUALS.is_dir():
        print(f"{MANUALS} is not a folder: manuals fixture not written", file=sys.stderr)
        return
    write("manuals.json", golden_run.record(golden_run.load(MANUALS), golden_run.MANUALS))


if __name__ == "__main__":
    main()
