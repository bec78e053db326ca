"""What CHOP's prompts show of a chunk: compact heads and tails within a token budget, and document hints.

Token cost matters, so no prompt shows a whole chunk: a continuity prompt shows
the tail of ``C_i`` and the head of ``C_i+1``, a CNM prompt the head of the chunk,
each squeezed by :func:`compact` and cut to the :class:`PromptBudget`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from .._deciders import DocContext
from .._errors import ConfigurationError
from .._offline.signature import caller_identity, spelling_key
from .._text.headings import outline_of
from .._text.tokens import TokenCounter
from .._types import Chunk

__all__ = ["PromptBudget", "compact", "head", "hint_line", "pair_context", "section_hint", "tail"]


@dataclass(frozen=True)
class PromptBudget:
    """How much of each chunk the prompts show, in tokens.

    Attributes:
        tail_tokens: Tokens from the end of ``C_i`` in a continuity prompt.
        head_tokens: Tokens from the start of ``C_i+1`` in a continuity prompt.
        cnm_tokens: Tokens from the start of a chunk in a CNM (or combined) prompt.
        window_tokens: Window mode: most tokens of passages shown in one prompt.
        window_chunks: Window mode: most passages judged in one prompt.

    Raises:
        ConfigurationError: When a field is not a positive int.
    """

    tail_tokens: int = 32
    head_tokens: int = 48
    cnm_tokens: int = 80
    window_tokens: int = 1500
    window_chunks: int = 24

    def __post_init__(self) -> None:
        for name in ("tail_tokens", "head_tokens", "cnm_tokens", "window_tokens", "window_chunks"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ConfigurationError(f"PromptBudget.{name} must be a positive int, got {getattr(self, name)!r}")


_BLANKS = re.compile(r"[ \t\f\v\u00a0\u3000]+")
_NEWLINES = re.compile(r"\s*\n\s*")
_SYMBOL_RUNS = re.compile(r"([^\w\s])(?:\s*[^\w\s]){3,}")
_MAX_CHARS_PER_TOKEN = 6


def compact(text: str) -> str:
    """Squeeze whitespace and runs of symbols (table rules, dot leaders) that cost tokens and say nothing."""
    text = _SYMBOL_RUNS.sub(r"\1", text)
    text = _BLANKS.sub(" ", text)
    return _NEWLINES.sub("\n", text).strip()


def _fit(text: str, max_tokens: int, count: TokenCounter, *, from_end: bool) -> str:
    """The longest head (or tail) of ``text`` within ``max_tokens``, cut at a space where one is near."""
    text = compact(text)
    if not text:
        return ""
    chars = min(len(text), max_tokens * _MAX_CHARS_PER_TOKEN)
    piece = text[-chars:] if from_end else text[:chars]
    tokens = count(piece)
    while tokens > max_tokens and chars > 1:
        chars = max(1, min(chars - 1, int(chars * max_tokens / tokens * 0.95)))
        piece = text[-chars:] if from_end else text[:chars]
        tokens = count(piece)
    if chars == len(text):
        return piece
    # Cut at a word boundary when one lies close to the edge (never for unspaced scripts).
    edge = piece.find(" ") if from_end else piece.rfind(" ")
    if from_end and 0 <= edge < len(piece) // 4:
        piece = piece[edge + 1 :]
    elif not from_end and edge > len(piece) * 3 // 4:
        piece = piece[:edge]
    return "..." + piece if from_end else piece + "..."


def head(text: str, max_tokens: int, count: TokenCounter) -> str:
    """The compacted start of ``text``, at most ``max_tokens`` tokens (plus an ellipsis when cut)."""
    return _fit(text, max_tokens, count, from_end=False)


def tail(text: str, max_tokens: int, count: TokenCounter) -> str:
    """The compacted end of ``text``, at most ``max_tokens`` tokens (plus an ellipsis when cut)."""
    return _fit(text, max_tokens, count, from_end=True)


def hint_line(doc: DocContext) -> str:
    """One short line naming the document: the caller's name for it, title, file name, known category and model."""
    parts = []
    hints = doc.hints
    name = caller_identity(doc)
    shown = spelling_key(" ".join(str(hints.get(k) or "") for k in ("title", "source", "model")))
    if name and spelling_key(name) not in shown:
        parts.append(f'name "{compact(name)[:80]}"')  # e.g. from a LlamaIndex file_name, not shown otherwise
    if hints.get("title"):
        parts.append(f'title "{compact(str(hints["title"]))[:120]}"')
    if hints.get("source"):
        parts.append(f'file "{PurePath(str(hints["source"])).name[:120]}"')
    for key in ("category", "model"):
        if hints.get(key):
            parts.append(f'{key} "{compact(str(hints[key]))[:80]}"')
    return "Document: " + ", ".join(parts) + "\n" if parts else ""


def _source_of(chunk: Chunk, source_key: str) -> str | None:
    value = chunk.metadata.get(source_key)
    return None if value is None else str(value)


def pair_context(previous: Chunk, current: Chunk, source_key: str) -> str:
    """Names both files when the pair straddles two documents (only with new_document_resets=False)."""
    a, b = _source_of(previous, source_key), _source_of(current, source_key)
    if a is not None and b is not None and a != b:
        return f'A is from "{PurePath(a).name[:80]}", B from "{PurePath(b).name[:80]}".\n'
    return ""


def section_hint(chunk: Chunk, doc: DocContext) -> str:
    """``"(section: A > B) "``: the headings a chunk sits under, when it does not open with them; else ``""``.

    So the LLM sees the heading path the offline extractor would give, also for a chunk
    in the middle of a section.
    """
    if doc.text[chunk.start : chunk.end] != chunk.text:
        return ""
    path = outline_of(doc.text).path(chunk.start, chunk.end)
    opening = chunk.text.lstrip().splitlines()[0].lstrip("#").strip() if chunk.text.strip() else ""
    if not path or path[-1] == opening:
        return ""
    return f"(section: {compact(' > '.join(path))[:120]}) "
