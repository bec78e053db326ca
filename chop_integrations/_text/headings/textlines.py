"""A text's non-blank lines as a heading reader takes them, and the underline (adornment) test they use.

Kept apart from :mod:`.outline` so each module stays small; :class:`Lines` holds parallel lists, not an object per
line (the garbage collector's passes over those cost as much as reading them).
"""

from __future__ import annotations

import re

from ..structure import FenceState
from .lines import is_code_line
from .markup import UNDERLINE_MARKS, is_setext_underline

__all__ = ["LINE_BREAKS", "Lines", "adornment"]

#: The characters ``str.splitlines`` ends a line at, for a character class (``\r\n`` is one break of two of them).
LINE_BREAKS = "\n\r\v\f\x1c-\x1e\x85\u2028\u2029"
#: Where a code fence could open past a text's first line: a line (as ``str.splitlines`` cuts them) that starts with
#: a backtick or a tilde.
_FENCE_OPENING = re.compile(f"[{LINE_BREAKS}] *[`~]")


def adornment(line: str) -> str:
    """The character of a heading underline or overline (``"====="`` -> ``"="``); ``""`` for any other line.

    Segmentation's rule (:func:`~chop_integrations._text.headings.lines.is_setext_underline`), so LumberChunker's
    units and the signature's headings agree.
    """
    return line[0] if line[:1] in UNDERLINE_MARKS and is_setext_underline(line) else ""


class Lines:
    """The non-blank lines of a text, as parallel lists (an object per line would keep the garbage collector busy).

    Attributes:
        offsets: Where each line's text starts.
        texts: Each line, stripped.
        fenced: Inside fenced code.
        indented: Four columns or more: indented code in markdown and reStructuredText, never a marked heading.
        alone: A blank line follows.
    """

    def __init__(self, text: str, limit: int | None = None) -> None:
        """Read ``text``'s lines; only its first ``limit`` non-blank ones (and the blank lines below them) if given."""
        self.offsets: list[int] = []
        self.texts: list[str] = []
        self.fenced: list[bool] = []
        self.indented: list[bool] = []
        self.alone: list[bool] = []
        offsets, texts, fenced, indented, alone = self.offsets, self.texts, self.fenced, self.indented, self.alone
        offset, fences, read = 0, FenceState() if _may_fence(text) else None, -1  # read: the last line read by fences
        raws = text.splitlines(keepends=True)
        if fences is None and limit is None:
            self._read_plain(raws)  # (most texts: no fence to follow, no line limit)
            return
        for i, raw in enumerate(raws):
            fence = False
            if fences is not None:
                # Only a line opening with a backtick or a tilde after spaces opens or closes a fence: the reader
                # takes it after the line above it (which an opening fence's test reads); any other line takes the
                # state (a loop over every line through the reader cost as much as the rest of this one).
                if raw[0] in " `~" and raw.lstrip(" ")[:1] in ("`", "~"):
                    if i and read != i - 1:
                        fences.step(raws[i - 1])
                    fence, read = fences.step(raw), i
                else:
                    fence = fences.marker is not None
            stripped = raw.strip()
            if not stripped:
                if alone:
                    alone[-1] = True
                offset += len(raw)
                continue
            if len(texts) == limit:
                break
            if raw[0].isspace():
                offsets.append(offset + len(raw) - len(raw.lstrip()))
                indented.append(is_code_line(raw))
            else:
                offsets.append(offset)
                indented.append(False)
            texts.append(stripped)
            fenced.append(fence)
            alone.append(False)
            offset += len(raw)

    def _read_plain(self, raws: list[str]) -> None:
        """The loop of ``__init__`` for a text with no code fence, read whole: the same lists, fewer tests per line."""
        offsets, texts, indented, alone = self.offsets, self.texts, self.indented, self.alone
        offset = 0
        for raw in raws:
            stripped = raw.strip()
            if not stripped:
                if alone:
                    alone[-1] = True
            elif raw[0].isspace():
                offsets.append(offset + len(raw) - len(raw.lstrip()))
                indented.append(is_code_line(raw))
                texts.append(stripped)
                alone.append(False)
            else:
                offsets.append(offset)
                indented.append(False)
                texts.append(stripped)
                alone.append(False)
            offset += len(raw)
        self.fenced = [False] * len(texts)

    def context(self, k: int) -> tuple[str | None, bool, str]:
        """Line ``k``'s ``following``, ``opens_block`` and ``above``, as :func:`marked_heading` takes them."""
        texts, alone = self.texts, self.alone
        following = None if alone[k] or k + 1 == len(texts) else texts[k + 1]
        if not k:
            return following, True, ""
        above = "" if alone[k - 1] else adornment(texts[k - 1])
        return following, alone[k - 1] or bool(above), above

    def hanging(self, k: int) -> bool:
        """True when line ``k``'s next line (in its block) is indented and it is not: a body under it, not a wrap."""
        indented = self.indented
        return not self.alone[k] and k + 1 < len(indented) and indented[k + 1] and not indented[k]


def _may_fence(text: str) -> bool:
    """False when no line of ``text`` can open a code fence (most texts): then no line needs the fence reader."""
    if "`" not in text and "~" not in text:
        return False
    return text.lstrip(" ").startswith(("`", "~")) or _FENCE_OPENING.search(text) is not None
