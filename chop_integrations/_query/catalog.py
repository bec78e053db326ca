"""The signature values a store holds, taken from what ingestion emitted.

A question can only be matched against models the store has. Those values come from the chunks
themselves: count them while you ingest (:meth:`SignatureCatalog.add`, :meth:`SignatureCatalog.from_chunks`)
and save the catalog beside the store (:meth:`SignatureCatalog.save`), or read them back from the store's
metadata later (:meth:`SignatureCatalog.from_metadata`; the adapters do that for their stores). No list is
ever kept by hand, so a model added to the store is known the moment its chunks are.
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
#: The format of :meth:`SignatureCatalog.to_dict` (and of the saved file).
_VERSION = 1


class SignatureCatalog:
    """How many chunks carry each ``chop_model`` and ``chop_category`` value. Thread-safe.

    Args:
        models: Known model values with their chunk counts (or an iterable of values, each counted once).
        categories: The same for categories.
    """

    def __init__(
        self, models: Iterable[str] | Mapping[str, int] = (), categories: Iterable[str] | Mapping[str, int] = ()
    ):
        self._models: Counter[str] = Counter()
        self._categories: Counter[str] = Counter()
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

    def add(self, metadata: Mapping[str, Any]) -> None:
        """Count one chunk's signature from its metadata (the adapters' ``chop_model``/``chop_category`` keys)."""
        with self._lock:
            for key, counter in ((MODEL_KEY, self._models), (CATEGORY_KEY, self._categories)):
                self._count(counter, (metadata.get(key),))

    def add_chunk(self, chunk: Chunk) -> None:
        """Count one engine chunk's signature (its ``cnm``)."""
        if chunk.cnm is not None:
            self.add({MODEL_KEY: chunk.cnm.model or "", CATEGORY_KEY: chunk.cnm.category or ""})

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

    def __len__(self) -> int:
        return len(self._models)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SignatureCatalog) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"SignatureCatalog({len(self._models)} models, {len(self._categories)} categories)"

    # -- persisting -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view: ``{"version": 1, "models": {...}, "categories": {...}}``."""
        return {
            "version": _VERSION,
            "models": dict(sorted(self.models.items())),
            "categories": dict(sorted(self.categories.items())),
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
        return cls(models, categories)

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
