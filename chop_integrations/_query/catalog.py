"""The signature values a store holds, taken from what ingestion emitted.

A question can only be matched against models the store has. Those values come from the chunks
themselves: count them while you ingest (:meth:`SignatureCatalog.add`, :meth:`SignatureCatalog.from_chunks`)
and save the catalog beside the store (:meth:`SignatureCatalog.save`), or read them back from the store's
metadata later (:meth:`SignatureCatalog.from_metadata`; the adapters do that for their stores). No list is
ever kept by hand, so a model added to the store is known the moment its chunks are.

A chunk may also carry the other names its document gives itself (``chop_aliases``: ``"Mozilla Public
License 2.0 | MPL 2.0 | mpl-2.0"``); the catalog records each as a name of the chunk's model
(:attr:`SignatureCatalog.aliases`).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._types import Chunk

__all__ = ["SignatureCatalog"]

#: The metadata keys the adapters write a chunk's signature under.
MODEL_KEY = "chop_model"
CATEGORY_KEY = "chop_category"
#: The other names a chunk's document gives itself, joined by :data:`ALIAS_SEPARATOR`.
ALIASES_KEY = "chop_aliases"
ALIAS_SEPARATOR = " | "
#: The format of :meth:`SignatureCatalog.to_dict` (and of the saved file).
_VERSION = 1


class SignatureCatalog:
    """How many chunks carry each ``chop_model`` and ``chop_category`` value, and each model's aliases. Thread-safe.

    Args:
        models: Known model values with their chunk counts (or an iterable of values, each counted once).
        categories: The same for categories.
    """

    def __init__(
        self, models: Iterable[str] | Mapping[str, int] = (), categories: Iterable[str] | Mapping[str, int] = ()
    ):
        self._models: Counter[str] = Counter()
        self._categories: Counter[str] = Counter()
        self._aliases: dict[str, set[str]] = {}  # alias -> the models whose chunks gave it
        self._lock = threading.Lock()
        self._count(self._models, models)
        self._count(self._categories, categories)

    @staticmethod
    def _count(counter: Counter[str], values: Iterable[Any] | Mapping[str, int]) -> None:
        items = values.items() if isinstance(values, Mapping) else ((v, 1) for v in values)
        for value, count in items:
            if isinstance(value, str) and value.strip():
                counter[value] += int(count)  # as the store holds it: the filters match on this exact value

    # -- building -------------------------------------------------------------------------------

    def _alias(self, model: str, aliases: Iterable[str]) -> None:
        for alias in aliases:
            self._aliases.setdefault(alias, set()).add(model)

    def add(self, metadata: Mapping[str, Any]) -> None:
        """Count one chunk's signature from its metadata (the adapters' ``chop_model``/``chop_category`` keys).

        Its ``chop_aliases`` (names joined by ``" | "``) are recorded as names of its ``chop_model``.
        """
        with self._lock:
            for key, counter in ((MODEL_KEY, self._models), (CATEGORY_KEY, self._categories)):
                self._count(counter, (metadata.get(key),))
            model = metadata.get(MODEL_KEY)
            if isinstance(model, str) and model.strip():
                self._alias(model, split_aliases(metadata.get(ALIASES_KEY)))

    def add_chunk(self, chunk: Chunk) -> None:
        """Count one engine chunk's signature (its ``cnm``, and the ``chop_aliases`` of its metadata)."""
        if chunk.cnm is not None:
            self.add(
                {
                    MODEL_KEY: chunk.cnm.model or "",
                    CATEGORY_KEY: chunk.cnm.category or "",
                    ALIASES_KEY: chunk.metadata.get(ALIASES_KEY),
                }
            )

    @classmethod
    def from_chunks(cls, chunks: Iterable[Chunk]) -> SignatureCatalog:
        """The catalog of engine chunks (:class:`~chop_integrations.Chunk` with a signature)."""
        catalog = cls()
        for chunk in chunks:
            catalog.add_chunk(chunk)
        return catalog

    @classmethod
    def from_metadata(cls, metadatas: Iterable[Mapping[str, Any] | None]) -> SignatureCatalog:
        """The catalog of chunk metadata as a store gives it back (LangChain ``Document.metadata``, node metadata)."""
        catalog = cls()
        for metadata in metadatas:
            if metadata:
                catalog.add(metadata)
        return catalog

    # -- reading --------------------------------------------------------------------------------

    @property
    def models(self) -> dict[str, int]:
        """Each known model value and how many chunks carry it."""
        with self._lock:
            return dict(self._models)

    @property
    def categories(self) -> dict[str, int]:
        """Each known category value and how many chunks carry it."""
        with self._lock:
            return dict(self._categories)

    @property
    def aliases(self) -> dict[str, str]:
        """Each other name of a known model, and that model (``alias -> model``).

        Left out: an alias two different models claim, and one that reads as a model value itself
        (the same but for case and spacing): a name that could mean either model names neither.
        """
        with self._lock:
            claims = {alias: set(models) for alias, models in self._aliases.items()}
            taken = {_folded(model) for model in self._models}
        by_form: dict[str, set[str]] = {}
        for alias, models in claims.items():
            by_form.setdefault(_folded(alias), set()).update(models)
        return {
            alias: next(iter(models))
            for alias, models in sorted(claims.items())
            if len(by_form[_folded(alias)]) == 1 and _folded(alias) not in taken
        }

    def __len__(self) -> int:
        return len(self._models)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SignatureCatalog) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"SignatureCatalog({len(self._models)} models, {len(self._categories)} categories)"

    # -- persisting -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view: ``{"version": 1, "models": {...}, "categories": {...}, "aliases": {...}}``.

        ``aliases`` maps each model to the names its chunks gave it, every one recorded (also those
        :attr:`aliases` leaves out), sorted.
        """
        with self._lock:
            models, categories = dict(self._models), dict(self._categories)
            by_model: dict[str, list[str]] = {}
            for alias, owners in self._aliases.items():
                for model in owners:
                    by_model.setdefault(model, []).append(alias)
        return {
            "version": _VERSION,
            "models": dict(sorted(models.items())),
            "categories": dict(sorted(categories.items())),
            "aliases": {model: sorted(names) for model, names in sorted(by_model.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SignatureCatalog:
        """The catalog :meth:`to_dict` described.

        Raises:
            InputError: When ``data`` is not such a view.
        """
        if not isinstance(data, Mapping) or data.get("version") != _VERSION:
            raise InputError(f"not a signature catalog of version {_VERSION}: {str(data)[:80]!r}")
        models, categories = data.get("models", {}), data.get("categories", {})
        if not isinstance(models, Mapping) or not isinstance(categories, Mapping):
            raise InputError("a signature catalog's models and categories must be objects of value -> count")
        bad = [
            v
            for v in (*models.values(), *categories.values())
            if not isinstance(v, int) or isinstance(v, bool) or v < 0
        ]
        if bad:
            raise InputError(f"a signature catalog's counts must be integers >= 0, got {bad[0]!r}")
        aliases = data.get("aliases", {})  # absent from views written before aliases were recorded
        if not isinstance(aliases, Mapping) or not all(
            isinstance(model, str) and isinstance(names, list | tuple) and all(isinstance(n, str) for n in names)
            for model, names in aliases.items()
        ):
            raise InputError("a signature catalog's aliases must be an object of model -> list of names")
        unknown = [model for model in aliases if model not in models]
        if unknown:
            raise InputError(f"a signature catalog's aliases name a model it does not count: {unknown[0]!r}")
        catalog = cls(models, categories)
        for model, names in aliases.items():
            catalog._alias(model, split_aliases(names))
        return catalog

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the catalog to ``path`` as JSON, atomically (a reader never sees half a file)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(self.to_dict(), handle, ensure_ascii=False, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SignatureCatalog:
        """Read a catalog :meth:`save` wrote.

        Raises:
            InputError: When the file is missing, not JSON or not a catalog.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read a signature catalog from {str(path)!r}: {exc}") from exc
        return cls.from_dict(data)


def split_aliases(value: Any) -> list[str]:
    """The names in a ``chop_aliases`` value: a str split on ``" | "`` (or a list of names), stripped, none empty."""
    if isinstance(value, str):
        parts: Iterable[Any] = value.split(ALIAS_SEPARATOR)
    elif isinstance(value, list | tuple):
        parts = value
    else:
        return []
    return [name for part in parts if isinstance(part, str) and (name := part.strip())]


def _folded(name: str) -> str:
    """A name as compared with others: case and runs of spaces do not count."""
    return " ".join(name.split()).casefold()
