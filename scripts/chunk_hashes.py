"""Hash the offline engines' chunks on every set ``bench-speed`` knows: the check that a speed change moved nothing.

For each set (``general``, ``multilingual``, their held-out twins, ``manuals``) and each offline engine
(LumberChunker, CHOPChunker) it chunks every document with ``chunk_many`` (as ``bench-speed`` times them) and
hashes, chunk by chunk, the text, start, end, token count, prefix, signature (CNM) and continuity decision. One line
per set and engine: ``set engine chunks sha256``. Run it before and after a change and compare (``--out FILE`` keeps
the lines, ``--check FILE`` compares with lines kept earlier and exits 1 on any difference).

Run (the benchmark package installed, ``pip install -e ./bench``, or on the path as here):
``PYTHONPATH=$PWD:$PWD/bench python scripts/chunk_hashes.py [--sets general,multilingual,manuals] [--manuals DIR]
[--out FILE | --check FILE]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from chop_bench.speed import load_speed_set
from chop_integrations._engines import build_engine

SETS = ("general", "general-heldout", "multilingual", "multilingual-heldout", "manuals")
ENGINES = ("lumber", "chop")


def digest(set_name: str, method: str, manuals: Path | None = None) -> tuple[int, str]:
    """Number of chunks and the SHA-256 of every chunk's fields, in order, for one set and engine."""
    texts = load_speed_set(set_name, corpus=manuals)
    engine = build_engine(method, None)
    sha = hashlib.sha256()
    count = 0
    for chunks in engine.chunk_many(list(texts)):
        for c in chunks:
            record = {
                "text": c.text,
                "start": c.start,
                "end": c.end,
                "tokens": c.token_count,
                "prefix": c.prefix,
                "cnm": None if c.cnm is None else c.cnm.model_dump(),
                "continues": c.continues_previous,
            }
            sha.update(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8"))
            count += 1
        sha.update(b"\x00")  # a document boundary
    return count, sha.hexdigest()


def main(argv: list[str] | None = None) -> int:
    """Print (and write, or check) one line per set and engine; 1 when ``--check`` finds a difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--manuals", help="the manuals' folder (default: bench-speed's, ../shared/data/manuals)")
    parser.add_argument("--out", help="write the lines here too")
    parser.add_argument("--check", help="compare with lines written earlier; exit 1 on a difference")
    args = parser.parse_args(argv)
    manuals = Path(args.manuals) if args.manuals else None
    lines = []
    for set_name in args.sets.split(","):
        for method in ENGINES:
            count, hexdigest = digest(set_name.strip(), method, manuals)
            line = f"{set_name.strip()} {method} {count} {hexdigest}"
            print(line, flush=True)
            lines.append(line)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.check:
        expected = set(Path(args.check).read_text(encoding="utf-8").splitlines())
        wrong = [line for line in lines if line not in expected]
        print("identical" if not wrong else f"DIFFERENT: {wrong}")
        return 1 if wrong else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
