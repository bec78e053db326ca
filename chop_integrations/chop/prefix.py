"""Which signature fields enter the embedding prefix: adaptive (the default), the fixed template, or yours.

``prefix="adaptive"`` chooses the fields from corpus statistics, the CHOP authors' own
future work: a field earns its place in front of every chunk only when it tells chunks apart.

* ``model`` (the document's name) when at least two documents have different names;
  dropped with one document, or none named;
* ``category`` when documents fall into at least two categories; dropped when all
  share one (or none has one);
* ``nouns`` (the chunk's section heading) when chunks name at least two different sections,
  and only beside the document's name: a chunk whose prefix cannot say which document it is
  from gets no section heading either (see below).

The kept fields render in CHOP's own shape, ``model: [category | section | model] ``,
with the dropped and the empty fields left out along with their separators (``model: [section | model] ``).
The model printed at both ends outweighs section titles that many documents share, and the
innermost heading alone dilutes the name least; without a name to go with it, a section title
that many documents share makes their chunks look alike, so the heading path is printed only
where the document's name is. Both were chosen on the manuals' tune half; the scores are in
``docs/tuning.md``.

**State across calls.** A :class:`PrefixPolicy` remembers the distinct document names and
categories it has seen (:meth:`PrefixPolicy.observe`), so a corpus that arrives in batches
(``chunk_many`` calls, LangChain ``transform_documents`` calls, LlamaIndex pipeline runs) is
judged as a whole: the first batch of one document gets no prefix; once a second document
with another name arrives, every later chunk carries the model and its section. Nothing else carries across
calls, chunks already returned are never changed, and :meth:`PrefixPolicy.reset` forgets. With a
persistent answer cache (a SQLite path), the memory is kept there too (:func:`recall_memory`,
:func:`keep_memory`), so a later process that re-ingests one edited document (LlamaIndex docstore
upserts, a LangChain record manager) still knows the rest of the corpus and prints the same fields.
A field is added only when it separates what has been seen, so a document that arrives
alone, or one without a name, gets no prefix: never worse off than with no prefix. (For one
document with sections, ``prefix="[{nouns}] "`` prints its heading path alone; the bench has no
evidence that it helps, so it is not the default.)

``prefix="fixed"`` renders :data:`~chop_integrations.chop.base_chunks.DEFAULT_PREFIX_TEMPLATE`
(every field, the model twice) and any other string is a ``str.format`` template over
``{category}``, ``{nouns}`` and ``{model}``; neither looks at the corpus.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..defaults import SECTION_DEPTH
from ..errors import ConfigurationError
from ..offline.signature import spelling_key
from ..types import CNM, DEFAULT_PREFIX_TEMPLATE, render_prefix
from .base_chunks import check_template

__all__ = [
    "ADAPTIVE",
    "FIELDS",
    "FIXED",
    "MEMORY_KEY",
    "PrefixChoice",
    "PrefixMode",
    "PrefixPolicy",
    "keep_memory",
    "recall_memory",
]

logger = logging.getLogger("chop_integrations")

#: The prefix keywords. ``prefix=`` takes one of them or any other str as a ``str.format`` template, so
#: it is no closed Literal and cannot go through :func:`~chop_integrations.checks.check_choice`: a str
#: that is not a keyword is validated as a template (:func:`~chop_integrations.chop.base_chunks.check_template`).
PrefixMode = Literal["adaptive", "fixed"]
ADAPTIVE, FIXED = "adaptive", "fixed"
#: The signature fields, in the order the adaptive prefix prints them (outermost first).
FIELDS = ("category", "model", "nouns")
#: Between the headings of a section path.
PATH_SEPARATOR = " > "
#: How many distinct values the policy remembers per field (enough to know "two or more").
_MEMORY = 64
#: The answer-cache key the adaptive prefix's corpus memory is kept under (a JSON object of sorted lists).
MEMORY_KEY = "chop-integrations/prefix-memory/v1"
#: How many rendered prefixes the policy keeps (a cache; cleared when full).
_RENDERED = 4096


@dataclass(frozen=True)
class PrefixChoice:
    """What one run put in the prefix, and why (recorded in :attr:`UsageReport.prefix_choice`).

    Attributes:
        mode: ``"adaptive"``, ``"fixed"`` or ``"template"``.
        fields: The fields rendered, in order.
        reasons: Per field of the adaptive mode, why it was kept or dropped.
    """

    mode: str
    fields: tuple[str, ...]
    reasons: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """One line: ``"adaptive: model, nouns (category dropped: one value)"``."""
        kept = ", ".join(self.fields) or "nothing"
        dropped = "; ".join(f"{name} dropped: {why}" for name, why in self.reasons if name not in self.fields)
        return f"{self.mode}: {kept}" + (f" ({dropped})" if dropped else "")


class PrefixPolicy:
    """Chooses and renders the prefix of every chunk of a run.

    Args:
        prefix: ``"adaptive"`` (the default), ``"fixed"`` or a ``str.format`` template.

    Raises:
        ConfigurationError: When ``prefix`` is not a str, or not a valid template.
    """

    def __init__(self, prefix: PrefixMode | str = ADAPTIVE) -> None:
        if not isinstance(prefix, str):
            raise ConfigurationError(f"prefix must be 'adaptive', 'fixed' or a template str, got {prefix!r}")
        self.prefix = prefix
        self.template = (
            None if prefix == ADAPTIVE else check_template(DEFAULT_PREFIX_TEMPLATE if prefix == FIXED else prefix)
        )
        self._seen: dict[str, set[str]] = {"model": set(), "category": set()}
        self._rendered: dict[tuple[object, ...], str] = {}  # many chunks share a section: render each once
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget the documents seen in earlier calls."""
        with self._lock:
            for values in self._seen.values():
                values.clear()

    def observe(self, documents: Sequence[CNM | None]) -> dict[str, int]:
        """Remember each document's model and category; return how many distinct values of each are known."""
        with self._lock:
            for signature in documents:
                for name in ("model", "category"):
                    value = getattr(signature, name) if signature is not None else None
                    if value and len(self._seen[name]) < _MEMORY:
                        self._seen[name].add(value.casefold())
            return {name: len(values) for name, values in self._seen.items()}

    def remembered(self) -> dict[str, list[str]]:
        """The corpus memory (distinct document names and categories seen, case-folded), sorted."""
        with self._lock:
            return {name: sorted(values) for name, values in self._seen.items()}

    def recall(self, memory: Mapping[str, Sequence[str]]) -> None:
        """Add a memory :meth:`remembered` returned (here or in another process) to this one's."""
        with self._lock:
            for name, values in self._seen.items():
                for value in memory.get(name, ()):
                    if isinstance(value, str) and value and len(values) < _MEMORY:
                        values.add(value.casefold())

    def carries_name(self, names: Sequence[str | None]) -> list[bool]:
        """Per document (by its name, or None), whether its prefix will print that name.

        The adaptive prefix prints it when the document has a name and, with the names seen
        before, the corpus has at least two. ``"fixed"`` and your own template are taken to
        print it always (as before the adaptive prefix existed). Asked before chunking
        (CHOPChunker's built-in chunker sizes its chunks by it); nothing is remembered here.
        """
        if self.template is not None:
            return [True for _ in names]
        with self._lock:
            known = set(self._seen["model"])
        keys = [_name_key(name) for name in names]
        known.update(key for key in keys if key)
        return [bool(key) and len(known) >= 2 for key in keys]

    def choose(self, documents: Sequence[CNM | None], signatures: Sequence[CNM | None]) -> PrefixChoice:
        """Choose the fields of this run.

        Args:
            documents: One document-level signature (model, category) per document of the run.
            signatures: Every chunk's signature, in order.
        """
        if self.template is not None:
            mode = FIXED if self.prefix == FIXED else "template"
            return PrefixChoice(mode, tuple(f for f in FIELDS if "{" + f in self.template))
        known = self.observe(documents)
        sections = {tuple(s.nouns) for s in signatures if s is not None and s.nouns}
        reasons = {
            "category": _reason(known["category"], "categories"),
            "model": _reason(known["model"], "document names"),
            "nouns": _reason(min(len(sections), 2), "sections"),
        }
        if reasons["model"] != "kept":
            reasons["nouns"] = "no document name to print it beside"
        fields = tuple(name for name in FIELDS if reasons[name] == "kept")
        return PrefixChoice(ADAPTIVE, fields, tuple(reasons.items()))

    def render(self, signature: CNM | None, choice: PrefixChoice) -> str:
        """The prefix of one chunk under ``choice`` (``""`` when nothing is left to say)."""
        if self.template is not None:
            return render_prefix(signature, self.template)
        if signature is None:
            return ""
        key = (choice.fields, signature.category, tuple(signature.nouns), signature.model)
        cached = self._rendered.get(key)
        if cached is None:
            if len(self._rendered) > _RENDERED:
                self._rendered.clear()
            cached = self._rendered[key] = self._render(signature, choice)
        return cached

    @staticmethod
    def _render(signature: CNM, choice: PrefixChoice) -> str:
        # The path's own separator never comes from a value ("0>" would print "0> > ..." or "0>: [0>]"), and a
        # path part with no letter or digit (a lone "-") says nothing and would print a bare separator.
        model = _without_separator(signature.model) if "model" in choice.fields else ""
        parts = (_without_separator(noun) for noun in signature.nouns)
        path = [part for part in parts if any(ch.isalnum() for ch in part)][-SECTION_DEPTH:]
        # A heading that only repeats the document's name (a README's "# Requests") names no section.
        path = [part for part in path if spelling_key(part) != spelling_key(model)]
        kept = CNM(
            category=_without_separator(signature.category) or None if "category" in choice.fields else None,
            # A document without a name of its own gets no section either (see the module docstring).
            nouns=[PATH_SEPARATOR.join(path)] if "nouns" in choice.fields and path and model else [],
            model=model or None,
        )
        return render_prefix(kept, DEFAULT_PREFIX_TEMPLATE)


