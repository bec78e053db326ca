"""The data the engines produce: units, chunks and CNM signatures.

Every chunk and unit carries exact character offsets into the source text, so
``text[chunk.start:chunk.end] == chunk.text`` always holds and the chunks of a
document, concatenated in order, give back the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Longest value a CNM field may hold after sanitising (characters).
MAX_FIELD_CHARS = 80
#: The default separator between CNM fields in a prefix.
FIELD_SEPARATOR = " | "
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_SPACES = re.compile(r"\s+")


def sanitize_field(value: str | None) -> str | None:
    """Make a CNM value safe to put in a one-line prefix.

    Removes control, zero-width and bidi characters, collapses whitespace and
    newlines, strips the prefix delimiter characters ``|``, ``[`` and ``]`` so a
    value can never forge a field or close the prefix, and caps the length at
    :data:`MAX_FIELD_CHARS`. Returns ``None`` for values that end up empty or
    that spell a null (``"null"``, ``"none"``, ``"n/a"``, ``"unknown"``).
    """
    if value is None:
        return None
    text = _CONTROL.sub(" ", str(value))
    text = text.replace("|", " ").replace("[", " ").replace("]", " ")
    text = _SPACES.sub(" ", text).strip(" \"'`.,;:-")
    if text.lower() in {"", "null", "none", "n/a", "na", "unknown", "-"}:
        return None
    return text[:MAX_FIELD_CHARS].rstrip()


class CNM(BaseModel):
    """A Category-Nouns-Model signature, CHOP's compact description of a chunk.

    Attributes:
        category: The broad product or document family (``"air conditioner"``).
        nouns: One or two key nouns for the chunk's target or action.
        model: The specific model or series name (``"225B"``).

    Values are sanitised on construction (see :func:`sanitize_field`); missing
    fields are ``None`` (or an empty ``nouns`` list).
    """

    model_config = ConfigDict(frozen=True, extra="ignore", protected_namespaces=())

    category: str | None = Field(default=None, description="Broad product or document family, or null.")
    nouns: list[str] = Field(default_factory=list, description="One or two key nouns for the chunk's subject.")
    model: str | None = Field(default=None, description="Specific model or series name, or null.")

    @field_validator("category", "model", mode="before")
    @classmethod
    def _clean_scalar(cls, value: Any) -> str | None:
        if isinstance(value, (list, tuple)):
            value = " ".join(str(v) for v in value if v is not None)
        return sanitize_field(None if value is None else str(value))

    @field_validator("nouns", mode="before")
    @classmethod
    def _clean_nouns(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [part for part in re.split(r"[;,]", value)]
        if not isinstance(value, (list, tuple)):
            value = [value]
        cleaned = [sanitize_field(None if v is None else str(v)) for v in value]
        return [v for v in cleaned if v][:2]

    def is_empty(self) -> bool:
        """True when no field carries a value."""
        return self.category is None and not self.nouns and self.model is None

    def format(self, template: str | None = None) -> str:
        """Render the signature as an embedding prefix, exactly as CHOPChunker does.

        Args:
            template: A ``str.format`` template with the fields ``category``,
                ``nouns`` (joined with ``", "``) and ``model``; ``None`` for CHOP's
                default. Missing fields render empty; an empty signature renders ``""``.
        """
        from .chop.text import DEFAULT_PREFIX_TEMPLATE, render_prefix  # chop_text imports this module

        return render_prefix(self, template or DEFAULT_PREFIX_TEMPLATE)


@dataclass(frozen=True)
class Unit:
    """The smallest piece the engines move: a paragraph or a piece of one.

    Attributes:
        start: Offset of the first character in the source text.
        end: Offset one past the last character.
        text: ``source[start:end]``, including trailing whitespace.
        tokens: Token count of ``text``.
        heading: True when the unit opens with a heading-like line.
    """

    start: int
    end: int
    text: str
    tokens: int
    heading: bool = False


@dataclass
class Chunk:
    """A piece of a document with exact offsets and its CHOP signature.

    Attributes:
        text: The stored text, exactly ``source[start:end]``.
        start: Offset of the first character in the source document.
        end: Offset one past the last character.
        token_count: Token count of ``text``.
        metadata: The document's metadata plus what the engines add.
        cnm: The CHOP signature, or ``None`` where CHOP did not run.
        continues_previous: CHOP's continuity decision against the chunk before
            (``None`` for a document's first chunk or where CHOP did not run).
        prefix: The rendered signature that goes in front of the text for
            embedding; never part of ``text``.
    """

    text: str
    start: int
    end: int
    token_count: int
    metadata: dict[str, Any] = field(default_factory=dict)
    cnm: CNM | None = None
    continues_previous: bool | None = None
    prefix: str = ""

    @property
    def embed_text(self) -> str:
        """The text to embed: the CNM prefix followed by the stored text."""
        return self.prefix + self.text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (the shape the CLI writes, less ``doc``)."""
        return {
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "embed_text": self.embed_text,
            "prefix": self.prefix,
            "cnm": None if self.cnm is None else self.cnm.model_dump(),
            "continues_previous": self.continues_previous,
            "token_count": self.token_count,
            "metadata": self.metadata,
        }
