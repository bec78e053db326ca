"""The category lexicon: broad product and document families with trigger words.

A category is chosen by scoring trigger words over what a document says about
itself: its hints (title, file name), its cover (first lines) and its body. Users
extend or replace the lexicon (``OfflineCNMExtractor(lexicon=...)``); nothing here
names a particular product, brand or model.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .._defaults import (
    ADDRESS_WEIGHT,
    COVER_WEIGHT,
    MIN_ADDRESS_RATE,
    MIN_ADDRESS_SHARE,
    MIN_ADDRESSES,
    NAME_WEIGHT,
)

__all__ = ["DEFAULT_LEXICON", "CategoryEntry", "Lexicon"]


@dataclass(frozen=True)
class CategoryEntry:
    """One category and the words that suggest it.

    Attributes:
        name: The category as it appears in a CNM (``"air conditioner"``).
        triggers: Words or phrases that suggest the category in body text, with weights.
        name_cues: Words that, in a title, file name or cover line, strongly suggest it
            (``"tablet"``, ``"pad"``): scored much higher than body triggers.
    """

    name: str
    triggers: Mapping[str, float]
    name_cues: tuple[str, ...] = field(default=())


def _entry(name: str, triggers: Iterable[str], name_cues: Iterable[str] = (), weight: float = 1.0) -> CategoryEntry:
    return CategoryEntry(name, {t: weight for t in triggers}, tuple(name_cues))


DEFAULT_LEXICON: tuple[CategoryEntry, ...] = (
    _entry(
        "smartphone",
        ["phone", "call log", "voicemail", "dial", "text message", "ringtone"],
        ["phone", "smartphone", "mobile"],
    ),
    _entry("tablet", ["tablet"], ["tablet", "pad"]),
    _entry(
        "smartwatch",
        ["wear", "wrist", "strap", "band", "heart rate", "workout", "sleep", "watch face", "steps", "exercise"],
        ["watch", "band", "tracker", "wearable", "fitness"],
    ),
    _entry("camera", ["lens", "shutter", "aperture", "iso", "exposure", "viewfinder", "flash", "tripod"], ["camera"]),
    _entry(
        "air conditioner",
        ["cooling", "heating", "air filter", "refrigerant", "indoor unit", "outdoor unit", "thermostat", "fan speed"],
        ["air conditioner", "aircon", "hvac", "heat pump"],
    ),
    _entry(
        "washing machine",
        ["wash", "laundry", "detergent", "spin", "rinse", "drum", "fabric softener", "load"],
        ["washer", "washing machine", "dryer"],
    ),
    _entry(
        "refrigerator",
        ["freezer", "fridge", "ice maker", "crisper", "refrigerator", "compartment"],
        ["refrigerator", "fridge", "freezer"],
    ),
    _entry(
        "printer", ["print", "toner", "ink", "cartridge", "paper tray", "scanner", "print head"], ["printer", "mfp"]
    ),
    _entry("router", ["router", "ethernet", "wan", "lan port", "ssid", "firmware", "modem", "mesh"], ["router"]),
    _entry("laptop", ["laptop", "touchpad", "bios", "docking station"], ["laptop", "notebook"]),
    _entry("television", ["tv", "channel", "remote control", "hdmi", "antenna", "picture mode"], ["tv", "television"]),
    _entry(
        "headphones", ["earbuds", "headphones", "ear tips", "noise cancelling", "charging case"], ["buds", "headphones"]
    ),
    _entry("car", ["vehicle", "engine", "tyre", "tire", "brake", "steering", "dashboard", "fuel"], ["car", "vehicle"]),
    _entry(
        "legal contract",
        ["agreement", "party", "parties", "hereby", "clause", "liability", "termination", "governing law"],
        ["agreement", "contract"],
    ),
    _entry(
        "novel",
        ["chapter", "said", "replied", "miss", "mrs", "mr", "herself", "himself", "felt"],
        ["novel", "story", "tale"],
    ),
    _entry(
        "software documentation",
        ["install", "api", "function", "parameter", "command", "configuration", "import", "returns"],
        ["docs", "api", "sdk", "reference"],
    ),
)

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
#: An ASCII text's shape for :func:`_word_count`: a letter or digit is ``a``, a joiner of :data:`_WORD` ``-``, the rest
#: a space.
_SHAPES = bytes(97 if chr(i).isalnum() and i < 128 else 45 if chr(i) in "-'" else 32 for i in range(256))
#: Characters past ASCII: a text with a few of them is shaped for :func:`_word_count` once they are replaced.
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
#: The shape with its joiners as spaces: each run of ``a`` starts after a space.
_RUNS = bytes.maketrans(b"-", b" ")
#: A joiner between two runs of letters or digits, which it ties into one word (``wi-fi``). Joiners are few, and
#: a pattern that opens with one is looked for as quickly as a plain character.
_JOINED = re.compile(rb"-(?<=a-)(?=a)")

# The evidence weights and floors (NAME_WEIGHT ... MIN_ADDRESS_SHARE) are in chop_integrations/_defaults.py.
# Body trigger words alone are too weak ("engine" in a software README, "sleep" in chat logs), so they never
# pick a category; ``"your device"`` 46 times against ``"your smartphone"`` 17 is a wearable's manual that
# pairs with a phone, not a phone's (MIN_ADDRESS_SHARE: the category must be the most addressed).
#: The words with which a text addresses its own subject ("your phone", "this tablet").
_ADDRESS = ("your", "this")
#: "your <word>" or "your <word> <word>", to look the addressed phrase up among the name cues. The check that no
#: letter or digit comes before the word follows the word (both are four letters), so the scan jumps to a "y" or "t".
_ADDRESSED = re.compile(r"(your|this)(?<![^\W_].{4})\s+([^\W_]+)(?:\s+([^\W_]+))?")
#: Each address word alone: a plain word is found by a quick substring search, where :data:`_ADDRESSED`'s own scan
#: stops at every "y" and "t".
_ADDRESS_WORDS = tuple(re.compile(word) for word in _ADDRESS)


def _addressed(text: str) -> list[tuple[str, ...]]:
    """``_ADDRESSED.findall(text)``: its matches, tried only where an address word stands, left to right."""
    found: list[tuple[str, ...]] = []
    end = 0
    for start in sorted([m.start() for pattern in _ADDRESS_WORDS for m in pattern.finditer(text)]):
        match = _ADDRESSED.match(text, start) if start >= end else None  # (no overlap, as findall)
        if match is not None:
            found.append(match.groups(default=""))
            end = match.end()
    return found


def _matcher(phrases: Iterable[str]) -> re.Pattern[str]:
    """One regex for all ``phrases`` (longest first), matching whole words only."""
    return _compiled(frozenset(p for p in phrases if p))


@functools.lru_cache(maxsize=256)
def _compiled(phrases: frozenset[str]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=lambda p: (-len(p), p))
    body = "|".join(r"\s+".join(map(re.escape, p.split())) for p in ordered) or r"(?!)"
    return re.compile(r"(?<![^\W_])(?:" + body + r")(?![^\W_])")


def _phrase_counts(text_lower: str, matcher: re.Pattern[str]) -> Counter[str]:
    """How often each phrase of ``matcher`` occurs in ``text_lower`` (one C-speed pass; no overlaps)."""
    return Counter(" ".join(m.split()) for m in matcher.findall(text_lower))


def _word_count(text: str) -> int:
    """How many words :data:`_WORD` finds in ``text``, counted in C-speed passes over an ASCII text's shape.

    Words are the runs of letters and digits, less the runs that a single joiner ties to the run before (``a-b``).
    """
    if not text.isascii():
        if len(text.encode("utf-8", "surrogatepass")) - len(text) > len(text) // 8:  # (a lone surrogate too)
            return len(_WORD.findall(text))  # (mostly non-ASCII: CJK, say)
        text = _NON_ASCII.sub(_ascii_shape, text)  # (a few: each run of them by its shape, then as ASCII)
    shape = text.encode("ascii").translate(_SHAPES)
    return shape.translate(_RUNS).count(b" a") + shape.startswith(b"a") - len(_JOINED.findall(shape))


def _ascii_shape(run: re.Match[str]) -> str:
    """A run of non-ASCII characters as :data:`_WORD` reads them: ``a`` for a letter or digit, else a space."""
    return "".join("a" if char.isalnum() else " " for char in run.group())


@functools.lru_cache(maxsize=1024)
def _phrase(text: str) -> str:
    """A cue or trigger as the text's words (lowercased, one space apart); kept, as each document reads them all."""
    return " ".join(_WORD.findall(text.lower()))


