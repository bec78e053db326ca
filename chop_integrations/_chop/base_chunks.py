"""CHOP on base chunks: the prefix template and the ``chop_*`` metadata, a splitter's strings mapped back to offsets.

Both are pure functions of their input, with no LLM and no engine state:

* :func:`render_prefix` turns a :class:`~chop_integrations.CNM` into the
  prefix that goes into ``embed_text`` (and :func:`signature_metadata` into the
  ``chop_*`` metadata keys the adapters rely on);
* :func:`split_offsets` turns the strings a third-party splitter returns into
  lossless ``(start, end)`` spans of the document.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._checks import chunk_metadata
from .._deciders import DocContext
from .._errors import ConfigurationError
from .._offline.naming import document_name
from .._offline.signature import spelling_key
from .._text.tokens import TokenCounter
from .._types import CNM, DEFAULT_PREFIX_TEMPLATE, Chunk, render_prefix

__all__ = [
    "ALIAS_SEPARATOR",
    "DEFAULT_PREFIX_TEMPLATE",
    "METADATA_KEYS",
    "NAME_KEYS",
    "check_template",
    "name_metadata",
    "render_prefix",
    "signature_metadata",
    "split_offsets",
]

#: Metadata keys CHOP adds to every chunk (the LangChain and LlamaIndex adapters rely on them).
METADATA_KEYS = (
    "chop_category",
    "chop_nouns",
    "chop_model",
    "chop_prefix",
    "chop_continues",
    "chop_model_source",
    "chop_aliases",
)
#: The keys of :data:`METADATA_KEYS` that say where the document's name came from and what else it calls itself.
NAME_KEYS = ("chop_model_source", "chop_aliases")
#: Between two aliases in ``chop_aliases`` (a str: every vector store keeps one; a list many drop).
ALIAS_SEPARATOR = " | "
_FIELDS = {"category", "nouns", "model"}
#: The largest width or precision a prefix template's format spec may ask for (``{model:>20}``).
MAX_FORMAT_WIDTH = 200
_ALIGN = frozenset("<>=^")


# -- the prefix -----------------------------------------------------------------------------------


def check_template(template: str) -> str:
    """Return ``template`` when it is a ``str.format`` template over ``{category}``, ``{nouns}``, ``{model}``.

    Raises:
        ConfigurationError: When it is not a str, cannot be parsed or rendered, or names another field.
    """
    if not isinstance(template, str):
        raise ConfigurationError(f"prefix must be a str, got {type(template).__name__}")
    try:
        fields = [(name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as err:
        raise ConfigurationError(
            f"prefix {template!r} is not a valid str.format template with the fields "
            f"{{category}}, {{nouns}} and {{model}}: {err}"
        ) from err
    names = {name for name, _ in fields}
    if names - _FIELDS:
        raise ConfigurationError(
            f"prefix may use only {{category}}, {{nouns}} and {{model}}; got {sorted(names - _FIELDS)} "
            "(write a literal brace as {{ or }})"
        )
    for _, spec in fields:
        _check_spec(template, spec or "")
    try:
        template.format(category="", nouns="", model="")
    except (ValueError, IndexError, KeyError, AttributeError) as err:
        raise ConfigurationError(f"prefix {template!r} cannot be rendered: {err}") from err
    return template


def _check_spec(template: str, spec: str) -> None:
    """Refuse a format spec that could make a huge prefix: a width or precision over :data:`MAX_FORMAT_WIDTH`.

    ``{model:>50000000}`` pads every chunk's prefix to 50 MB; a field inside the spec (``{model:>{nouns}}``)
    would take its width from the document's own text, so it is refused too.

    Raises:
        ConfigurationError: On such a spec.
    """
    if len(template) > 80:
        template = template[:77] + "..."
    if "{" in spec or "}" in spec:
        raise ConfigurationError(f"prefix {template!r}: a format spec may not hold a field ({spec!r})")
    if len(spec) >= 2 and spec[1] in _ALIGN:
        spec = spec[2:]  # a fill character (which may be a digit) and an alignment
    elif spec[:1] in _ALIGN:
        spec = spec[1:]
    for digits in re.findall(r"\d+", spec):
        number = digits.lstrip("0")
        if len(number) > len(str(MAX_FORMAT_WIDTH)) or int(number or "0") > MAX_FORMAT_WIDTH:
            raise ConfigurationError(
                f"prefix {template!r}: a format width or precision must be <= {MAX_FORMAT_WIDTH}, got {digits[:12]}"
            )


def signature_metadata(
    cnm: CNM | None, prefix: str, continues: bool | None, names: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The :data:`METADATA_KEYS` of one chunk, the same in every framework.

    One type per key, and only values every vector store keeps (LangChain's
    ``filter_complex_metadata`` keeps str/int/float/bool and drops None and lists):
    ``chop_category``, ``chop_model`` and ``chop_prefix`` are strings (``""`` when
    unknown), ``chop_nouns`` is the nouns comma-joined, and ``chop_continues`` is a
    bool: False for a document's first chunk, which continues nothing and gets a
    fresh signature. ``chop_model_source`` says where the model came from (``"model"``, ``"title"``,
    ``"file"``, ``"text"`` as :func:`~chop_integrations._offline.naming.document_name` found it, ``"chunks"``
    when a decider named it, ``""`` without one) and ``chop_aliases`` the other names the document gives
    itself, joined by :data:`ALIAS_SEPARATOR`; both are read from ``names`` (the chunk's own metadata, where
    the engine wrote them), ``""`` when absent.
    """
    names = names or {}
    return {
        "chop_category": (cnm.category if cnm else None) or "",
        "chop_nouns": ", ".join(cnm.nouns) if cnm else "",
        "chop_model": (cnm.model if cnm else None) or "",
        "chop_prefix": prefix,
        "chop_continues": bool(continues),
        "chop_model_source": str(names.get("chop_model_source") or "") if cnm and cnm.model else "",
        "chop_aliases": str(names.get("chop_aliases") or "") if cnm and cnm.model else "",
    }


