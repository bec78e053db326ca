"""Documents made of one long run of one character: the inputs a careless pattern or loop turns quadratic.

Each builder gives a text of about ``n`` characters in which almost everything is one run, in
the place where it does harm: spaces, tabs and no-break spaces inside one line (the line and
paragraph patterns); periods, exclamation marks and ellipses in a block over ``max_tokens``
(the sentence cuts, then the cut at the largest prefix that fits); ``#``, ``|``, ``*`` and
backticks on a line of their own (headings, tables, lists, fences); and a long line with no
space at all. ``bench-stress --kinds runs`` times them at growing sizes; linear means the
same CPU time per character at every size.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["RUNS", "run_document"]


def _in_line(char: str) -> Callable[[int], str]:
    return lambda n: "Some words before " + char * n + " and after."


def _in_block(char: str) -> Callable[[int], str]:
    return lambda n: "A paragraph that ends in a long run of marks" + char * n


def _alone(char: str) -> Callable[[int], str]:
    return lambda n: "Title\n\n" + char * n + "\n\nBody text."


#: Run kind -> builder of a document of about ``n`` characters.
RUNS: dict[str, Callable[[int], str]] = {
    "spaces": _in_line(" "),
    "tabs": _in_line("\t"),
    "nbsp": _in_line("\u00a0"),
    "periods": _in_block("."),
    "bangs": _in_block("!"),
    "ellipses": _in_block("\u2026"),
    "hashes": _alone("#"),
    "pipes": _alone("|"),
    "stars": _alone("*"),
    "backticks": _alone("`"),
    "no-spaces": lambda n: "".join(chr(0x61 + (i * 7) % 26) for i in range(n)),
    "heading-spaces": lambda n: "# Title" + " " * n + "end\n\nBody text.",
}


def run_document(kind: str, n: int) -> str:
    """The ``kind`` run document of about ``n`` characters (see :data:`RUNS`).

    Raises:
        KeyError: On an unknown kind.
    """
    return RUNS[kind](n)
