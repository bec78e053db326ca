"""``chop-integrations bench-scale``: scaling figures, one JSON object per scenario.

Each scenario lives in its own module here and is imported only when it runs, so a
scenario's heavy dependency (Ray) is needed only by that scenario. A scenario module
provides ``add_arguments(parser)`` (its own options, optional) and
``run(args) -> list[dict]`` (the JSON objects it prints, each with a ``"scenario"`` key).

Scenarios (see each module): ``ray`` (Ray Data against one process), ``incremental``
(LLM calls to re-ingest after an edit, against a full ingest), ``stream`` (peak memory of
a document streamed from disk).
"""

from __future__ import annotations

import argparse
import importlib
import json
from typing import Any

from chop_integrations._errors import ConfigurationError

from ..command import output_file, output_folder, write_output

__all__ = ["SCENARIOS", "add_arguments", "run_command"]

#: Scenario name -> the module that runs it.
SCENARIOS: dict[str, str] = {
    "ray": "chop_bench.scale.ray_scenario",
    "incremental": "chop_bench.scale.incremental",
    "stream": "chop_bench.scale.stream",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (its record: :mod:`chop_bench.commands`); it runs :func:`run_command`."""
    parser.add_argument(
        "--scenario",
        action="append",
        choices=sorted(SCENARIOS),
        help="run only this scenario (repeat for several; default: all)",
    )
    parser.add_argument("--json", action="store_true", help="print only the JSON objects, one per line")
    parser.add_argument("--out", metavar="DIR", help="also write scale.json here")
    for name in SCENARIOS:
        module = _module(name, quiet=True)
        if module is not None and hasattr(module, "add_arguments"):
            module.add_arguments(parser)
    parser.set_defaults(func=run_command)


def _module(name: str, *, quiet: bool = False) -> Any:
    try:
        return importlib.import_module(SCENARIOS[name])
    except ModuleNotFoundError as exc:
        if quiet and exc.name == SCENARIOS[name]:
            return None
        raise


def run_command(args: argparse.Namespace) -> int:
    """Run the chosen scenarios, print one JSON object per line, and write ``scale.json`` with ``--out``."""
    folder = output_folder(args.out, "--out")
    target = None if folder is None else output_file(str(folder / "scale.json"), "--out")
    rows: list[dict[str, Any]] = []
    for name in args.scenario or list(SCENARIOS):
        module = _module(name, quiet=True)
        if module is None:
            raise ConfigurationError(f"scenario {name!r} is not available in this build")
        for row in module.run(args):
            rows.append(row)
            print(json.dumps(row), flush=True)
    if target is not None:
        write_output(target, json.dumps(rows, indent=2) + "\n", "--out")
    return 0
