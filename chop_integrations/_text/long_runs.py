r"""Long runs of white space, counted in pieces: tiktoken's time on one piece grows faster than it.

tiktoken encodes a run of white space as one piece (``"\t\n" * n`` too), and its time per character grows with
the piece (0.27 s per million characters of ``\u00a0`` at 100,000, 0.54 s at 4 million); past about a million
characters of spaces followed by anything else its pattern overflows (a ``ValueError``) and a counter sums the
counts of the text's halves (:meth:`~chop_integrations._text.tokens.TiktokenCounter.__call__`). A piece that
holds a run of white space of :data:`LONG_RUN` characters or more is halved without trying, so no piece
counted at once holds more than that of one run: counting stays linear. The sum over the halves of such a
run may differ from one encoding by a token per cut; a text without such a run is counted as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .structure import last_visible

__all__ = ["LONG_RUN", "count_in_halves", "long_runs"]

#: A run of white space this long (or longer) is counted in halves.
LONG_RUN = 1 << 19
_OTHER = re.compile(r"\S")


def long_runs(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every run of white space (``str.isspace``) of :data:`LONG_RUN` characters or more.

    Probes one character in every half of :data:`LONG_RUN` (such a run holds one), then reads each run found
    at C speed: linear in the runs, a few probes for any other text.
    """
    runs: list[tuple[int, int]] = []
    size, step, probe = len(text), LONG_RUN // 2, 0
    while size >= LONG_RUN and probe < size:
        if not text[probe].isspace():
            probe += step
            continue
        found = _OTHER.search(text, probe)
        end = size if found is None else found.start()
        start = _run_start(text, probe)
        if end - start >= LONG_RUN:
            runs.append((start, end))
        probe = max(end + 1, probe + step)  # past this run, and never less than a step on
    return runs


def _run_start(text: str, pos: int) -> int:
    """Where the run of white space through ``pos`` starts: after the last visible character before it."""
    back = last_visible(text, pos)  # (0 both for a visible first character and for none)
    return 0 if text[back].isspace() else back + 1


def count_in_halves(count: Callable[[str], int], text: str) -> int:
    """``count(text)``, or the sum over its halves where it raises ``ValueError`` or holds a long run.

    Each half is counted the same way, so a long run ends up in pieces under :data:`LONG_RUN` characters.

    Raises:
        ValueError: When a single character cannot be counted.
    """
    runs = long_runs(text)

    def piece(a: int, b: int) -> int:
        if not any(min(e, b) - max(s, a) >= LONG_RUN for s, e in runs):
            try:
                return count(text[a:b])
            except ValueError:
                if b - a < 2:
                    raise
        half = a + (b - a) // 2
        return piece(a, half) + piece(half, b)

    return piece(0, len(text))
