"""The written forms of a known value that the name reader looks up, as compact keys.

A value's tokens (:mod:`.normal`) are joined into one compact key (``Galaxy Tab A 8.0`` is ``galaxytaba8``;
two numbers in a row keep a ``|`` between them), with a *mark* at each place where the value's tokens meet.
A question's run of tokens is joined the same way and looked up, so glued and split spellings need no rule
each: ``TabA8.0``, ``tab a 8`` and ``galaxy-tab-a-8.0`` all give the key. The marks say how the question may
write each meeting point (:class:`Entry`):

- ``"tight"``: a single letter glued to a number in the value (``A6``) stays glued (or hyphened) in the
  question, so "a 6 digit PIN" never names the ``A6``;
- ``"open"``: any spacing, hyphen or none; where two runs of letters meet (``Z Flip``) and the question glues
  them into one word, the word must show the meeting point by its case (``ZFlip``) or be glued to a number of
  the mention (``TabS5e``), so an ordinary word (``models``) never reads as ``Model S``;
- ``"free"``: anything (a case change inside the value's own word: ``iPhone``; the edges of a filler);
- ``"sep"``: the ``|`` between two numbers (the question has them apart too);
- ``"exact"``: punctuation the value writes (``.`` in ``MPL-2.0.txt``), written the same by the question.

A place in the question where its tokens meet and the value has no mark (``data classes`` for
``Dataclasses``) is no spelling of the value. ``v``, ``ver`` and ``version`` before a number are fillers:
left out of a value's tokens and offered as optional forms of the key (``XY v3``, ``XY version 3``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from .normal import Token, gap, normal, tokens

__all__ = ["FAMILY_LESS", "FILLERS", "FULL", "GUESSED", "Entry", "Pattern", "camel", "parse"]

#: How directly a form names its value: where two forms of different values meet the same words, the higher
#: rank wins (a value spelled in full over one without its family word, over an abbreviated or shortened one).
FULL, FAMILY_LESS, GUESSED = 2, 1, 0

#: Words that may stand before a version number without being part of the name.
FILLERS = ("v", "ver", "version")
#: At most this many places of one value get the optional fillers (each place multiplies the keys by four).
MAX_FILLER_PLACES = 2


def camel(raw: str, k: int) -> bool:
    """Whether position ``k`` of the word ``raw`` starts a new part by its case (``ZFlip``, ``TabA``, ``XMLFile``)."""
    if not 0 < k < len(raw) or not raw[k].isupper():
        return False
    return raw[k - 1].islower() or (raw[k - 1].isupper() and k + 1 < len(raw) and raw[k + 1].islower())


@dataclass(frozen=True)
class Pattern:
    """One way of writing a value: its words, how each step between two words may be written, its case splits.

    Attributes:
        value: The value it names.
        words: The normal tokens (fillers left out).
        steps: Per step between two words: ``"tight"`` or ``"open"`` (see the module docstring).
        inner: Per word, the positions where the value's own spelling changes case (``iPhone``: ``{1}``).
        literals: Per step, the punctuation the value writes there (``.`` in ``MPL-2.0.txt``), else ``""``.
        rank: :data:`FULL` (the value's own spelling, or an alias), :data:`FAMILY_LESS` or :data:`GUESSED`.
        bare: Whether a filler may also stand before the first word (a bare version number, ``v3.11``).
    """

    value: str
    words: tuple[str, ...]
    steps: tuple[str, ...]
    inner: tuple[frozenset[int], ...]
    rank: int
    bare: bool = False
    literals: tuple[str, ...] = ()

    def cut(self, start: int, stop: int, rank: int, *, bare: bool = False) -> Pattern:
        """The pattern of ``words[start:stop]`` (a family word or a trailing qualifier left out)."""
        words, steps, inner = self.words[start:stop], self.steps[start : stop - 1], self.inner[start:stop]
        return Pattern(self.value, words, steps, inner, rank, bare, self.literals[start : stop - 1])

    def with_head(self, word: str) -> Pattern:
        """The pattern with ``word`` put before its words (an abbreviated family word), ranked :data:`GUESSED`."""
        return Pattern(
            self.value,
            (word, *self.words),
            ("open", *self.steps),
            (frozenset(), *self.inner),
            GUESSED,
            False,
            ("", *self.literals),
        )

    def keys(self) -> Iterator[Entry]:
        """The compact keys of this pattern, with and without the optional fillers and the value's punctuation.

        Where the value writes punctuation between two words (``.`` in ``MPL-2.0.txt``), the question may write
        the same punctuation (a mark ``"exact"``) or any soft gap.
        """
        places = [
            s
            for s in range(len(self.words) - 1)
            if self.steps[s] == "open" and self.words[s][0].isalpha() and self.words[s + 1][0].isdigit()
        ][:MAX_FILLER_PLACES]
        punctuated = [s for s, literal in enumerate(self.literals) if literal][:MAX_FILLER_PLACES]
        heads = ("", *FILLERS) if self.bare else ("",)
        for head, *fills in itertools.product(heads, *[("", *FILLERS)] * len(places)):
            for kept in itertools.product((False, True), repeat=len(punctuated)):
                literal = {s for s, keep in zip(punctuated, kept, strict=True) if keep}
                yield self._key(head, dict(zip(places, fills, strict=True)), literal)

    def _key(self, head: str, fills: dict[int, str], literal: set[int]) -> Entry:
        key, marks = head, {}
        if head:
            marks[len(key)] = "free"
        for index, word in enumerate(self.words):
            if index:
                step = index - 1
                if step in literal:
                    marks[len(key)] = "exact"
                    key += self.literals[step]
                elif self.words[step][0].isdigit() and word[0].isdigit():
                    marks[len(key)] = "sep"
                    key += "|"
                elif fills.get(step):
                    marks[len(key)] = "free"
                    key += fills[step]
                    marks[len(key)] = "free"
                else:
                    marks[len(key)] = self.steps[step]
            marks.update((len(key) + k, "free") for k in self.inner[index])
            key += word
        return Entry(self.value, self.rank, self.words, key, marks)


@dataclass(frozen=True)
class Entry:
    """One compact key of a value and the marks that say how a question may write it."""

    value: str
    rank: int
    words: tuple[str, ...]
    key: str
    marks: dict[int, str] = field(hash=False, compare=False)


def parse(value: str) -> Pattern | None:
    """The pattern of ``value`` as written (None when it has no token)."""
    text = normal(value)
    parts = tokens(value)
    kept: list[Token] = []
    steps: list[str] = []
    literals: list[str] = []
    before: str | None = None  # how the previous kept token meets the next, spelled by the value
    for index, part in enumerate(parts):
        if index:
            before = before or _step(text, parts[index - 1], part)
        nxt = parts[index + 1] if index + 1 < len(parts) else None
        if kept and kept[-1].is_letters and part.text in FILLERS and nxt is not None and nxt.is_number:
            before = "open"  # ``XY v3``: the filler is optional, in the value as in a question
            continue
        if kept:
            steps.append(before or "open")
            between = text[kept[-1].end : part.start]
            literals.append(between if gap(text, kept[-1], part) == "hard" else "")
        kept.append(part)
        before = None
    if not kept:
        return None
    inner = tuple(_case_splits(text[t.start : t.end], t) for t in kept)
    return Pattern(value, tuple(t.text for t in kept), tuple(steps), inner, FULL, False, tuple(literals))


def _step(text: str, left: Token, right: Token) -> str:
    """``"tight"`` where a single letter is glued to the value's next or previous token (``A6``), else ``"open"``."""
    single = any(t.is_letters and len(t.text) == 1 and not t.is_cjk for t in (left, right))  # a Han character is a word
    return "tight" if single and gap(text, left, right) == "glued" else "open"


def _case_splits(raw: str, token: Token) -> frozenset[int]:
    if not token.is_letters or len(raw) != len(token.text):
        return frozenset()
    return frozenset(k for k in range(1, len(raw)) if camel(raw, k))
