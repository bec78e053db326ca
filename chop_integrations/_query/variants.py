"""Which forms of the known values the name reader looks for: full, family-less, abbreviated, shortened, aliases.

Everything here is read from the known values themselves (no word list): a family word is a leading word
that several values share (:func:`family_words`); a qualifier is a trailing word of letters and digits that
several values end with (``5G``); an abbreviation is a prefix of a family word that no other family word
shares. A shorter form that two values give, or that is another value's own name, is dropped, so a member the
store lacks never reads as its sibling.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

from .forms import FAMILY_LESS, GUESSED, Pattern, parse
from .normal import is_cjk, normal, tokens

__all__ = ["FAMILY_MIN_VALUES", "Forms", "family_words"]

logger = logging.getLogger("chop_integrations")

#: A leading word shared by at least this many values is a family word (two values already show the word
#: is not what tells them apart; chosen from the issue's wording, not from data).
FAMILY_MIN_VALUES = 2
#: A trailing qualifier (``5G``) may be left out only when at least this many values end with it (same reason).
QUALIFIER_MIN_VALUES = 2
#: The shortest prefix of a family word read as its abbreviation (``py`` for ``Python``).
MIN_ABBREVIATION = 2

Words = tuple[str, ...]


def _first_word(value: str) -> Words:
    """The tokens of the value's first whitespace-separated word."""
    words = normal(value).split()
    return tuple(t.text for t in tokens(words[0])) if words else ()


def family_words(values: Iterable[str]) -> set[Words]:
    """Leading words that at least :data:`FAMILY_MIN_VALUES` values share and that are letters only (hyphens too).

    ``Galaxy`` in ``Galaxy S10``, ``Galaxy A6``; ``ThinkPad`` in ``ThinkPad X1``, ``ThinkPad T14``. A word
    that starts many values names their family, not one of them, so a question may leave it out.
    """
    counts: Counter[Words] = Counter()
    for value in set(values):
        first = _first_word(value)
        if first and all(word.isalpha() for word in first) and len(normal(value).split()) > 1:
            counts[first] += 1
    return {word for word, count in counts.items() if count >= FAMILY_MIN_VALUES}


def _distinctive(words: Words) -> bool:
    """Whether a value's remainder is name-like enough to stand alone: two tokens or more, one of them letters.

    ``S10``, ``Z Flip``, ``Tab A 10.5``, ``13 Pro Max`` are; ``Fit``, ``3`` and ``10+`` are not (an
    ordinary word or a bare number would read models into ordinary questions, see :func:`_ordinary`).
    """
    return _word_count(words) >= 2 and any(w[0].isalpha() for w in words)


def _ordinary(words: Words) -> bool:
    """Whether a name is one word of letters only (``Python``, ``Requests``, ``numpy``, ``Fit``).

    Such a name is also an ordinary word ("Use the Python library" in another project's README), so reading
    it offline would be a guess; the offline reader leaves it to the LLM path (or to a filter the caller sets).
    """
    return _word_count(words) == 1 and words[0][0].isalpha()


def _word_count(words: Words) -> int:
    """How many words ``words`` are, a run of Han, kana or hangul characters (one token each) counting as one."""
    return sum(1 for k, w in enumerate(words) if not (k and is_cjk(w) and is_cjk(words[k - 1])))


def unnameable(value: str) -> str | None:
    """Why ``value`` cannot name anything in a question (None when it can)."""
    words = tuple(t.text for t in tokens(value))
    if not words:
        return "it has no letter or digit"
    if sum(len(w) for w in words) <= 1:
        return "it is one character"
    if not any(w[0].isalpha() for w in words):
        return "it is only a number"
    return None


