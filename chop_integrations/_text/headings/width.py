"""How wide a line is on a fixed-width page: the measure the heading reader's length rules use for CJK text."""

from __future__ import annotations

import re

__all__ = ["columns"]

#: East Asian wide characters (CJK ideographs, kana, hangul, full-width forms): two columns each.
_WIDE = re.compile(
    r"[\u1100-\u115f\u2e80-\u303e\u3040-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]"
)


def columns(text: str) -> int:
    """The columns ``text`` fills in a fixed-width page: a wide (CJK) character fills two."""
    return len(text) + (len(_WIDE.findall(text)) if not text.isascii() else 0)