def recall_memory(policy: PrefixPolicy, cache: Any) -> None:
    """Add the corpus memory kept in ``cache`` (if any) to an adaptive ``policy``'s; a bad entry is ignored."""
    if cache is None or policy.template is not None:
        return
    raw = cache.get(MEMORY_KEY)
    try:
        memory = json.loads(raw) if raw else {}
    except ValueError:
        memory = None
    if not isinstance(memory, dict):
        logger.warning("ignoring an unreadable prefix memory in the answer cache (%s)", MEMORY_KEY)
        return
    policy.recall(memory)


def keep_memory(policy: PrefixPolicy, cache: Any) -> None:
    """Store an adaptive ``policy``'s corpus memory in ``cache`` (merged with what is there), if a cache is set."""
    if cache is None or policy.template is not None:
        return
    recall_memory(policy, cache)  # another process may have added names since this run read them
    cache.set(MEMORY_KEY, json.dumps(policy.remembered(), sort_keys=True))


def _name_key(name: str | None) -> str:
    """How the memory keys a document's name: as its signature holds it (``"E.G."`` is ``"e.g"``), case-folded.

    :meth:`PrefixPolicy.observe` sees names through signatures, which drop what a prefix cannot hold
    (a trailing dot, brackets); a raw name keyed otherwise would count as a second document.
    """
    return (CNM(model=name).model or "").casefold() if name else ""


def _without_separator(value: str | None) -> str:
    """``value`` with the path separator's ``>`` as a space, whitespace collapsed (``""`` for None)."""
    return " ".join((value or "").replace(">", " ").split())


def _reason(distinct: int, what: str) -> str:
    if distinct >= 2:
        return "kept"
    return f"one value among the {what} seen" if distinct == 1 else f"no {what} found"
