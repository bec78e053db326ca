"""The ``chop-integrations`` command line: ``chunk``, ``demo``, and the commands other distributions register.

``chunk`` turns text files into JSON Lines, one chunk per line, with the
offline decider unless an OpenAI-compatible endpoint is named. ``demo`` shows
CHOP on three sample manuals in seconds, offline. Every command is one record of
the registry (:mod:`.registry`); the benchmark package beside the library adds
``bench``, ``bench-speed`` and the others through its entry points. A command's
module is imported only when it is named, so ``chunk`` never loads a benchmark.

Exit codes: 0 success; 1 at least one input file could not be processed (the
others still are); 2 a usage or configuration error; 3 a limit (``--max-calls``,
``--max-llm-tokens``) stopped the run; 130 interrupted; 141 the reader of stdout
went away (``| head``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from .. import __version__
from .._errors import ChopError, ConfigurationError, InputError
from .chunk import CHUNK_FIELDS, build_engine, chunk_record, default_cache_path, size_summary
from .common import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED_INPUT,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Document,
    read_document,
    read_documents,
)
from .output import PROG, silence_stdout
from .registry import COMMANDS, Command, registered

__all__ = [
    "CHUNK_FIELDS",
    "COMMANDS",
    "PROG",
    "Command",
    "Document",
    "build_engine",
    "build_parser",
    "chunk_record",
    "configure_logging",
    "default_cache_path",
    "main",
    "read_document",
    "read_documents",
    "registered",
    "size_summary",
]

logger = logging.getLogger("chop_integrations")

#: Optional packages of the library's extras a command may import while it runs, and the extra that installs each.
EXTRA_OF_MODULE = {
    "langchain_core": "langchain",
    "langchain_text_splitters": "langchain",
    "llama_index": "llama-index",
    "openai": "openai",
    "langchain_openai": "openai",
    "ray": "ray",
    "pyarrow": "ray",
    "pandas": "ray",
}


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


def build_parser(
    argv: Sequence[str] = (),
    *,
    prog: str = PROG,
    commands: Mapping[str, Command] | None = None,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """The argument parser of ``commands`` (default: :func:`.registry.registered`), importing only what ``argv`` names.

    The other commands are listed by their :class:`~.registry.Command` record.

    Raises:
        ImportError: When the command ``argv`` names cannot be imported.
    """
    commands = registered() if commands is None else commands
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description or "LumberChunker and CHOP chunking for RAG, offline by default.",
        epilog="Start with: chop-integrations demo" if "demo" in commands else None,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more to stderr (-v info, -vv debug; default warnings)"
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_CommandParser)
    named = _command_in(argv)
    for name, command in commands.items():
        command.add_parser(subparsers, load=name == named)
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


def _unknown_command(prog: str, name: str, commands: Mapping[str, Command]) -> str:
    """One line for a command no installed distribution registers (a bench command on a core-only install)."""
    line = f"{prog}: error: unknown command {name!r} (choose from {', '.join(commands)})"
    if name.startswith("bench"):
        line += (
            "; the benchmark commands come with the chop-integrations-bench package, beside the library in its "
            "repository: pip install -e ./bench"
        )
    return line


def main(
    argv: Sequence[str] | None = None,
    *,
    prog: str = PROG,
    commands: Mapping[str, Command] | None = None,
    description: str | None = None,
) -> int:
    """Run the command line and return its exit code (the console script ``chop-integrations``).

    Args:
        argv: The arguments (default: the process's).
        prog: The program's name in help and messages (``chop-bench`` runs its own commands through here).
        commands: The commands offered (default: :func:`.registry.registered`).
        description: The text of ``--help`` above the commands (default: the library's).
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    commands = registered() if commands is None else commands
    named = _command_in(args_list)
    command = commands.get(named or "")
    if named is not None and command is None:
        print(_unknown_command(prog, named, commands), file=sys.stderr)
        return EXIT_USAGE
    if command is not None and (missing := command.missing()):
        print(f"{prog}: error: {named} needs {', '.join(missing)}: {command.install}", file=sys.stderr)
        return EXIT_USAGE
    try:
        parser = build_parser(args_list, prog=prog, commands=commands, description=description)
    except ImportError as exc:
        install = f": {command.install}" if command is not None and command.install else ""
        print(f"{prog}: error: the {named} command could not be loaded ({exc}){install}", file=sys.stderr)
        return EXIT_USAGE
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
    try:
        return int(args.func(args))
    except (ConfigurationError, InputError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ChopError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED_INPUT
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        extra = EXTRA_OF_MODULE.get(top)
        if extra is not None:
            install = f"the '{extra}' extra (no module named {exc.name!r}): pip install 'chop-integrations[{extra}]'"
        elif command is not None and command.install and top not in {"", __package__.split(".")[0], command.package}:
            install = f"{top} (no module named {exc.name!r}): {command.install}"
        else:  # not an optional package: a bug, show it
            raise
        print(f"{prog}: error: {named or 'this command'} needs {install}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly, as shell tools do
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # a path given that cannot be used (a name too long, a loop of links...): one line
        where = "" if exc.filename is None else f": {str(exc.filename)[:80]}"
        print(f"{prog}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_USAGE
