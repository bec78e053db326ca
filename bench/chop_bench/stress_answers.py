"""``bench-stress``'s answer series: run time against the size of what the model answers.

A provider that sends no usage makes the runner estimate completion tokens with the token counter;
an answer of megabytes used to be counted (about a second per MB) and parsed before anything could
say it was useless, so a run's time grew with the answers' size whatever its ``timeout``. Here a
model answers every prompt with the same text of 0.5 to 4 MB (1 to 16 MB with ``--full``), sends no
usage, and LumberChunker chunks one document with ``timeout=5``. Each row gives the run's calls,
wall and CPU seconds, and ``bound_s = timeout x calls`` (what the run may take at most if every call
ran to its timeout, one after another); the series gives the log-log slope of CPU time over answer
size: about 0 means the time does not grow with the answers (they are rejected unread), 1 linear.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from .command import bounded_numbers, log_slope

__all__ = [
    "FULL_ANSWER_MB",
    "QUICK_ANSWER_MB",
    "add_arguments",
    "markdown",
    "run_answer_stress",
    "run_from_args",
    "sizes_from_args",
]

#: Answer sizes in megabytes.
QUICK_ANSWER_MB = (0.5, 1.0, 2.0, 4.0)
FULL_ANSWER_MB = (1.0, 2.0, 4.0, 8.0, 16.0)
#: The largest ``--answer-mb``.
MAX_ANSWER_MB = 1024.0
#: The per-call timeout of the runs.
TIMEOUT_S = 5.0
_DOCUMENT = "\n\n".join(f"Part {i}: the KX-{i} pump moves water from the tank to the filter." for i in range(60))


class _HugeAnswers:
    """A model that answers every prompt with the same large text and reports no usage."""

    model_id = "stress:huge-answers"

    def __init__(self, chars: int) -> None:
        self.answer = '{"starts": []} ' + "x" * chars

    def complete(self, prompt: str) -> str:
        return self.answer

    async def acomplete(self, prompt: str) -> str:
        return self.answer


def measure_answer(megabytes: float, *, max_tokens: int = 120) -> dict[str, Any]:
    """One run of LumberChunker against a model whose every answer is ``megabytes`` long."""
    from chop_integrations._lumber.chunker import LumberChunker  # the engines load only when the series runs

    chars = int(megabytes * 2**20)
    chunker = LumberChunker(_HugeAnswers(chars), max_tokens=max_tokens, timeout=TIMEOUT_S)
    wall, cpu = time.perf_counter(), time.process_time()
    chunks = chunker.chunk(_DOCUMENT)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    usage = chunker.last_usage
    bound = TIMEOUT_S * usage.calls
    return {
        "answer_mb": megabytes,
        "answer_chars": chars,
        "calls": usage.calls,
        "invalid_answers": usage.invalid_answers,
        "fallbacks": usage.fallbacks,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "bound_s": bound,
        "within_bound": wall <= bound,
        "lossless": "".join(c.text for c in chunks) == _DOCUMENT,
    }


def run_answer_stress(sizes_mb: Sequence[float]) -> dict[str, Any]:
    """Every answer size in turn; rows plus the log-log slope of CPU time over answer size."""
    rows = [measure_answer(size) for size in sizes_mb]
    first, last = rows[0], rows[-1]
    return {
        "timeout_s": TIMEOUT_S,
        "rows": rows,
        "time_exp": log_slope(first["cpu_s"], last["cpu_s"], first["answer_chars"], last["answer_chars"]),
        "ok": all(r["within_bound"] and r["lossless"] for r in rows),
    }


def markdown(result: dict[str, Any] | None) -> str:
    """The series as a Markdown table (empty when it did not run)."""
    if not result:
        return ""
    lines = [
        "",
        f"Answers of growing size (no usage reported, timeout={result['timeout_s']:g} s):",
        "",
        "| answer MB | calls | invalid | fallbacks | wall s | cpu s | bound s | within bound | lossless |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['answer_mb']} | {r['calls']} | {r['invalid_answers']} | {r['fallbacks']} | {r['wall_s']} | "
        f"{r['cpu_s']} | {r['bound_s']:g} | {r['within_bound']} | {r['lossless']} |"
        for r in result["rows"]
    ]
    lines.append("")
    lines.append(
        f"Time exponent over answer size: {result['time_exp']} (about 0: the answers are rejected unread; 1: linear)."
    )
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--answer-mb``: the answer sizes of the series (``0`` skips it)."""
    parser.add_argument(
        "--answer-mb", metavar="LIST", help="comma list of answer sizes in MB for the answer series (0: skip it)"
    )


def sizes_from_args(args: argparse.Namespace) -> tuple[float, ...]:
    """The answer sizes of parsed ``bench-stress`` arguments (none when ``--answer-mb 0`` skips the series).

    Checked before any work of the command.

    Raises:
        ConfigurationError: When ``--answer-mb`` is not a comma list of numbers from 0 to :data:`MAX_ANSWER_MB`.
    """
    value = getattr(args, "answer_mb", None)
    if not value:
        return FULL_ANSWER_MB if getattr(args, "full", False) else QUICK_ANSWER_MB
    return tuple(s for s in bounded_numbers(str(value), "--answer-mb", 0, MAX_ANSWER_MB) if s > 0)


def run_from_args(args: argparse.Namespace) -> dict[str, Any] | None:
    """The series for parsed ``bench-stress`` arguments, or None when ``--answer-mb 0`` skips it.

    Raises:
        ConfigurationError: When ``--answer-mb`` is not a comma list of numbers from 0 to :data:`MAX_ANSWER_MB`.
    """
    sizes = sizes_from_args(args)
    return run_answer_stress(sizes) if sizes else None