class Lexicon:
    """Scores categories over a document's hints, cover and body.

    A category is returned only on strong evidence: the document names its kind in its
    title, file name or cover (a *name cue*), or its body addresses it (``"your tablet"``)
    again and again. Body trigger words rank those candidates but never pick one alone.

    Args:
        entries: The categories; defaults to :data:`DEFAULT_LEXICON`.
        extra: More entries, or a mapping ``{category: [trigger words]}``; an extra entry
            with a name already present replaces it.
        min_score: Below this best score the category is unknown (``None``).
    """

    def __init__(
        self,
        entries: Iterable[CategoryEntry] | None = None,
        *,
        extra: Iterable[CategoryEntry] | Mapping[str, Iterable[str]] | None = None,
        min_score: float = 3.0,
    ) -> None:
        table = {e.name: e for e in (DEFAULT_LEXICON if entries is None else entries)}
        if isinstance(extra, Mapping):
            extra = [_entry(name, words, words) for name, words in extra.items()]
        for entry in extra or ():
            table[entry.name] = entry
        self.entries: tuple[CategoryEntry, ...] = tuple(table.values())
        self.min_score = min_score
        self._names = _matcher(_phrase(c) for e in self.entries for c in e.name_cues)

    def scores(self, *, names: str, cover: str, body: str) -> dict[str, float]:
        """Score every category; 0.0 for a category without strong evidence (see the class docstring).

        Args:
            names: Title, file name and other self-descriptions (name cues weigh most here).
            cover: The document's first lines (name cues count).
            body: The document's text (addresses and triggers count per 10,000 words).
        """
        body_l = body.lower()
        names_c, cover_c = _phrase_counts(names.lower(), self._names), _phrase_counts(cover.lower(), self._names)
        found = _addressed(body_l)  # "your phone", and "your air conditioner" for two-word cues
        addresses = Counter([f"{w} {a}" for w, a, _ in found] + [f"{w} {a} {b}" for w, a, b in found if b])
        top = max((n for k, n in addresses.items() if k.count(" ") == 1), default=0)  # the most addressed thing
        scale = 0.0  # counts per 10k words, so long documents do not win by length (the words counted on first need)
        out: dict[str, float] = {}
        for entry in self.entries:
            cues = [_phrase(c) for c in entry.name_cues]
            named = sum(NAME_WEIGHT * min(names_c[c], 1) + COVER_WEIGHT * min(cover_c[c], 1) for c in cues)
            addressed = sum(addresses[f"{w} {c}"] for c in cues for w in _ADDRESS)
            if addressed < max(MIN_ADDRESSES, MIN_ADDRESS_SHARE * top):
                addressed = 0
            if not named and not addressed:
                out[entry.name] = 0.0
                continue
            scale = scale or 10_000 / max(_word_count(body_l), 1)
            if addressed * scale < MIN_ADDRESS_RATE:
                addressed = 0
            if not named and not addressed:
                out[entry.name] = 0.0
                continue
            # Only a category with evidence reads its trigger words (one regex pass each; few ever do).
            counts = _phrase_counts(body_l, _matcher(_phrase(t) for t in entry.triggers))
            triggers = sum(weight * counts[_phrase(t)] for t, weight in entry.triggers.items())
            out[entry.name] = named + (ADDRESS_WEIGHT * addressed + triggers) * scale
        return out

    def categorize(self, *, names: str, cover: str, body: str) -> str | None:
        """The best-scoring category, or None when nothing scores at least ``min_score``."""
        scores = self.scores(names=names, cover=cover, body=body)
        if not scores:
            return None
        best = max(scores, key=lambda name: scores[name])
        return best if scores[best] >= self.min_score else None
