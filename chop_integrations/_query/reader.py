"""Which of the store's known models (and categories) a question names.

PLACEHOLDER matching (exact, case-insensitive, at token boundaries, the longest value wins); the tolerant
reader replaces the internals of :meth:`QueryReader.read` without changing this interface.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .catalog import SignatureCatalog

__all__ = ["QueryReader", "QueryReading"]


@dataclass(frozen=True)
class QueryReading:
    """What a question names among the known values; every field None when it names none (or is ambiguous).

    Attributes:
        model: A known ``chop_model`` value, exactly as the store holds it.
        category: A known ``chop_category`` value, when categories are read.
        mention: The question's own words that named the model.
    """

    model: str | None = None
    category: str | None = None
    mention: str | None = None

    def __bool__(self) -> bool:
        return self.model is not None or self.category is not None

    def metadata_filter(self) -> dict[str, str]:
        """Equality conditions on the adapters' metadata keys (``{}`` when nothing was read)."""
        conditions = {}
        if self.model is not None:
            conditions["chop_model"] = self.model
        if self.category is not None:
            conditions["chop_category"] = self.category
        return conditions


class QueryReader:
    """Reads a question against the known signature values, offline (optionally with an LLM).

    Args:
        models: The known ``chop_model`` values (a catalog's ``models``, or any iterable of values).
        categories: The known ``chop_category`` values; read only when ``read_categories`` is true.
        read_categories: Also name a category (off by default: a category is rarely what tells documents apart).
        llm: An optional model asked to name the model when the offline reading finds none; its answer counts
            only when it is one of the known values.
    """

    def __init__(
        self,
        models: Iterable[str] | Mapping[str, int] = (),
        categories: Iterable[str] | Mapping[str, int] = (),
        *,
        read_categories: bool = False,
        llm: Any = None,
    ) -> None:
        self.models = sorted({m for m in models if isinstance(m, str) and m.strip()})
        self.categories = sorted({c for c in categories if isinstance(c, str) and c.strip()})
        self.read_categories = read_categories
        self.llm = llm

    @classmethod
    def from_catalog(cls, catalog: SignatureCatalog, **options: Any) -> QueryReader:
        """A reader of the values ``catalog`` counted."""
        return cls(catalog.models, catalog.categories, **options)

    def read(self, question: str) -> QueryReading:
        """The known model (and category) ``question`` names; an empty reading when none or ambiguous."""
        model, mention = _longest(question, self.models)
        category = _longest(question, self.categories)[0] if self.read_categories else None
        return QueryReading(model=model, category=category, mention=mention)

    async def aread(self, question: str) -> QueryReading:
        """:meth:`read`, awaitable (the LLM path is asynchronous)."""
        return self.read(question)


def _longest(question: str, values: list[str]) -> tuple[str | None, str | None]:
    found = [
        (len(v), v, m.group(0))
        for v in values
        if (m := re.search(rf"(?<!\w){re.escape(v)}(?!\w)", question, flags=re.IGNORECASE))
    ]
    if not found:
        return None, None
    found.sort(reverse=True)
    if len(found) > 1 and found[0][0] == found[1][0]:
        return None, None
    return found[0][1], found[0][2]
