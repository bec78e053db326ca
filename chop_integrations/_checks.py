"""Plumbing the engines share: argument checks, document contexts, chunk metadata.

Both :class:`~chop_integrations.LumberChunker` and the CHOP engine take
documents with optional metadata, name each document for error messages, and
give every chunk a copy of its document's metadata. Those small steps live here
so both engines do them the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any, get_args

from ._deciders import DocContext
from ._errors import ConfigurationError, InputError


def doc_id(metadata: dict[str, Any] | None, index: int) -> str:
    """The identifier used for a document in errors and logs.

    Args:
        metadata: The document's metadata; ``source`` wins over ``doc_id``.
        index: The document's position in the batch, used when neither key is set.
    """
    for key in ("source", "doc_id"):
        value = (metadata or {}).get(key)
        if value not in (None, ""):
            return str(value)
    return str(index)


def check_text(text: Any, index: int = 0) -> str:
    """Return ``text`` if it is a string.

    Raises:
        InputError: When it is not (bytes must be decoded first).
    """
    if isinstance(text, str):
        return text
    hint = " (decode bytes first, e.g. data.decode('utf-8'))" if isinstance(text, (bytes, bytearray)) else ""
    raise InputError(f"document {index} must be a str, got {type(text).__name__}{hint}")


def check_metadata(metadata: Any, index: int = 0) -> dict[str, Any]:
    """Return a copy of ``metadata`` (``None`` gives ``{}``).

    Raises:
        InputError: When it is not a mapping.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InputError(f"metadata of document {index} must be a dict or None, got {type(metadata).__name__}")
    return dict(metadata)


def doc_context(text: Any, metadata: Any, index: int) -> DocContext:
    """Check one document and describe it for the deciders.

    Raises:
        InputError: When the text is not a string or the metadata not a dict.
    """
    checked = check_metadata(metadata, index)
    return DocContext(
        doc_id=doc_id(checked, index),
        text=check_text(text, index),
        metadata=checked,
    )


def batch(texts: Sequence[str], metadatas: Sequence[dict[str, Any] | None] | None) -> list[DocContext]:
    """Check a batch of documents and their metadata.

    Raises:
        InputError: When ``texts`` is a single string or the lengths differ.
    """
    if isinstance(texts, str):
        raise InputError("texts must be a sequence of strings; for one document call chunk(text)")
    texts = list(texts)
    if metadatas is None:
        metas: list[Any] = [None] * len(texts)
    else:
        metas = list(metadatas)
        if len(metas) != len(texts):
            raise InputError(f"got {len(texts)} texts but {len(metas)} metadatas; pass one metadata per text")
    return [doc_context(text, meta, i) for i, (text, meta) in enumerate(zip(texts, metas, strict=True))]


def chunk_metadata(doc: DocContext, chunk_index: int, start: int) -> dict[str, Any]:
    """A chunk's metadata: a copy of the document's plus ``chunk_index`` and ``start_index``."""
    metadata = dict(doc.metadata)
    metadata["chunk_index"] = chunk_index
    metadata["start_index"] = start
    return metadata


#: The longest ``timeout=`` in seconds (about 31 years): below what the event loop and threads can wait.
MAX_TIMEOUT = 1e9
#: The largest whole-number option (``max_tokens``, ``max_concurrency``...): a billion tokens or calls is past
#: any real use, and larger numbers overflow the float arithmetic that sizes windows and shares.
MAX_INT_OPTION = 10**9


def optional_timeout(value: Any) -> float | None:
    """Validate a ``timeout=`` option: None, or a positive, finite number of seconds.

    NaN compares false with every bound and is refused (every call would end "timed out after nan s"), and so
    are infinity and anything over :data:`MAX_TIMEOUT` (None means no limit; the event loop cannot schedule a
    deadline of ``10**400`` seconds).

    Raises:
        ConfigurationError: When ``value`` is neither.
    """
    if value is not None and not (is_number(value) and 0 < value <= MAX_TIMEOUT):
        raise ConfigurationError(
            f"timeout must be a number of seconds > 0 and <= {MAX_TIMEOUT:g} (None: no limit), got {shown(value)}"
        )
    return value


def is_number(value: Any) -> bool:
    """True for an int or a float (a bool is neither here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """``repr(value)`` for a message, an int of more than 30 digits by its size (its repr may not even be made)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of about 10**{int(abs(value).bit_length() * 0.30103)}"
    return repr(value)


def positive_int(name: str, value: Any, *, minimum: int = 1, maximum: int = MAX_INT_OPTION) -> int:
    """Validate an integer option.

    Raises:
        ConfigurationError: When ``value`` is not an int from ``minimum`` to ``maximum``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name} must be an integer >= {minimum}, got {shown(value)}")
    if value > maximum:
        raise ConfigurationError(f"{name} must be an integer <= {maximum} (at least {minimum}), got {shown(value)}")
    return value


def check_choice(name: str, value: Any, choices: Any) -> Any:
    """Validate a mode-like option against the ``Literal`` type that declares it.

    Every mode-like option (``mode``, ``paper_restart``, ``decisions``, ``on_llm_error``) is
    a ``Literal`` and is checked here, at construction, so the message has one shape.

    Args:
        name: The option's name, for the message.
        value: The value given.
        choices: The option's ``Literal[...]`` type.

    Returns:
        ``value``, unchanged.

    Raises:
        ConfigurationError: When ``value`` is not one of the literal's values.
    """
    allowed = get_args(choices)
    if value not in allowed:
        shown = [repr(choice) for choice in allowed]
        listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
        raise ConfigurationError(f"{name} must be {listed}, got {value!r}")
    return value


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """A ``" (did you mean 'x'?)"`` hint naming the choice closest to a misspelt ``value``, or ``""``."""
    close = difflib.get_close_matches(value, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