class Forms:
    """The patterns of the known values (and aliases), with what the reader needs to judge a mention's edges.

    Attributes:
        values: The kept values, sorted.
        patterns: Every form looked for.
        exact: Full names (and one-word ones) by their tokens, for an LLM's answer.
        leading: Words that go on into more of a known name (``Tab`` in ``Tab S6``).
        variants: Words that turn one known name into another after a number (``Active``).
        extensions: For each known name, the words that carry it on into a longer known one.
    """

    def __init__(self, values: Iterable[str], *, drop_family: bool, aliases: Mapping[str, str]) -> None:
        self.values: list[str] = []
        for value in sorted({v for v in values if isinstance(v, str) and v.strip()}):
            reason = unnameable(value)
            if reason:
                logger.warning("query reader: the known value %r is ignored: %s", value, reason)
            else:
                self.values.append(value)
        self.exact: dict[Words, set[str]] = defaultdict(set)
        self.leading: set[str] = set()
        full = [p for p in map(parse, self.values) if p is not None]
        for pattern in full:
            self.exact[pattern.words].add(pattern.value)
            self.leading.update(w for w in pattern.words[:-1] if w[0].isalpha() and len(w) > 1)
        named = [p for p in full if not _ordinary(p.words)]  # a one-word name: an LLM may still name it
        shorter = self._family_less(named) if drop_family else []
        own = named + [p for p in self._aliases(aliases, {p.value for p in full}) if not _ordinary(p.words)]
        self.variants, self.extensions = self._variant_words({p.words for p in own + shorter})
        self.patterns: list[Pattern] = (
            own + shorter + self._abbreviated(shorter, named) + self._shortened(named + shorter)
        )

    def _family_less(self, named: list[Pattern]) -> list[Pattern]:
        """The values without their family word, where what remains still looks like a name."""
        families = family_words(self.values)
        one_family = len(families) == 1 and all(_first_word(v) in families for v in self.values)
        out = []
        for pattern in named:
            first = _first_word(pattern.value)
            if first not in families or pattern.words[: len(first)] != first:
                continue
            rest = pattern.words[len(first) :]
            version = one_family and len(rest) == 1 and rest[0][0].isdigit() and "." in rest[0]
            if _distinctive(rest) or version:
                out.append(pattern.cut(len(first), len(pattern.words), FAMILY_LESS, bare=version))
        return out

    def _abbreviated(self, shorter: list[Pattern], named: list[Pattern]) -> list[Pattern]:
        """Family-less forms led by a prefix of their family word that no other family word (nor name word) shares."""
        families = [f[0] for f in family_words(self.values) if len(f) == 1]
        taken = {w for p in named for w in p.words}
        out = []
        for pattern in shorter:
            family = _first_word(pattern.value)
            if len(family) != 1:
                continue  # a hyphened family word (``common-licenses``) is not abbreviated
            for size in range(MIN_ABBREVIATION, len(family[0])):
                prefix = family[0][:size]
                if prefix not in taken and sum(f.startswith(prefix) for f in families) == 1:
                    out.append(pattern.with_head(prefix))
        return out

    def _shortened(self, patterns: list[Pattern]) -> list[Pattern]:
        """Forms without a trailing qualifier (``Galaxy S20 Ultra`` for ``Galaxy S20 Ultra 5G``), when unique.

        A qualifier is a value's last word, of letters and digits both, that at least
        :data:`QUALIFIER_MIN_VALUES` values end with and that no two known names differ by.
        """
        names = {p.words for p in patterns}
        tails: dict[str, Words] = {}
        for value in self.values:
            last = normal(value).split()[-1]
            if any(c.isdigit() for c in last) and any(c.isalpha() for c in last) and len(normal(value).split()) > 1:
                tails[value] = tuple(t.text for t in tokens(last))
        counts = Counter(tails.values())
        qualifiers = {t for t, n in counts.items() if n >= QUALIFIER_MIN_VALUES}
        for pattern in patterns:
            tail = tails.get(pattern.value)
            if tail in qualifiers and pattern.words[-len(tail) :] == tail and pattern.words[: -len(tail)] in names:
                qualifiers.discard(tail)  # ``S20`` and ``S20 5G`` both known: the word tells them apart
        claims: dict[Words, list[Pattern]] = defaultdict(list)
        for pattern in patterns:
            tail = tails.get(pattern.value)
            if tail in qualifiers and pattern.words[-len(tail) :] == tail:
                cut = pattern.cut(0, len(pattern.words) - len(tail), GUESSED)
                if _distinctive(cut.words) and cut.words not in names:
                    claims[cut.words].append(cut)
        return [forms[0] for forms in claims.values() if len({p.value for p in forms}) == 1]

    def _aliases(self, aliases: Mapping[str, str], known: set[str]) -> list[Pattern]:
        """The aliases' patterns, read as their values; one that two values claim, or that names another value, goes."""
        claims: dict[Words, list[Pattern]] = defaultdict(list)
        for alias, value in aliases.items():
            pattern = parse(alias) if isinstance(alias, str) and not unnameable(alias) else None
            if value not in known or pattern is None:
                logger.warning("query reader: the alias %r of %r is ignored (no known value, or no name)", alias, value)
                continue
            claims[pattern.words].append(replace(pattern, value=value))
        out = []
        for words, forms in claims.items():
            owners = {p.value for p in forms} | self.exact.get(words, set())
            if len(owners) == 1:
                out.append(forms[0])
            else:
                logger.warning("query reader: the alias %r names %d values; ignored", forms[0].words, len(owners))
        return out

    @staticmethod
    def _variant_words(names: set[Words]) -> tuple[set[str], dict[Words, set[str]]]:
        """Words that turn one known name into another after a number, and each name's extensions.

        ``Active`` when ``S7`` and ``S7 Active`` are known. Read from pairs of known names (in full or without
        the family word), so a word merely following a number in one name (``LICENSE`` in ``jinja2 LICENSE
        txt``) is not one. The extensions: for each name, the words that carry it on into a longer known name.
        """
        variants: set[str] = set()
        extensions: dict[Words, set[str]] = {}
        for words in names:
            for cut in range(1, len(words)):
                head, after = words[:cut], words[cut]
                if head in names:
                    extensions.setdefault(head, set()).add(after)
                    if head[-1][0].isdigit() and after[0].isalpha():
                        variants.add(after)
        return variants, extensions
