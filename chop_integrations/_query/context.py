"""Context by continuity: the chunks around a hit that belong to the same section run.

CHOP marks each chunk ``continues_previous`` when it goes on with the previous chunk's topic; a run of
such chunks is one section. A hit is often a short slice of that section; a generator answers better
from the section. :func:`section_run` widens a hit to its neighbours in the run, nearest first, as long
as the whole stays within a token budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._errors import InputError

__all__ = ["CONTINUES_KEY", "section_run"]

#: The metadata key the adapters write a chunk's ``continues_previous`` flag under.
CONTINUES_KEY = "chop_continues"


def section_run(continues: Sequence[bool | None], tokens: Sequence[int], hit: int, budget: int) -> range:
    """The indices of ``hit`` and its section-run neighbours that fit within ``budget`` tokens.

    Args:
        continues: Each chunk's ``continues_previous`` flag, in document order (``None``: unknown, a break).
        tokens: Each chunk's token count, in the same order.
        hit: The index of the retrieved chunk.
        budget: Tokens the returned chunks may hold together; the hit itself is always returned, even
            when it alone is over the budget.

    Returns:
        A contiguous range holding ``hit``. Neighbours are added nearest first, the following one before
        the preceding one at the same distance (a section reads forward), and only while the chunk
        joins the hit's run (chunk ``i`` joins ``i - 1`` when ``continues[i]`` is true) and the total
        stays within ``budget``.

    Raises:
        InputError: When the two sequences differ in length, ``hit`` is out of range or ``budget`` < 0.
    """
    if len(continues) != len(tokens):
        raise InputError(f"continues has {len(continues)} flags but tokens has {len(tokens)} counts")
    if not 0 <= hit < len(tokens):
        raise InputError(f"hit {hit} is outside the document's {len(tokens)} chunks")
    if budget < 0:
        raise InputError(f"budget must be >= 0 tokens, got {budget}")
    start, end = hit, hit + 1
    used = tokens[hit]
    grew = True
    while grew:
        grew = False
        if end < len(tokens) and continues[end] is True and used + tokens[end] <= budget:
            used += tokens[end]
            end += 1
            grew = True
        if start > 0 and continues[start] is True and used + tokens[start - 1] <= budget:
            used += tokens[start - 1]
            start -= 1
            grew = True
    return range(start, end)
