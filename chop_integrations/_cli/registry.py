"""The command line's one list of commands: the library's own, and those other distributions register.

A command is a :class:`Command`: its name, its line in ``--help`` and the module that defines it. The module is
imported only when the command is named (``chunk`` never loads a benchmark library), and provides
``add_arguments(parser)``: it adds the command's options and sets ``func``, the function that runs the parsed
arguments and returns the exit code. The description is the record's, else the module docstring's first paragraph.

The library's commands are :data:`COMMANDS`. Another distribution adds its own through the entry-point group
:data:`ENTRY_POINT_GROUP`, each entry naming a :class:`Command` object: the benchmark package beside the library
(``bench/``, distribution ``chop-integrations-bench``) registers ``bench``, ``bench-speed`` and the others this way,
and its own ``chop-bench`` script runs the same objects. The library never imports that package.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import logging
from dataclasses import dataclass
from typing import Any

__all__ = ["COMMANDS", "ENTRY_POINT_GROUP", "Command", "registered"]

logger = logging.getLogger("chop_integrations")

#: The entry-point group through which other distributions add commands.
ENTRY_POINT_GROUP = "chop_integrations.commands"


@dataclass(frozen=True)
class Command:
    """One sub-command, listed in ``--help`` without importing it.

    Attributes:
        name: The sub-command (``chunk``, ``bench-speed``).
        help: Its line in ``--help``.
        module: The module that defines it with ``add_arguments(parser)`` (see the module docstring).
        description: The text above its options; None takes the module docstring's first paragraph.
        needs: Top-level packages it imports while it runs, checked before it runs.
        install: How to install ``needs`` (one line, shown when one is missing).
    """

    name: str
    help: str
    module: str
    description: str | None = None
    needs: tuple[str, ...] = ()
    install: str = ""

    def add_parser(self, subparsers: Any, *, load: bool) -> argparse.ArgumentParser:
        """Add the command to ``subparsers``: with its options when ``load``, else a placeholder for ``--help``.

        Raises:
            ImportError: When ``load`` and its module cannot be imported.
        """
        if not load:
            parser: argparse.ArgumentParser = subparsers.add_parser(self.name, help=self.help, add_help=False)
            parser.set_defaults(accepts_any_arguments=True)
            return parser
        module = importlib.import_module(self.module)
        doc = (module.__doc__ or "").split("\n\n")[0].strip() or None
        parser = subparsers.add_parser(self.name, help=self.help, description=self.description or doc)
        module.add_arguments(parser)
        return parser

    @property
    def package(self) -> str:
        """The top-level package of :attr:`module` (a missing module of its own is a bug, not a missing need)."""
        return self.module.split(".")[0]

    def missing(self) -> list[str]:
        """The packages of :attr:`needs` that cannot be imported."""
        return [name for name in self.needs if not _importable(name)]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


#: The library's own commands.
COMMANDS: tuple[Command, ...] = (
    Command(
        "chunk",
        "chunk text files into JSON Lines (offline unless an LLM endpoint is given)",
        "chop_integrations._cli.chunk",
    ),
    Command(
        "demo",
        "CHOP on three sample manuals, with a before/after retrieval check (offline, seconds)",
        "chop_integrations._cli.demo",
        description="Chunk three short, near-identical sample manuals with CHOP on the offline decider, print the "
        "chunks with their signatures, and compare lexical retrieval with and without the CHOP prefix.",
    ),
)


def _entry_point_commands() -> list[Command]:
    """The commands other installed distributions register; a broken entry is logged and left out."""
    found = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            command = entry.load()
        except Exception as exc:  # a broken plugin must not break `chunk`
            logger.warning("command %s (%s) could not be loaded: %s", entry.name, entry.value, exc)
            continue
        if not isinstance(command, Command) or command.name != entry.name:
            logger.warning("entry point %s (%s) is not a Command of that name; left out", entry.name, entry.value)
            continue
        found.append(command)
    return found


def registered() -> dict[str, Command]:
    """Every command by name: :data:`COMMANDS`, then those of the entry points.

    A name already taken is left out with a warning: the library's own commands always win.
    """
    commands: dict[str, Command] = {}
    for command in (*COMMANDS, *_entry_point_commands()):
        if command.name in commands:
            if commands[command.name] is not command:
                logger.warning("command %s is registered twice; the first (%s) is kept", command.name, command.module)
            continue
        commands[command.name] = command
    return commands
