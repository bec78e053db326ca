"""What the adaptive prefix knows of a corpus, as an object you pass, persist and share.

The adaptive prefix (:mod:`.prefix`) prints a field only when it tells documents apart, so its
choice depends on the corpus, not on one call alone. That knowledge is a :class:`CorpusState`:
the distinct document names and categories seen. A chunker without one starts every call from
an empty state, so a call's chunks depend only on its input and options; give it
``corpus=state`` and every call reads and adds to ``state``, across calls and chunkers. Save it
beside your vector store (:meth:`CorpusState.save`, :meth:`CorpusState.load`) and a later process
that re-ingests one edited document prints the fields the corpus run printed.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._errors import ConfigurationError, InputError
from .._types import CNM

__all__ = ["CorpusState", "check_corpus"]

#: The fields a corpus state counts: the document-level ones (a chunk's section is the run's own business).
_FIELDS = ("model", "category")
#: How many distinct values a state keeps per field: the prefix only asks "one, or two and more?".
_KEEP = 64
#: The format of :meth:`CorpusState.to_dict` (and of the saved file).
_VERSION = 1


class CorpusState:
    """The distinct document names (``model``) and categories the adaptive prefix has seen, case-folded.

    Thread-safe: concurrent calls of one or several chunkers may share it. Values are kept up to
    64 per field (enough to know "two or more").

    Args:
        model: Document names known in advance.
        category: Categories known in advance.
    """

    def __init__(self, *, model: Sequence[str] = (), category: Sequence[str] = ()) -> None:
        self._seen: dict[str, set[str]] = {name: set() for name in _FIELDS}
        self._lock = threading.Lock()
        self._add("model", model)
        self._add("category", category)

    def __getstate__(self) -> dict[str, Any]:
        return {"_seen": self._seen}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._seen = state["_seen"]
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        known = self.to_dict()
        return f"CorpusState(model={known['model']!r}, category={known['category']!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CorpusState) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def observe(self, documents: Sequence[CNM | None]) -> dict[str, int]:
        """Add each document's name and category; return how many distinct values of each are known."""
        for name in _FIELDS:
            self._add(name, [getattr(signature, name) for signature in documents if signature is not None])
        return self.counts()

    def counts(self) -> dict[str, int]:
        """How many distinct names (``model``) and categories are known."""
        with self._lock:
            return {name: len(values) for name, values in self._seen.items()}

    def names(self) -> set[str]:
        """The distinct document names known (case-folded)."""
        with self._lock:
            return set(self._seen["model"])

    def to_dict(self) -> dict[str, Any]:
        """``{"version": 1, "model": [...], "category": [...]}``, the lists sorted: JSON as it is."""
        with self._lock:
            return {"version": _VERSION, **{name: sorted(values) for name, values in self._seen.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CorpusState:
        """The state :meth:`to_dict` returned.

        Raises:
            InputError: When ``data`` is not such a dict (another version, a list of non-strings).
        """
        if not isinstance(data, Mapping) or data.get("version") != _VERSION:
            raise InputError(f"not a corpus state of version {_VERSION}: {_short(data)}")
        for name in _FIELDS:
            values = data.get(name, [])
            if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
                raise InputError(f"a corpus state's {name!r} must be a list of str, got {_short(values)}")
        return cls(model=data.get("model", []), category=data.get("category", []))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the state to ``path`` as JSON, atomically: a reader sees the old file or the new one, never half."""
        target = Path(path)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(self.to_dict(), file, indent=1, sort_keys=True)
                file.write("\n")
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, missing_ok: bool = False) -> CorpusState:
        """The state saved at ``path`` (an empty one when the file does not exist and ``missing_ok``).

        Raises:
            FileNotFoundError: When there is no such file and not ``missing_ok``.
            InputError: When the file is not a saved corpus state (it is left as it is).
        """
        target = Path(path)
        if missing_ok and not target.exists():
            return cls()
        raw = target.read_text(encoding="utf-8")
        try:
            data = json.loads(raw)
        except ValueError as err:
            raise InputError(f"{target} is not a saved CorpusState (invalid JSON: {err})") from err
        try:
            return cls.from_dict(data)
        except InputError as err:
            raise InputError(f"{target} is not a saved CorpusState: {err}") from err

    def _add(self, name: str, values: Sequence[str | None]) -> None:
        with self._lock:
            seen = self._seen[name]
            for value in values:
                if value and len(seen) < _KEEP:
                    seen.add(value.casefold())


def check_corpus(corpus: object) -> CorpusState | None:
    """``corpus`` when it is a :class:`CorpusState` or None.

    Raises:
        ConfigurationError: Otherwise.
    """
    if corpus is not None and not isinstance(corpus, CorpusState):
        raise ConfigurationError(f"corpus must be a CorpusState or None, got {type(corpus).__name__}")
    return corpus


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
