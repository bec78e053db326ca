"""Small text helpers the offline deciders share: words, stopwords, lines (headings: ``_text.headings.reader``)."""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections import Counter

#: A word: a letter, then letters and digits, with apostrophes or hyphens inside (``don't``, ``wi-fi``), each
#: followed by a letter or digit. The same words as ``[^\W\d_](?:[^\W_]|['\u2019-](?=[^\W_]))*`` finds, found
#: faster (runs of one class, no lookahead at each character).
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['\u2019-][^\W_]+)*")
#: A :data:`_WORD` of two characters or more (a one-letter word is none: the scan goes on past it as past a space).
_LONG_WORD = re.compile(r"[^\W\d_](?:[^\W_]+(?:['\u2019-][^\W_]+)*|(?:['\u2019-][^\W_]+)+)")
#: :data:`_LONG_WORD` in a lowercased ASCII text, in plain ranges.
_ASCII_LONG_WORD = re.compile(r"[a-z](?:[a-z0-9]+(?:['-][a-z0-9]+)*|(?:['-][a-z0-9]+)+)")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just may me might more most must my
    myself no nor not now of off on once only or other our ours out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    one two use used using see tap select set also new get make want like well much many every each
    der die das und oder ist sind ein eine einer eines einem einen nicht mit von zu zum zur den dem des im in
    auf für fur aus bei als auch wie sie er es wir ihr ich""".split()
)
_STOPWORD = STOPWORDS.__contains__


def words(text: str) -> list[str]:
    """Lowercased content words; CJK runs become character bigrams (no spaces to split on).

    Text with no CJK (the common case) in one pass: the words of two characters or more found by one pattern
    (in plain ASCII ranges for an ASCII text, tested quicker than Unicode classes) and the stopwords dropped in C.
    """
    if not _CJK.search(text):
        lowered = text.lower()
        found = (_ASCII_LONG_WORD if lowered.isascii() else _LONG_WORD).findall(lowered)
        return list(itertools.filterfalse(_STOPWORD, found))
    out: list[str] = []
    for token in _WORD.findall(text):
        token = token.lower()
        chars = None if token.isascii() else _CJK.findall(token)  # (an ASCII token holds no CJK)
        if not chars:
            if len(token) > 1 and token not in STOPWORDS:
                out.append(token)
        elif len(chars) > 1:
            out.extend(map(operator.add, chars, chars[1:]))  # (the CJK characters of the token, in order)
        else:
            out.append(chars[0])
    return out


def cosine(a: Counter[str], b: Counter[str]) -> float:
    """Cosine similarity of two bags of words (0.0 when either is empty)."""
    if not a or not b:
        return 0.0
    return cosine_of(a, squares(a), b, squares(b))


def squares(bag: Counter[str]) -> int:
    """The sum of the squared counts of ``bag`` (its norm squared, an exact integer)."""
    counts = bag.values()
    return sum(map(operator.mul, counts, counts))


def cosine_of(a: Counter[str], a_squares: int, b: Counter[str], b_squares: int) -> float:
    """:func:`cosine` of two non-empty bags whose :func:`squares` are known (a bag compared more than once)."""
    small, large = (a, b) if len(a) < len(b) else (b, a)
    dot = sum([small[word] * large[word] for word in small.keys() & large.keys()])
    norm = math.sqrt(a_squares) * math.sqrt(b_squares)
    return dot / norm if norm else 0.0


def content_lines(text: str, limit: int = 12) -> list[str]:
    """The first ``limit`` non-blank lines of ``text``, stripped."""
    out = []
    for line in text.splitlines():
        if line.strip():
            out.append(line.strip())
            if len(out) >= limit:
                break
    return out
