"""``bench-scale --scenario stream``: a generated document streamed from disk, peak resident memory.

The parent writes a deterministic document of ``--stream-mib`` MiB to a temporary file in
blocks (headings, paragraphs, lists, tables, code; never held in memory) and keeps its
length and CRC-32. A fresh child process then reads the file in blocks, feeds them to
:meth:`~chop_integrations.LumberChunker.chunk_stream` (offline decider) and reports the
chunks, the CRC-32 and length of their concatenated texts (lossless when both equal the
file's, and each chunk starts where the last ended) and its own peak resident memory
(``VmHWM``, see :func:`peak_rss_kib`): measured in the child, so the parent's memory does not count.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["add_arguments", "generate", "run"]

#: Characters per block read from the file.
BLOCK_CHARS = 1 << 20
_WORDS = (
    "the device battery screen camera settings network apps mode press select open tap hold "
    "display sound storage account backup update security privacy location notification gesture "
    "café naïve über Wi-Fi Bluetooth 電池 設定 画面 résumé"
).split()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The scenario's options."""
    group = parser.add_argument_group("stream scenario")
    group.add_argument("--stream-mib", type=float, default=500.0, help="size of the generated document (MiB)")
    group.add_argument("--stream-dir", default=None, help="folder for the temporary document (default: system temp)")


def _sentences(rng: random.Random) -> list[str]:
    pool = []
    for _ in range(4000):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 28))]
        pool.append(" ".join(words).capitalize() + rng.choice([".", ".", ".", "!", "?"]))
    return pool


def _blocks(seed: int) -> Iterator[str]:
    """An endless, deterministic document: numbered sections of paragraphs, lists, tables and code."""
    rng = random.Random(seed)
    pool = _sentences(rng)
    chapter = 0
    while True:
        chapter += 1
        yield f"# Chapter {chapter}: {rng.choice(_WORDS).title()} {rng.choice(_WORDS)}\n\n"
        for section in range(1, rng.randint(3, 8)):
            yield f"## {chapter}.{section} {' '.join(rng.choice(_WORDS) for _ in range(3)).title()}\n\n"
            for _ in range(rng.randint(1, 6)):
                kind = rng.random()
                if kind < 0.7:
                    yield " ".join(rng.choice(pool) for _ in range(rng.randint(1, 9))) + "\n\n"
                elif kind < 0.85:
                    yield "".join(f"- {rng.choice(pool)}\n" for _ in range(rng.randint(2, 6))) + "\n"
                elif kind < 0.93:
                    rows = "".join(f"| {rng.choice(_WORDS)} | {rng.randint(0, 999)} |\n" for _ in range(4))
                    yield "| name | value |\n|---|---|\n" + rows + "\n"
                else:
                    yield f"```\nset {rng.choice(_WORDS)} = {rng.randint(0, 99)}\n\nrun\n```\n\n"


def generate(path: Path, mib: float, *, seed: int = 15) -> tuple[int, int]:
    """Write at least ``mib`` MiB (UTF-8) to ``path`` in blocks; return its length in characters and CRC-32."""
    target, size, chars, crc = int(mib * (1 << 20)), 0, 0, 0
    with path.open("w", encoding="utf-8", newline="") as out:
        buffer: list[str] = []
        for block in _blocks(seed):
            buffer.append(block)
            if len(buffer) >= 256:
                text = "".join(buffer)
                data = text.encode("utf-8")
                out.write(text)
                size, chars, crc = size + len(data), chars + len(text), zlib.crc32(data, crc)
                buffer = []
                if size >= target:
                    break
    return chars, crc


def _read_blocks(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8", newline="") as source:
        while block := source.read(BLOCK_CHARS):
            yield block


def peak_rss_kib() -> int:
    """This process's peak resident memory in KiB: ``VmHWM`` where Linux has it, else ``ru_maxrss``.

    ``ru_maxrss`` is not enough on its own: Linux carries it over from the parent through ``fork`` and
    ``execve``, so a child of a large process (``bench-scale`` after the Ray scenario holds gigabytes) starts
    at the parent's peak. ``VmHWM`` belongs to the process's own address space, new at ``execve``.
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux


def stream_file(path: Path, method: str) -> dict[str, Any]:
    """Stream ``path`` through ``method``'s ``chunk_stream``; chunks, CRC-32, length, peak memory, seconds."""
    from chop_integrations._lumber.chunker import LumberChunker

    if method != "lumber":
        raise ValueError(f"unknown method {method!r}")
    chunker = LumberChunker()
    baseline = peak_rss_kib()
    started = time.perf_counter()
    chunks, chars, crc, contiguous = 0, 0, 0, True
    for chunk in chunker.chunk_stream(_read_blocks(path), metadata={"source": path.name}):
        contiguous = contiguous and chunk.start == chars and chunk.end == chars + len(chunk.text)
        chunks, chars = chunks + 1, chars + len(chunk.text)
        crc = zlib.crc32(chunk.text.encode("utf-8"), crc)
    seconds = time.perf_counter() - started
    peak = peak_rss_kib()
    return {
        "chunks": chunks,
        "chars": chars,
        "crc": crc,
        "contiguous": contiguous,
        "seconds": round(seconds, 1),
        "peak_mib": round(peak / 1024, 1),
        "baseline_mib": round(baseline / 1024, 1),
    }


def _child_env() -> dict[str, str]:
    """This environment, with this package's folder first on the child's import path."""
    root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Generate the document, stream it in a fresh process, and report one row per method."""
    mib = getattr(args, "stream_mib", 500.0)
    with tempfile.TemporaryDirectory(dir=getattr(args, "stream_dir", None), prefix="chop-stream-") as folder:
        path = Path(folder) / "stream.md"
        started = time.perf_counter()
        chars, crc = generate(path, mib)
        generated = time.perf_counter() - started
        input_mib = path.stat().st_size / (1 << 20)
        rows = []
        for method in ("lumber",):
            child = subprocess.run(
                [sys.executable, "-m", __name__, str(path), method],
                check=True,
                capture_output=True,
                text=True,
                env=_child_env(),
            )
            result = json.loads(child.stdout.strip().splitlines()[-1])
            rows.append(
                {
                    "scenario": "stream",
                    "method": method,
                    "input_mib": round(input_mib, 1),
                    "peak_mib": result["peak_mib"],
                    "peak_measured": "peak RSS (VmHWM) of a fresh child process that only streams the file",
                    "baseline_mib": result["baseline_mib"],
                    "seconds": result["seconds"],
                    "generate_s": round(generated, 1),
                    "chunks": result["chunks"],
                    "lossless": result["chars"] == chars and result["crc"] == crc and result["contiguous"],
                }
            )
    return rows


if __name__ == "__main__":
    print(json.dumps(stream_file(Path(sys.argv[1]), sys.argv[2])))
