"""The data the engines produce: units, chunks and CNM signatures.

Every chunk and unit carries exact character offsets into the source text, so
``text[chunk.start:chunk.end] == chunk.text`` always holds and the chunks of a
document, concatenated in order, give back the document.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._defaults import DEFAULT_PREFIX_TEMPLATE

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
    value = str(value)
    return _sanitized(value) if len(value) <= _CACHED_CHARS else _sanitize(value)


def _sanitize(value: str) -> str | None:
    text = _CONTROL.sub(" ", value)
    text = text.replace("|", " ").replace("[", " ").replace("]", " ")
    text = _SPACES.sub(" ", text).strip(" \"'`.,;:-")
    if text.lower() in {"", "null", "none", "n/a", "na", "unknown", "-"}:
        return None
    return text[:MAX_FIELD_CHARS].rstrip()


#: Values up to this long are cleaned once each (a run's signatures repeat their category, model and headings).
_CACHED_CHARS = 200
_sanitized = functools.lru_cache(maxsize=4096)(_sanitize)


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
        return render_prefix(self, template or DEFAULT_PREFIX_TEMPLATE)


_set_attribute = object.__setattr__


def clean_cnm(category: str | None, nouns: list[str], model: str | None, fields_set: set[str]) -> CNM:
    """A :class:`CNM` of values its validators would leave as they are, built as ``CNM.model_construct`` builds one.

    ``model_construct`` looks each field's aliases up before it sets the same four attributes; for a signature per
    chunk that lookup is most of the cost. ``fields_set`` is taken as it is (signatures may share one: it is
    never changed in place). The tests hold this to ``model_construct``.
    """
    cnm = CNM.__new__(CNM)
    _set_attribute(cnm, "__dict__", {"category": category, "nouns": nouns, "model": model})
    _set_attribute(cnm, "__pydantic_fields_set__", fields_set)
    _set_attribute(cnm, "__pydantic_extra__", None)
    _set_attribute(cnm, "__pydantic_private__", None)
    return cnm


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


# -- rendering a signature as a prefix ----------------------------------------------------------
#: Characters stripped from CNM values when the template uses them as delimiters.
_DELIMITERS = set('[](){}<>|«»"`#*:')


def render_prefix(cnm: CNM | None, template: str = DEFAULT_PREFIX_TEMPLATE) -> str:
    """Render a signature as an embedding prefix that no CNM value can break.

    Values are already sanitised by :class:`~chop_integrations.CNM` (no
    newlines, control characters, ``|``, ``[`` or ``]``); here any other
    delimiter the template itself uses (brackets, quotes, ``#``, ``*``, ``:``) is
    removed from the values too, so a value can never close the prefix or forge
    a field, and a value with no letter or digit counts as empty. An empty
    signature renders as ``""``.
    """
    return "" if cnm is None else render_fields(cnm.category, cnm.nouns, cnm.model, template)


def render_fields(category: str | None, nouns: Sequence[str], model: str | None, template: str) -> str:
    """:func:`render_prefix` of a signature's fields, sanitised as :class:`CNM` holds them, with no CNM built.

    For callers that render a signature of their own making per chunk (building a CNM costs more than rendering it).
    """
    if category is None and not nouns and model is None:
        return ""
    kept = ", ".join([clean for noun in nouns if (clean := _clean(noun, template))])
    return _framed(category, model, template, bool(kept)).replace(_NOUNS, kept)


@functools.lru_cache(maxsize=4096)
def _framed(category: str | None, model: str | None, template: str, nouns: bool) -> str:
    """``template`` rendered with ``category`` and ``model``, the nouns' placeholder left in when ``nouns``.

    Once per document's fields: a run's signatures share their category and model, and differ in the nouns alone.
    (Sanitised values hold no control character, so none holds a placeholder.)
    """
    first, last = _clean(category, template), _clean(model, template)
    # The clean-up works on the template's skeleton (each value a placeholder), so a value's own
    # characters ("<", ":") are never taken for the template's delimiters.
    rendered = _skeleton(template, (bool(first), nouns, bool(last)))
    return rendered.replace(_CATEGORY, first).replace(_MODEL, last)


_CATEGORY, _NOUNS, _MODEL = "\x01category\x02", "\x01nouns\x02", "\x01model\x02"


@functools.lru_cache(maxsize=4096)
def _clean(value: str | None, template: str) -> str:
    """``value`` without the delimiters ``template`` uses (once per value: a run's signatures repeat theirs)."""
    if not value:
        return ""
    value = " ".join(value.translate(_banned(template)).split())
    # A value with no letter or digit ("-", ">") says nothing and would print as a stray delimiter.
    return value if any(c.isalnum() for c in value) else ""


@functools.lru_cache(maxsize=64)
def _banned(template: str) -> dict[int, str]:
    """A ``str.translate`` table turning the delimiters ``template``'s own text uses into spaces."""
    literal = "".join(text for text, _, _, _ in string.Formatter().parse(template))
    return {ord(c): " " for c in literal if c in _DELIMITERS}


@functools.lru_cache(maxsize=256)
def _skeleton(template: str, filled: tuple[bool, bool, bool]) -> str:
    """``template`` cleaned of its empty fields, each filled one a placeholder (category, nouns, model in order).

    The same few skeletons serve every chunk of a run, so each is cleaned once.
    """
    names = ("category", "nouns", "model")
    return _drop_empty_fields(
        template.format(**{k: f"\x01{k}\x02" if v else _EMPTY for k, v in zip(names, filled, strict=True)})
    )


#: Stands for an empty field while the rendered template is cleaned up (a character no value can hold).
_EMPTY = "\x00"
_SEP = r"[|,;:/>\-]"
_INNER_SEP = r"[|,;:/]"  # separators inside brackets (">" and "-" may be brackets or words there)
_EMPTY_AFTER_SEP = re.compile(r"[ \t]*" + _SEP + r"?[ \t]*\x00")
_EMPTY_BEFORE_SEP = re.compile(r"\x00[ \t]*" + _SEP + r"?[ \t]*")
_LEADING_EMPTY = re.compile(r"^\s*(?:\x00[ \t]*" + _SEP + r"?[ \t]*)+")
_FILLER = r"[\s\x00|,;:/\-]*"  # what an empty bracket pair may hold
_EMPTY_PAIR = re.compile(rf"\[{_FILLER}\]|\({_FILLER}\)|\{{{_FILLER}\}}|<{_FILLER}>|\"{_FILLER}\"|#{_FILLER}#")
_LEADING_SEP = re.compile(r"^[\s|,;:/]+")
_TRAILING_SEP = re.compile(r"[\s|,;:/]+$")
_SEP_BEFORE_CLOSE = re.compile(r"[ \t]*" + _INNER_SEP + r"[ \t]*(?=[\])}])")
_SEP_AFTER_OPEN = re.compile(r"(?<=[\[({])[ \t]*" + _INNER_SEP + r"[ \t]*")


def _drop_empty_fields(skeleton: str) -> str:
    """Remove each empty field with one separator beside it, then empty brackets and dangling separators.

    Works on a skeleton where empty fields are a NUL and the others placeholders, so values
    never count as delimiters. ``"[ | Battery | ]"`` with an empty category and model becomes
    ``"[Battery]"``; a template whose fields are all empty renders ``""``.
    """
    if _EMPTY not in skeleton:
        return skeleton
    end = skeleton[len(skeleton.rstrip()) :]  # the template's own trailing whitespace, kept
    text = _pairs(skeleton)  # "<\x00>", "(\x00)": the field and its brackets go together
    # An empty field in front of a separator goes with that separator ("\x00 | x" -> "x");
    # otherwise it goes with the separator before it ("x | \x00" -> "x").
    text = _LEADING_EMPTY.sub("", text)
    text = _EMPTY_AFTER_SEP.sub("", text)
    text = _EMPTY_BEFORE_SEP.sub("", text).replace(_EMPTY, "")
    text = _pairs(_SEP_BEFORE_CLOSE.sub("", _SEP_AFTER_OPEN.sub("", text)))
    text = " ".join(_TRAILING_SEP.sub("", _LEADING_SEP.sub("", text)).split(" "))
    if "\x01" not in text:
        return ""
    return text + end


def _pairs(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, _EMPTY_PAIR.sub("", text)
    return text
