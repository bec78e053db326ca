"""Finding known names (model or category values) in a question, the way people type them.

Both the question and every known value are normalised and cut into tokens (:mod:`.normal`: case, Unicode
dashes, spaces and zero-width characters, full-width letters, ``+``/``plus`` and ``3.0``/``3`` do not matter;
each Han, kana and hangul character is a word of its own, so ``我的S10`` holds ``S10``). A value is named when
a run of the question's whole tokens, joined, gives one of the value's compact keys (:mod:`.forms`) and is
written as the key's marks allow: glued or apart (``Note10``, ``note 10``, ``galaxy-note-10``, ``ZFlip``, ``TabA8.0``),
with or without ``v``/``version`` before a number (``XY v3``). A token is always a whole run: ``A60`` is
``a 60`` and never holds ``A6``, ``S21`` never holds ``S2``.

Five rules keep ordinary text from reading as a model:

- a name of one word of letters only (``Python``, ``Requests``, ``Fit``) is never read offline: it is as
  often an ordinary word ("Use the Python library" in another project's README); the LLM path may still name
  it. Chosen on the general dev set, where such reads filtered seven heading-only questions to the wrong
  document (``Python``, the Python licence's name);
- a single letter glued to digits in the value (``A6``, ``S5e``, ``X1``) must stay glued (or hyphened)
  in the question, so "set a 6 digit PIN" never names the ``A6``; two runs of letters the question glues
  must show the seam by case (``ZFlip``) or be glued to the mention's number (``TabS5e``): ``models`` is not
  ``Model S``;
- a mention glued to more letters or digits, or followed by a number or ``+``, names another model:
  ``S10e``, ``S20+`` and ``Z Fold 3`` are not ``S10``, ``S20`` and ``Z Fold``; so does one followed by a
  word that makes another known name after a number (``S9 Active`` when ``S7`` and ``S7 Active`` are
  known) or preceded by a word that leads into more of a known value (``Tab S7`` when ``Tab S6`` is
  known). These two were added after the check with models the store lacks failed on them (it renames the
  model in every dev question, held-out ones included); no constant came with them;
- the family word may be left out (``Galaxy`` in ``my S10``) only when the values themselves show it is
  one (see :func:`family_words`) and what remains still looks like a name (:func:`_distinctive`); when every
  value shares one family word, a bare dotted version (``3.11``) is such a remainder, a bare integer never;
- shorter forms never collide: a form that two values give, or that is another value's own, names neither.

Shorter forms (:mod:`.variants`): the family word abbreviated to a prefix of two letters or more that no other
family word shares (``py 3.11``), where the family word may be left out; a trailing qualifier of letters and
digits that at least two values end with and that no two known names differ by (``5G``) left out; and the
caller's aliases. No word list is built in: what may be dropped is read from the known values, so the same
rules serve ``Nimbus AC-12``, ``ThinkPad X1 Carbon Gen 9`` or product codes such as ``225B``.

The values' keys sit in a trie of characters, so reading a question takes a bounded number of steps per token
(at most the longest key), whatever the number of values.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .forms import FILLERS, FULL, Entry, Pattern, camel, parse
from .normal import Token, gap, normal, tokens
from .variants import FAMILY_MIN_VALUES, Forms, family_words

__all__ = ["FAMILY_MIN_VALUES", "Match", "NameIndex", "Token", "family_words", "tokens"]

logger = logging.getLogger("chop_integrations")

_END = ""  # the trie key of a node's entries (no character is empty)


@dataclass(frozen=True)
class Match:
    """A value found in a question: which tokens of the question name it, and how directly (:data:`.forms.FULL`...)."""

    value: str
    first: int
    last: int  # inclusive
    rank: int

    @property
    def full(self) -> bool:
        """Whether the value (or an alias) was spelled in full."""
        return self.rank == FULL

    @property
    def size(self) -> int:
        return self.last - self.first + 1


def _outermost(matches: list[Match]) -> list[Match]:
    """The matches that no larger match holds (``S10`` inside ``S10 Lite`` goes), in one sorted sweep."""
    kept: list[Match] = []
    reach = -1  # the furthest last token of the matches that start earlier, or start here and are larger
    group: list[Match] = []
    for match in sorted(matches, key=lambda m: (m.first, -m.size)):
        if group and (match.first, match.size) != (group[0].first, group[0].size):
            reach = max(reach, group[0].last)
            group = []
        group.append(match)
        if match.last > reach:
            kept.append(match)
    return kept


class NameIndex:
    """The known values, ready to be found in questions.

    Args:
        values: The known values, exactly as the store holds them. A value that cannot name anything (no
            letter or digit, one character, only a number) is left out, with a warning.
        drop_family: Let a question leave out (or abbreviate) a family word (:func:`family_words`).
        aliases: Other names of known values (alias -> value): matched like a value, read as their value. An
            alias of a value not known, or one that two values claim, is left out.

    Attributes:
        values: The kept values, sorted.
        steps: Trie steps taken by :meth:`find` so far (one per character looked up): the reading's work,
            which grows with the question and not with the number of values.
    """

    def __init__(
        self, values: Iterable[str], *, drop_family: bool = True, aliases: Mapping[str, str] | None = None
    ) -> None:
        forms = Forms(values, drop_family=drop_family, aliases=aliases or {})
        self.values: list[str] = forms.values
        self._exact = forms.exact
        self._leading = forms.leading  # words that go on into more of a name: *Tab* S6, *Note* 10, *Galaxy*
        self._variants = forms.variants  # words that make another name after a number: S10 *Lite*
        self._extensions = forms.extensions  # numpy -> {license} (numpy LICENSE txt)
        self._root: dict[str, Any] = {}
        for pattern in forms.patterns:
            self._add(pattern)
        self.steps = 0

    def _add(self, pattern: Pattern) -> None:
        for entry in pattern.keys():
            node = self._root
            for ch in entry.key:
                node = node.setdefault(ch, {})
            entries = node.setdefault(_END, [])
            if all((e.value, e.rank, e.marks) != (entry.value, entry.rank, entry.marks) for e in entries):
                entries.append(entry)

    def exact(self, text: str) -> str | None:
        """The one value whose tokens are exactly ``text``'s (an LLM's answer), else None."""
        pattern = parse(text)  # the value's own reading of its words (fillers left out as in the values)
        found = self._exact.get(pattern.words, set()) if pattern is not None else set()
        return next(iter(found)) if len(found) == 1 else None

    def find(self, question: str) -> tuple[str | None, str | None]:
        """The value ``question`` names and the words that named it; ``(None, None)`` for none or a tie.

        Of overlapping mentions the one covering more of the question wins (``S10 Lite`` over ``S10``);
        two values named apart from each other, or tying over the same words, are ambiguous. The words are
        the question's own, normalised (:func:`.normal.normal`).
        """
        text = normal(question)
        toks = tokens(text)
        matches: list[Match] = []
        for i in range(len(toks)):
            if i == 0 or not self._starts_inside(text, toks[i - 1], toks[i]):
                matches.extend(self._walk(text, toks, i))
        kept = _outermost(matches)
        top: dict[tuple[int, int], int] = {}  # a value named in full beats a shorter form over the same words
        for m in kept:
            top[m.first, m.last] = max(top.get((m.first, m.last), m.rank), m.rank)
        kept = [m for m in kept if m.rank == top[m.first, m.last]]
        named = {m.value for m in kept}
        if len(named) != 1:
            return None, None
        best = max(kept, key=lambda m: (m.size, m.rank))
        return best.value, text[toks[best.first].start : toks[best.last].end]

    def _walk(self, text: str, toks: list[Token], i: int) -> Iterator[Match]:
        """The matches that start at token ``i``: walk the trie along the joined tokens, bounded by its depth."""
        node: dict[str, Any] = self._root
        pos, seams, starts = 0, {}, []  # seams: key position -> how the question writes it there
        for j in range(i, len(toks)):
            tok = toks[j]
            step = tok.text
            if j > i:
                kind = gap(text, toks[j - 1], tok)
                seams[pos] = kind
                if kind == "hard":  # only where the value writes the same punctuation (``MPL-2.0.txt``)
                    step = text[toks[j - 1].end : tok.start] + step
                elif toks[j - 1].is_number and tok.is_number:
                    step = "|" + step  # two numbers in a row keep a seam in the key too
            for ch in step:
                self.steps += 1
                nxt = node.get(ch)
                if nxt is None:
                    return
                node = nxt
            starts.append(pos + len(step) - len(tok.text))
            pos += len(step)
            for entry in node.get(_END, ()):
                if self._written(entry, text, toks[i : j + 1], seams, starts) and (
                    j + 1 == len(toks) or not self._ends_inside(text, toks, j, entry.words)
                ):
                    yield Match(entry.value, i, j, entry.rank)

    @staticmethod
    def _written(entry: Entry, text: str, mention: list[Token], seams: dict[int, str], starts: list[int]) -> bool:
        """Whether the mention writes each seam of ``entry`` as its marks allow (see :mod:`.forms`)."""
        for pos, kind in seams.items():
            mark = entry.marks.get(pos)
            if mark is None or (mark == "tight" and kind == "soft") or (mark == "exact") != (kind == "hard"):
                return False  # split inside a word of the value, ``a 6`` for ``A6``, or punctuation
        for pos, mark in entry.marks.items():
            if pos not in seams and mark != "free":  # two runs of letters glued in one word of the question
                at = bisect.bisect_right(starts, pos) - 1
                if not _seam_shown(text, mention, at, pos - starts[at]):
                    return False
        return True

    def _starts_inside(self, text: str, before: Token, first: Token) -> bool:
        """Whether a mention starting at ``first`` is the end of a longer name.

        It is when glued to ``before`` (``12B5`` is not ``B5``), or after a word that goes on into more of a
        known name (``Tab S7`` is not ``S7`` when ``Tab S6`` is known).
        """
        kind = gap(text, before, first)
        return kind == "glued" or (kind != "hard" and before.text in self._leading)

    def _ends_inside(self, text: str, toks: list[Token], j: int, words: tuple[str, ...]) -> bool:
        """Whether a mention of ``words`` ending at token ``j`` goes on into another name.

        It does when glued to the next token (``S10e``); or followed by a number, ``+`` (``Z Fold 3``, ``S20 plus``),
        a filler and a number (``Z Fold v3``),
        a word that makes another known name after a number (``S9 Active`` is not ``S9`` when ``S7`` and
        ``S7 Active`` are known), or a word that carries this very name on into a longer known one
        (``numpy LICENSE`` is not ``numpy`` when ``numpy LICENSE txt`` is known; too short to be read as it).
        A Han, kana or hangul character right after is a boundary (``S10怎么``).
        """
        last, after = toks[j], toks[j + 1]
        kind = gap(text, last, after)
        if kind == "glued":
            return True
        if kind in ("hard", "script"):
            return False
        versioned = (
            after.text in FILLERS
            and j + 2 < len(toks)
            and toks[j + 2].is_number
            and gap(text, after, toks[j + 2]) not in ("hard", "script")
        )
        return (
            after.is_number
            or versioned
            or after.text == "+"
            or after.text in self._variants
            or after.text in self._extensions.get(words, ())
        )


def _seam_shown(text: str, mention: list[Token], at: int, k: int) -> bool:
    """Whether the mention's word ``at`` shows a seam at its character ``k``.

    It does by its case (``ZFlip``, ``TabA``) or by being glued to a number of the mention (``tabs5e``): an
    ordinary word alone (``models``) is no glued spelling of ``Model S``.
    """
    tok = mention[at]
    raw = text[tok.start : tok.end]
    if len(raw) == len(tok.text) and camel(raw, k):
        return True
    before = at > 0 and mention[at - 1].is_number and gap(text, mention[at - 1], tok) == "glued"
    after = at + 1 < len(mention) and mention[at + 1].is_number and gap(text, tok, mention[at + 1]) == "glued"
    return before or after
