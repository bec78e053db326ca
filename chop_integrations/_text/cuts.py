"""Where a chunk may end: a heading always opens the chunk that holds its body.

A *heading-only* unit is a heading unit (:attr:`~chop_integrations.Unit.heading`) that holds
its heading lines and nothing else (``## Install`` over a blank line, ``Title`` over ``=====``):
its body is in the units after it. One rule, applied wherever a cut is chosen (an LLM's answer,
the offline topic shift, the size limit, packing, a stream's flush):

* a cut never falls right after a heading-only unit: :func:`keep_with_body` moves a chosen
  start back to the first of the headings above it (a chapter over a section over the body),
  :func:`may_cut` says where a size cut may go;
* segmentation makes that affordable: the first unit after a run of headings holds at most
  ``max_tokens`` less the headings' tokens (:func:`heading_lead`), so the headings and the
  start of their body always fit one chunk, cut inside the body rather than before it.

A run counts at most :data:`HEADING_CHAIN` headings of at most half of ``max_tokens`` together:
a document of nothing but short lines (a poem, a list of names) reads as a long run of
"headings", and must still be cut somewhere. The heading right above the body counts whatever
its size below ``max_tokens`` (a title line full of badges still opens the chunk of its body).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from .._types import Unit
from .headings import is_setext_underline
from .headings.lines import wrapped_title

__all__ = [
    "HEADING_CHAIN",
    "heading_end",
    "heading_lead",
    "heading_lead_start",
    "heading_only",
    "heading_only_span",
    "keep_with_body",
    "may_cut",
]

#: The most headings kept with the body below them (a part, a chapter, a section).
HEADING_CHAIN = 3
_LINE = re.compile(r"[^\n]*(?:\n|$)")
_BLANK = re.compile(r"[^\S\n]*\n")


def heading_end(text: str, start: int, end: int) -> int:
    """End of the heading lines that open ``text[start:end]``: the first non-blank line, with its over- and underline.

    A numbered title wrapped onto a second line (:func:`~._text.headings.lines.wrapped_title`: ``3.1.2. Gibt es ...
    in`` / ``unterschiedlichen Distributionen?``) ends with that line. The line break after each line is included;
    ``end`` when the heading runs to it.
    """
    pos = start
    while pos < end and (blank := _BLANK.match(text, pos, end)) is not None:
        pos = blank.end()
    line = _LINE.match(text, pos, end)
    pos = line.end() if line is not None else end
    if line is not None and is_setext_underline(line.group()):  # an overline: its title follows
        title = _LINE.match(text, pos, end)
        pos = title.end() if title is not None else end
    underline = _LINE.match(text, pos, end)
    if underline is not None and underline.end() > pos and is_setext_underline(underline.group()):
        pos = underline.end()
    elif underline is not None and line is not None and underline.group().strip() and line.group().strip():
        if wrapped_title(line.group().strip(), underline.group().strip()):
            pos = underline.end()
    return min(pos, end)


@functools.lru_cache(maxsize=8192)
def _only_heading(text: str) -> bool:
    return heading_only_span(text, 0, len(text))


def heading_only_span(text: str, start: int, end: int) -> bool:
    """True when the heading block ``text[start:end]`` holds only heading lines (one line is decided at once)."""
    line_end = text.find("\n", start, end)
    if line_end < 0 or text[line_end:end].isspace():  # (most heading blocks: one line, white space after it)
        return True
    return not text[heading_end(text, start, end) : end].strip()


def heading_only(unit: Unit) -> bool:
    """True when ``unit`` is a heading with no body text of its own (its body follows in later units)."""
    return unit.heading and _only_heading(unit.text)


def _chain_start(units: Sequence[Unit], p: int) -> int:
    """First unit of the heading-only units right before ``p``, :data:`HEADING_CHAIN` of them at most."""
    first = p
    while first > 0 and p - first < HEADING_CHAIN and heading_only(units[first - 1]):
        first -= 1
    return first


def _run_start(units: Sequence[Unit], p: int, max_tokens: int) -> int:
    """First unit of the heading run right before ``p`` (:func:`_chain_start`, half of ``max_tokens`` at most).

    The last heading of the run (right before ``p``) counts alone up to ``max_tokens`` less one token of body.
    """
    first, total = p, 0
    for k in range(p - 1, _chain_start(units, p) - 1, -1):
        total += units[k].tokens
        if total > (max_tokens // 2 if k < p - 1 else max_tokens - 1):
            break
        first = k
    return first


def heading_lead(units: Sequence[Unit], max_tokens: int) -> int:
    """Tokens of the heading run that ends ``units``: the next body unit must leave room for them.

    A heading after them gets no such limit (it fits on its own), so a cut before a run of
    :data:`HEADING_CHAIN` headings leaves the units after it as they are.
    """
    first = _run_start(units, len(units), max_tokens)
    return sum(u.tokens for u in units[first:])


def heading_lead_start(units: Sequence[Unit], max_tokens: int) -> int:
    r"""Offset where the heading run that ends ``units`` starts (:func:`heading_lead`; the end when there is none).

    The next body unit is checked together with the run from here: a counter need not be additive (``\n\n    ``
    then ``除`` may count one token more together than apart).
    """
    first = _run_start(units, len(units), max_tokens)
    return units[first].start if first < len(units) else (units[-1].end if units else 0)


def keep_with_body(units: Sequence[Unit], p: int, max_tokens: int) -> int:
    """Chunk start ``p`` moved back to the first heading above it, so no chunk ends with a heading.

    A run of headings longer than :func:`_run_start` allows still moves whole when it fits one chunk with unit
    ``p``: starting inside it would leave its first headings at the end of the chunk before, away from their body.
    """
    if p <= 0 or p >= len(units):
        return p
    first, whole = _run_start(units, p, max_tokens), _chain_start(units, p)
    if whole < first and sum(u.tokens for u in units[whole : p + 1]) <= max_tokens:
        return whole
    return first


def may_cut(units: Sequence[Unit], p: int) -> bool:
    """True when a chunk may end before unit ``p``: the unit before is not a heading waiting for its body."""
    return p <= 0 or p >= len(units) or not heading_only(units[p - 1])
