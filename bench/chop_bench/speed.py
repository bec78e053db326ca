"""``chop-integrations bench-speed``: offline chunking speed against the splitters people use, and growth in size.

Two tables from one process:

* **splitters**: on each set (by default every one of :data:`DEFAULT_SETS` found on this machine:
  ``general``, READMEs, changelogs and licences read from the installed packages, which a fresh clone
  always has; ``multilingual``, German and Chinese Debian manuals, after ``scripts/fetch_docs.py``;
  ``manuals``, the 30 product manuals of ``../shared/data``), every splitter chunks the same texts with the
  same token counter (tiktoken ``cl100k_base``) and 500-token settings where it has one:
  LangChain ``RecursiveCharacterTextSplitter.from_tiktoken_encoder``, LlamaIndex
  ``SentenceSplitter``, chonkie ``RecursiveChunker``, semchunk (where installed; a note
  where not), and LumberChunker and CHOPChunker offline (``chunk_many``). Each is timed
  ``--repeat`` times, the splitters in turns (a neighbour's load on a shared machine, which
  inflates CPU time too, falls on all of them alike); the best CPU time counts. MB/s is
  megabytes of UTF-8 text per CPU second.
  One table: a row per splitter, MB/s and the ratio to LangChain's on each set (a set not found gets a
  line saying where its documents come from).
* **sizes**: one document made by repeating one set (``--sizes-set``, the first timed), at each of
  ``--sizes`` megabytes, through ``chunk()`` and through the ``chunk`` command (a child process; its CPU time),
  for both engines: CPU seconds per megabyte, and that over the smallest size's (1.0 is
  linear; the command's rows include the start of a Python process, about 0.3 s, which
  weighs most on the smallest size). A size under ``--sample-mb`` (16) is chunked again
  until that many megabytes went through, and its row is the mean: one run of 1 MB takes
  a fraction of a second, which a neighbour on a shared machine moves by a third.

Run ``chop-integrations bench-speed`` (the sizes 1, 4, 16 and 64 MB take a while; ``--sizes
1,4`` for a quick look; ``--set general,multilingual,manuals --manuals-dir DIR`` to name the sets) and
``--json FILE`` to keep the figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from chop_integrations._errors import ConfigurationError

from .command import bounded_number, bounded_numbers, output_file, read_corpus, write_output

__all__ = ["DEFAULT_SIZES", "add_arguments", "measure_sizes", "measure_splitters", "splitters"]

#: Megabytes of the one-document runs (the growth check).
DEFAULT_SIZES = (1.0, 4.0, 16.0, 64.0)
DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "manuals"
#: The sets ``bench-speed`` times when given neither ``--set`` nor ``--corpus`` (those found on this machine).
DEFAULT_SETS = ("general", "multilingual", "manuals")
#: Every set ``--set`` takes.
SETS = ("general", "general-heldout", "multilingual", "multilingual-heldout", "manuals")
#: Where each kind of set comes from, for the note on a set that is not here.
_WHERE = {
    "general": "read from the installed packages' metadata and licences",
    "multilingual": "Debian manuals unpacked by `python scripts/fetch_docs.py` into .cache/docs or --docs-dir",
    "manuals": f"the 30 manuals of ../shared/data/manuals ({DEFAULT_CORPUS}); --manuals-dir names another folder",
}
CHUNK_TOKENS = 500
#: The largest ``--sizes`` and ``--sample-mb`` in megabytes, and the most ``--repeat`` runs.
MAX_SIZE_MB, MAX_REPEAT = 1024.0, 1000

Splitter = Callable[[Sequence[str]], int]


def splitters() -> tuple[dict[str, Splitter], dict[str, str]]:
    """The splitters to time (name -> function from texts to a chunk count) and notes on those left out."""
    from chop_integrations._text.tokens import share_tiktoken_cache

    share_tiktoken_cache()
    found: dict[str, Splitter] = {}
    notes: dict[str, str] = {}
    for name, make in _MAKERS.items():
        try:
            found[name] = make()
        except ImportError as exc:
            notes[name] = f"not installed ({exc.name or exc})"
    return found, notes


def _langchain() -> Splitter:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", chunk_size=500)
    return lambda texts: sum(len(splitter.split_text(t)) for t in texts)


def _llama_index() -> Splitter:
    from llama_index.core.node_parser import SentenceSplitter

    from chop_integrations._text.tokens import get_encoding

    encoding = get_encoding("cl100k_base")
    splitter = SentenceSplitter(chunk_size=CHUNK_TOKENS, chunk_overlap=0, tokenizer=encoding.encode)
    return lambda texts: sum(len(splitter.split_text(t)) for t in texts)


def _chonkie() -> Splitter:
    from chonkie import RecursiveChunker

    from chop_integrations._text.tokens import get_encoding

    chunker = RecursiveChunker(tokenizer=get_encoding("cl100k_base"), chunk_size=CHUNK_TOKENS)
    return lambda texts: sum(len(chunker.chunk(t)) for t in texts)


def _semchunk() -> Splitter:
    import semchunk

    from chop_integrations._text.tokens import get_encoding

    chunker = semchunk.chunkerify(get_encoding("cl100k_base"), CHUNK_TOKENS)
    return lambda texts: sum(len(chunker(t)) for t in texts)


def _ours(method: str) -> Callable[[], Splitter]:
    def make() -> Splitter:
        from chop_integrations._engines import build_engine

        def run(texts: Sequence[str]) -> int:
            engine = build_engine(method, None)  # a fresh engine per run: CHOP's corpus state starts empty
            return sum(len(c) for c in engine.chunk_many(list(texts)))

        return run

    return make


_MAKERS: dict[str, Callable[[], Splitter]] = {
    "LangChain RecursiveCharacterTextSplitter": _langchain,
    "LlamaIndex SentenceSplitter": _llama_index,
    "chonkie RecursiveChunker": _chonkie,
    "semchunk": _semchunk,
    "LumberChunker offline": _ours("lumber"),
    "CHOPChunker offline": _ours("chop"),
}
_REFERENCE = "LangChain RecursiveCharacterTextSplitter"


def _cpu(run: Callable[[], int]) -> tuple[float, int]:
    """CPU seconds of one run, and its result (a chunk count)."""
    started = time.process_time()
    result = run()
    return time.process_time() - started, result


def measure_splitters(texts: Sequence[str], *, repeat: int = 3) -> dict[str, Any]:
    """Time every splitter on ``texts``: rows with MB/s, CPU seconds and chunks, plus notes on those skipped."""
    found, notes = splitters()
    megabytes = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    for split in found.values():
        split(texts[:1])  # warm up: encodings, imports
    best: dict[str, tuple[float, int]] = {name: (float("inf"), 0) for name in found}
    for _ in range(repeat):  # in turns, so a neighbour's load on a shared machine falls on every splitter alike
        for name, split in found.items():
            best[name] = min(best[name], _cpu(functools.partial(split, texts)))
    rows: list[dict[str, Any]] = [
        {"splitter": name, "mb_s": round(megabytes / cpu, 2), "cpu_s": round(cpu, 2), "chunks": chunks}
        for name, (cpu, chunks) in best.items()
    ]
    reference = next((r["mb_s"] for r in rows if r["splitter"] == _REFERENCE), None)
    for row in rows:
        row["vs_langchain"] = round(row["mb_s"] / reference, 2) if reference else None
    rows.sort(key=lambda r: -r["mb_s"])
    return {"megabytes": round(megabytes, 2), "documents": len(texts), "rows": rows, "notes": notes}


def big_document(texts: Sequence[str], megabytes: float) -> str:
    """One document of about ``megabytes`` of UTF-8 text: the corpus repeated (blank lines between) and cut."""
    corpus = "\n\n".join(texts)
    size = int(megabytes * 1e6)
    return ("\n\n".join([corpus] * (size // max(1, len(corpus)) + 1)))[:size]


def _cli_cpu(path: Path, method: str) -> float:
    """CPU seconds of ``chop-integrations chunk`` on ``path`` in a child process (its output written, then removed)."""
    out = path.with_suffix(".jsonl")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "chop_integrations._cli", "chunk", str(path), "--method", method]
    subprocess.run([*command, "--out", str(out)], check=True, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out.unlink()
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_sizes(
    texts: Sequence[str], sizes: Sequence[float], *, cli: bool = True, sample_mb: float = 16.0
) -> list[dict[str, Any]]:
    """CPU seconds per MB of one large document at each size, both engines, through ``chunk()`` and the CLI.

    Each size runs ``ceil(sample_mb / size)`` times (at least once); its row holds the mean CPU seconds of a run.
    """
    from chop_integrations._engines import build_engine

    rows: list[dict[str, Any]] = []
    for method in ("lumber", "chop"):  # warm up: imports and the encoding load out of the first row
        build_engine(method, None).chunk(texts[0][:20_000])
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as folder:
        for size in sizes:
            text = big_document(texts, size)
            path = Path(folder) / f"doc-{size:g}MB.txt"
            path.write_text(text, encoding="utf-8")
            megabytes = len(text.encode("utf-8", "surrogatepass")) / 1e6
            metadata = {"source": path.name}
            runs = max(1, math.ceil(sample_mb / size))
            for method in ("lumber", "chop"):
                cpu = 0.0
                for _ in range(runs):
                    engine = build_engine(method, None)
                    started = time.process_time()
                    engine.chunk(text, metadata=metadata)
                    cpu += time.process_time() - started
                rows.append(_size_row("chunk()", method, size, megabytes, cpu / runs, runs))
                if cli:
                    cli_cpu = sum(_cli_cpu(path, method) for _ in range(runs)) / runs
                    rows.append(_size_row("CLI", method, size, megabytes, cli_cpu, runs))
            path.unlink()
    for row in rows:
        first = next(r for r in rows if r["path"] == row["path"] and r["method"] == row["method"])
        row["vs_smallest"] = round(row["s_per_mb"] / first["s_per_mb"], 2)
    return rows


def _size_row(path: str, method: str, size: float, megabytes: float, cpu: float, runs: int) -> dict[str, Any]:
    return {
        "path": path,
        "method": method,
        "size_mb": size,
        "runs": runs,
        "cpu_s": round(cpu, 2),
        "s_per_mb": cpu / megabytes,
    }


def markdown(result: dict[str, Any]) -> str:
    """The figures as Markdown tables: one row per splitter, MB/s and the ratio to LangChain's on each set."""
    sets = result["splitters"]
    lines = [f"Best CPU time of {result['repeat']} runs per splitter and set, the splitters in turns."]
    lines += [f"- {name}: {s['documents']} documents, {s['megabytes']} MB" for name, s in sets.items()]
    lines += [f"- {name}: left out ({why})" for name, why in result.get("sets_left_out", {}).items()]
    lines += ["", "| splitter |" + "".join(f" {n} MB/s | x LangChain |" for n in sets)]
    lines.append("|---|" + "---:|---:|" * len(sets))
    names = list(dict.fromkeys(r["splitter"] for s in sets.values() for r in s["rows"]))
    for name in names:
        cells = []
        for s in sets.values():
            row = next((r for r in s["rows"] if r["splitter"] == name), None)
            cells.append(f" {row['mb_s']} | {row['vs_langchain']} |" if row else " - | - |")
        lines.append(f"| {name} |" + "".join(cells))
    notes = {name: note for s in sets.values() for name, note in s["notes"].items()}
    lines += [f"| {name} |" + " - |" * (2 * len(sets) - 1) + f" {note} |" for name, note in notes.items()]
    if result["sizes"]:
        lines += ["", f"One document made by repeating the {result['sizes_set']} set, at each size:"]
        lines += ["", "| path | method | MB | runs | CPU s | s/MB | x smallest |", "|---|---|---:|---:|---:|---:|---:|"]
        for r in result["sizes"]:
            lines.append(
                f"| {r['path']} | {r['method']} | {r['size_mb']:g} | {r['runs']} | {r['cpu_s']} | {r['s_per_mb']:.3f} "
                f"| {r['vs_smallest']} |"
            )
    return "\n".join(lines) + "\n"


