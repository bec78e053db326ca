"""The category lexicon: broad product and document families with trigger words.

A category is chosen by scoring trigger words over what a document says about
itself: its hints (title, file name), its cover (first lines) and its body. Users
extend or replace the lexicon (``OfflineCNMExtractor(lexicon=...)``); nothing here
names a particular product, brand or model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

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
    _entry("tablet", ["tablet"], ["tablet", "pad"], 8.0),
    _entry(
        "smartwatch",
        ["wear", "wrist", "strap", "band", "heart rate", "workout", "sleep", "watch face", "steps", "exercise"],
        ["watch", "band", "tracker", "wearable", "fitness"],
        0.9,
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
    _entry("laptop", ["laptop", "touchpad", "bios", "docking station"], ["laptop", "notebook"], 2.0),
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
        0.8,
    ),
    _entry(
        "software documentation",
        ["install", "api", "function", "parameter", "command", "configuration", "import", "returns"],
        ["docs", "api", "sdk", "reference"],
        0.7,
    ),
)

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def _count(phrase: str, text_lower: str) -> int:
    return len(re.findall(r"(?<![^\W_])" + re.escape(phrase) + r"(?![^\W_])", text_lower))


class Lexicon:
    """Scores categories over a document's hints, cover and body.

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
            extra = [_entry(name, words, words, 1.0) for name, words in extra.items()]
        for entry in extra or ():
            table[entry.name] = entry
        self.entries: tuple[CategoryEntry, ...] = tuple(table.values())
        self.min_score = min_score

    def scores(self, *, names: str, cover: str, body: str) -> dict[str, float]:
        """Score every category.

        Args:
            names: Title, file name and other self-descriptions (name cues weigh most here).
            cover: The document's first lines (name cues and triggers both count).
            body: The document's text (triggers count per 10,000 words, times their weight).
        """
        names_l, cover_l, body_l = names.lower(), cover.lower(), body.lower()
        words = max(len(_WORD.findall(body_l)), 1)
        scale = 10_000 / words  # counts per 10k words, so long documents do not win by length
        out: dict[str, float] = {}
        for entry in self.entries:
            score = 0.0
            for cue in entry.name_cues:
                score += 60.0 * min(_count(cue, names_l), 1) + 30.0 * min(_count(cue, cover_l), 1)
                score += 5.0 * _count("your " + cue, body_l) * scale  # how the text addresses its subject
            for trigger, weight in entry.triggers.items():
                score += weight * _count(trigger, body_l) * scale
            out[entry.name] = score
        return out

    def categorize(self, *, names: str, cover: str, body: str) -> str | None:
        """The best-scoring category, or None when nothing scores at least ``min_score``."""
        scores = self.scores(names=names, cover=cover, body=body)
        if not scores:
            return None
        best = max(scores, key=lambda name: scores[name])
        return best if scores[best] >= self.min_score else None
