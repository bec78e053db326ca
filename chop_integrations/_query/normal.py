"""A text as the name reader sees it: Unicode normalised, then cut into tokens.

Normalising (:func:`normal`): NFKC (full-width letters and digits read as ASCII), every dash-like character
(``‐ ‑ ‒ – — ― − ﹘ ﹣ －``) as ``-``, every Unicode space as a space, and format characters (Unicode category
``Cf``: zero-width spaces and joiners, the soft hyphen, the byte-order mark) removed. So ``S10‑Lite`` (a
non-breaking hyphen), ``S10–Lite`` and ``Note 10\u200b+`` read as ``S10-Lite`` and ``Note 10+``.

Tokens (:func:`tokens`): runs of digits (with decimal points: ``10.5``), runs of letters, each Han, kana or
hangul character alone (those scripts put no spaces between words, so any character may start a name, and
Latin letters glued to them are a token of their own: ``我的S10`` is ``我``, ``的``, ``s``, ``10``), and ``+``
(the word ``plus`` reads as ``+``); lower-cased. A number drops its
trailing ``.0`` parts (``3.0`` is ``3``, ``4.2.0`` is ``4.2``), so either spelling names the same member.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["CJK", "Token", "gap", "is_cjk", "normal", "number", "tokens"]

#: Scripts written without spaces between words: Han, Hiragana, Katakana, Hangul (and their extensions).
CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
_TOKEN = re.compile(rf"\d+(?:\.\d+)*|[{CJK}]|[^\W\d_{CJK}]+|\+")
_CJK = re.compile(f"[{CJK}]")
#: Characters that separate two tokens without breaking a name (``note 10``, ``galaxy-note-10``).
_SOFT = re.compile(r"[\s\-_]+")
_TRAILING_ZEROS = re.compile(r"(?:\.0+)+$")
#: Dash-like characters (after NFKC) read as ``-``; Unicode spaces as `` ``.
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_TABLE = str.maketrans({**dict.fromkeys(_DASHES, "-"), **dict.fromkeys(_SPACES, " ")})


@dataclass(frozen=True)
class Token:
    """One token of a text: its normal form and where it lies (character offsets into :func:`normal` text)."""

    text: str
    start: int
    end: int

    @property
    def is_number(self) -> bool:
        """Whether the token is a number (``10``, ``10.5``)."""
        return self.text[0].isdigit()

    @property
    def is_letters(self) -> bool:
        """Whether the token is a run of letters (of any script)."""
        return self.text[0].isalpha()

    @property
    def is_cjk(self) -> bool:
        """Whether the token is a Han, kana or hangul character."""
        return is_cjk(self.text)


def is_cjk(word: str) -> bool:
    """Whether ``word`` is (starts with) a Han, kana or hangul character."""
    return _CJK.match(word) is not None


def normal(text: str) -> str:
    """``text`` normalised (NFKC, dashes as ``-``, spaces as `` ``, format characters removed), case kept."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    text = text.translate(_TABLE)
    return "".join(ch for ch in text if ch.isprintable() or unicodedata.category(ch) != "Cf")


def number(text: str) -> str:
    """A number's normal form: trailing ``.0`` parts dropped (``3.0`` is ``3``, ``4.2.0`` is ``4.2``)."""
    return _TRAILING_ZEROS.sub("", text) or text


def tokens(text: str) -> list[Token]:
    """The tokens of ``text`` (see the module docstring); offsets index ``normal(text)``."""
    out = []
    for match in _TOKEN.finditer(normal(text)):
        word = match.group(0).lower()
        if word[0].isdigit():
            word = number(word)
        out.append(Token("+" if word == "plus" else word, match.start(), match.end()))
    return out


def gap(text: str, left: Token, right: Token) -> str:
    """What lies between two tokens of ``text`` (a :func:`normal` text).

    ``"glued"`` (nothing), ``"script"`` (nothing, but one side is Han, kana or hangul: those scripts put no
    spaces between words, so this is a word boundary), ``"hyphen"`` (only ``-``/``_``), ``"soft"`` (with
    spaces) or ``"hard"`` (anything else: punctuation).
    """
    between = text[left.end : right.start]
    if not between:
        return "script" if left.is_cjk or right.is_cjk else "glued"
    if _SOFT.fullmatch(between) is None:
        return "hard"
    return "hyphen" if not between.strip("-_") else "soft"