def name_metadata(doc: DocContext, cnm: CNM | None) -> dict[str, str]:
    """The :data:`NAME_KEYS` of ``doc``'s chunks whose signature is ``cnm``: where its model came from, its aliases.

    The source is the one :func:`~chop_integrations._offline.naming.document_name` found when the model is that
    name (in any spelling), ``"chunks"`` when a decider named the document otherwise; the aliases are every
    other name the document gives itself.
    """
    model = cnm.model if cnm is not None else None
    if not model:
        return {"chop_model_source": "", "chop_aliases": ""}
    name, key = document_name(doc), spelling_key(model)
    source = name.source if name.value and spelling_key(name.value) == key else "chunks"
    aliases = [a for a in (name.value, *name.aliases) if a and spelling_key(a) != key]
    return {"chop_model_source": source, "chop_aliases": ALIAS_SEPARATOR.join(a.replace("|", " ") for a in aliases)}


# -- mapping a splitter's strings back to offsets -------------------------------------------------


def _locate(text: str, piece: str, cursor: int, previous_start: int) -> tuple[int, int] | None:
    """Where ``piece`` lies in ``text``: right after ``cursor`` (skipping a gap), or overlapping the previous piece."""
    after = text.find(piece, cursor)
    if after >= 0 and (not text[cursor:after].strip() or after == cursor):
        return after, after + len(piece)
    overlap = text.find(piece, previous_start + 1)
    if 0 <= overlap < cursor:
        return overlap, overlap + len(piece)
    if after >= 0:
        return after, after + len(piece)
    words = piece.split()
    if not words:
        return None
    loose = re.compile(r"\s*".join(re.escape(w) for w in words))
    found = loose.search(text, previous_start + 1 if previous_start >= 0 else 0)
    return (found.start(), found.end()) if found else None


def _checked_piece(index: int, piece: object) -> str:
    if not isinstance(piece, str):
        raise ConfigurationError(f"the chunker returned a {type(piece).__name__} at {index}; it must return strings")
    return piece


def split_offsets(text: str, pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Turn a splitter's strings into lossless ``(start, end)`` spans of ``text``.

    Each piece is found in ``text`` (exactly, or ignoring whitespace the splitter
    changed); a chunk then runs from its piece's start to the next piece's start,
    so whatever the splitter dropped (whitespace between pieces, a leading or
    trailing gap) is kept and overlapping pieces become adjacent spans. The spans
    concatenate to ``text``.

    Raises:
        ConfigurationError: When a piece is not a string, or not in the text at all.
    """
    starts: list[int] = []
    cursor, previous_start = 0, -1
    for index, piece in enumerate(pieces):
        if not _checked_piece(index, piece).strip():
            continue
        span = _locate(text, piece, cursor, previous_start)
        if span is None:
            raise ConfigurationError(
                f"the chunker's piece {index} ({piece[:40]!r}...) is not in the document; CHOP needs a splitter "
                "that returns slices of its input (whitespace may differ)"
            )
        start = span[0] if not starts else max(span[0], starts[-1] + 1)
        if start >= len(text):
            continue
        starts.append(start)
        cursor, previous_start = max(cursor, span[1]), start
    if not text:
        return []
    if not starts:
        return [(0, len(text))]
    starts[0] = 0
    return list(zip(starts, [*starts[1:], len(text)], strict=True))


def split_chunks(doc: DocContext, pieces: Sequence[str], count: TokenCounter) -> list[Chunk]:
    """Chunks of ``doc`` from a splitter's strings, with lossless offsets (see :func:`split_offsets`)."""
    return [
        Chunk(
            text=doc.text[start:end],
            start=start,
            end=end,
            token_count=count(doc.text[start:end]),
            metadata=chunk_metadata(doc, index, start),
        )
        for index, (start, end) in enumerate(split_offsets(doc.text, pieces))
    ]


Splitter = Callable[[str], Sequence[str]]


def splitter_of(chunker: Any) -> Splitter | None:
    """How CHOP splits with a given base chunker.

    ``None`` for an engine (one with ``chunk_many`` and ``achunk_many``), else the function that splits a
    text: ``split_text`` of a LangChain splitter, or the callable itself.

    Raises:
        ConfigurationError: When ``chunker`` is none of these.
    """
    if callable(getattr(chunker, "achunk_many", None)) and callable(getattr(chunker, "chunk_many", None)):
        return None
    if callable(getattr(chunker, "split_text", None)):
        return chunker.split_text
    if callable(chunker):
        return chunker
    raise ConfigurationError(
        "chunker must be None, a LumberChunker, a Callable[[str], list[str]] or an object with split_text; "
        f"got {type(chunker).__name__}"
    )