def _corpus(folder: Path) -> list[str]:
    files = sorted(folder.glob("*.txt")) or sorted((folder / "manuals").glob("*.txt"))
    if not files:
        raise ConfigurationError(f"{folder} has no *.txt nor manuals/*.txt: pass --corpus the folder of the manuals")
    return read_corpus(files, "--corpus")


def load_speed_set(name: str, docs_dir: Path | None = None, corpus: Path | None = None) -> list[str]:
    """The texts of one set: ``manuals`` (``corpus`` or :data:`DEFAULT_CORPUS`), else a set of ``bench-structure``.

    Raises:
        ConfigurationError: On an unknown set, or one with no document on this machine (one line saying where
            its documents come from).
    """
    if name == "manuals":
        return _corpus(corpus or DEFAULT_CORPUS)
    if name not in SETS:
        raise ConfigurationError(f"unknown set {name!r}: choose from {', '.join(SETS)}")
    from .structure import load_set

    texts = [text for _, text in load_set(name, docs_dir)]
    if not texts:
        raise ConfigurationError(f"set {name!r} has no document here: {_WHERE.get(name.split('-')[0], '')}")
    return texts


def _texts(args: argparse.Namespace) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The sets timed (name -> texts) and the default sets left out (name -> why).

    ``--corpus`` is one set of its own; ``--set`` names sets, each of which must be here; neither: every set of
    :data:`DEFAULT_SETS` found on this machine (``general`` always is: it is read from the installed packages).
    """
    if args.set and args.corpus:
        raise ConfigurationError("pass --corpus or --set, not both")
    if args.corpus:
        return {"corpus": _corpus(Path(args.corpus))}, {}
    docs_dir = Path(args.docs_dir) if args.docs_dir else None
    manuals = Path(args.manuals_dir) if args.manuals_dir else None
    if args.set:
        names = [name.strip() for name in str(args.set).split(",") if name.strip()]
        if not names:
            raise ConfigurationError(f"--set names no set: {args.set!r} (known: {', '.join(SETS)})")
        return {name: load_speed_set(name, docs_dir, manuals) for name in dict.fromkeys(names)}, {}
    found, left_out = {}, {}
    for name in DEFAULT_SETS:
        try:
            found[name] = load_speed_set(name, docs_dir, manuals)
        except ConfigurationError:
            left_out[name] = _WHERE[name]
    return found, left_out


def _sizes(value: str) -> tuple[float, ...]:
    """The sizes of ``--sizes`` (none for an empty list), each from 1 kB to :data:`MAX_SIZE_MB`."""
    if not value.strip(" ,"):
        return ()
    return bounded_numbers(value, "--sizes", 0.001, MAX_SIZE_MB)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (its record: :mod:`chop_bench.commands`); it runs :func:`run_command`."""
    parser.add_argument("--corpus", metavar="DIR", help="a folder of *.txt documents instead of the sets")
    parser.add_argument(
        "--set",
        metavar="NAMES",
        help=f"comma list of document sets: {', '.join(SETS)} (READMEs, changelogs, licences; German and Chinese "
        f"manuals; the 30 product manuals). Default: {', '.join(DEFAULT_SETS)}, those found here",
    )
    parser.add_argument("--docs-dir", metavar="DIR", help="where the multilingual sets' documents are unpacked")
    parser.add_argument("--manuals-dir", metavar="DIR", help=f"the manuals set's folder (default: {DEFAULT_CORPUS})")
    parser.add_argument("--repeat", type=int, default=3, help="runs per splitter; the best CPU time counts (3)")
    parser.add_argument(
        "--sizes", default=",".join(f"{s:g}" for s in DEFAULT_SIZES), help="comma list of one-document sizes in MB"
    )
    parser.add_argument("--sizes-set", metavar="NAME", help="the set repeated for --sizes (the first set timed)")
    parser.add_argument("--no-cli", action="store_true", help="time the sizes through chunk() only")
    parser.add_argument(
        "--sample-mb", type=float, default=16.0, help="a smaller size runs again until this many MB went through (16)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures here as JSON")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Run ``bench-speed`` from parsed arguments; returns the exit code.

    Every option and the ``--json`` file are checked before any work, so a bad value is one line at once.
    """
    if not 1 <= args.repeat <= MAX_REPEAT:
        raise ConfigurationError(f"--repeat must be >= 1 and <= {MAX_REPEAT}, got {args.repeat}")
    bounded_number(args.sample_mb, "--sample-mb", 0, MAX_SIZE_MB)
    sizes = _sizes(str(args.sizes))
    target = output_file(args.json, "--json")
    sets, left_out = _texts(args)
    grown = args.sizes_set or next(iter(sets))
    if grown not in sets:
        raise ConfigurationError(f"--sizes-set {grown!r} is not among the sets timed: {', '.join(sets)}")
    texts = sets[grown]
    result = {
        "repeat": args.repeat,
        "splitters": {name: measure_splitters(set_texts, repeat=args.repeat) for name, set_texts in sets.items()},
        "sets_left_out": left_out,
        "sizes_set": grown,
        "sizes": measure_sizes(texts, sizes, cli=not args.no_cli, sample_mb=args.sample_mb) if sizes else [],
    }
    print(markdown(result))
    if target is not None:
        write_output(target, json.dumps(result, indent=2) + "\n", "--json")
    return 0
