"""The ``chunk`` command's engine flags, made from the engines' config fields.

Every field of every registered engine's config (:data:`~chop_integrations._engines.ENGINES`:
:class:`~chop_integrations.LumberConfig`, :class:`~chop_integrations.CHOPConfig`, and any engine defined
later) that a command line can give is a flag of the same
name (``max_tokens`` -> ``--max-tokens``), type and default (a flag left out keeps the config's
default); :data:`NOT_ON_COMMAND_LINE` names the others and why. A field added to a config without
a way onto the command line fails here, when the parser is built.
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Callable
from typing import Any

from .._engines import ENGINES
from .._errors import ConfigurationError

__all__ = ["ALIASES", "NOT_ON_COMMAND_LINE", "VALUE_TYPES", "add_config_flags", "config_options", "flag"]

#: Config fields a command line cannot give (objects), and what stands for them.
NOT_ON_COMMAND_LINE: dict[str, str] = {
    "fallback": "an offline topic-shift decider object",
    "retry": "a RetryPolicy object",
    "chunker": "a base chunker object",
    "budget": "a PromptBudget object",
    "offline_continuity": "a continuity decider object",
    "offline_extractor": "a signature extractor object",
    "cache": "the --cache PATH / --no-cache flags (with an LLM the persistent cache is the default)",
    "on_progress": "a function (the command shows a bar of decisions on a terminal instead)",
    "max_calls": "the command's own --max-calls, a limit over all its files together, not per document",
    "max_llm_tokens": "the command's own --max-llm-tokens, a limit over all its files together, not per document",
}
#: Fields that take an object or a value in the config, and the one kind of value a command line gives.
VALUE_TYPES: dict[str, Callable[[str], Any]] = {"embedding": int, "token_counter": str, "prefix": str}
#: Earlier spellings of some flags, still accepted.
ALIASES: dict[str, tuple[str, ...]] = {
    "max_concurrency": ("--concurrency",),
    "timeout": ("--llm-timeout",),
    "embedding": ("--embedding-limit",),
}
#: What an open field's value means on the command line, where the config's description speaks of objects too.
_VALUE_HELP = {
    "embedding": "The embedding model's input limit in tokens: chunks (with CHOP's prefix) are capped to fit it.",
}
#: The metavar of a flag by its value type.
_METAVARS: dict[Any, str] = {int: "N", float: "X"}


def flag(name: str) -> str:
    """The command-line flag of config field ``name``: ``max_tokens`` -> ``--max-tokens``."""
    return "--" + name.replace("_", "-")


def _fields() -> dict[str, dict[str, Any]]:
    """Every config field a command line gives: ``{name: {engine name: its FieldInfo}}``, in config order."""
    found: dict[str, dict[str, Any]] = {}
    for engine, cls in ENGINES.items():
        for name, info in cls.config_class.model_fields.items():
            if name not in NOT_ON_COMMAND_LINE:
                found.setdefault(name, {})[engine] = info
    return found


def _kind(name: str, annotation: Any) -> dict[str, Any]:
    """The ``add_argument`` keywords (type, choices or action) for a field of type ``annotation``."""
    if name in VALUE_TYPES:
        return {"type": VALUE_TYPES[name], "metavar": _METAVARS.get(VALUE_TYPES[name])}
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is typing.Literal:
        return {"choices": typing.get_args(annotation)}
    if annotation is bool:
        return {"action": argparse.BooleanOptionalAction}
    if annotation in (int, float, str):
        return {"type": annotation, "metavar": _METAVARS.get(annotation)}
    raise TypeError(f"config field {name!r} ({annotation}) has no command-line type: add it to VALUE_TYPES")


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def _help(name: str, infos: dict[str, Any]) -> str:
    info = next(iter(infos.values()))
    text = _VALUE_HELP.get(name, info.description or "")
    defaults = {engine: _shown(i.default) for engine, i in infos.items()}
    if len(set(defaults.values())) == 1:
        shown = next(iter(defaults.values()))
    else:
        shown = ", ".join(f"{engine}: {value}" for engine, value in defaults.items())
    only = "" if len(infos) == len(ENGINES) else f"--method {', '.join(infos)} only. "
    return (only + text + f" (default: {shown})").replace("%", "%%")


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every config field a command line gives (see the module docstring).

    Raises:
        TypeError: When a config field has neither a command-line type nor an entry in :data:`NOT_ON_COMMAND_LINE`.
    """
    configs = " and ".join(cls.config_class.__name__ for cls in ENGINES.values())
    group = parser.add_argument_group(f"engine options (the fields of {configs})")
    for name, infos in _fields().items():
        kinds = [_kind(name, info.annotation) for info in infos.values()]
        group.add_argument(
            flag(name),
            *ALIASES.get(name, ()),
            dest=name,
            default=argparse.SUPPRESS,
            help=_help(name, infos),
            **kinds[0],
        )


def config_options(args: argparse.Namespace, method: str) -> dict[str, Any]:
    """The config fields given on the command line, for the engine ``method`` names.

    Raises:
        ConfigurationError: When a flag belongs to the other engine's config.
    """
    options: dict[str, Any] = {}
    for name in _fields():
        if not hasattr(args, name):
            continue
        if name not in ENGINES[method].config_class.model_fields:
            raise ConfigurationError(f"{flag(name)} applies to another --method, not {method!r}")
        options[name] = getattr(args, name)
    return options
