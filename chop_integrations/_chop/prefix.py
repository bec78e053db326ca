"""Which signature fields enter the embedding prefix: adaptive (the default), the fixed template, or yours.

``prefix="adaptive"`` chooses the fields, the CHOP authors' own future work:

* ``model`` (the document's name) whenever the document has one
  (:func:`~chop_integrations._offline.naming.document_name`: the caller's, or the document's own title block);
  a document without a name gets no prefix. The name is a property of the document, so a document
  ingested alone gets the prefix it gets in a batch (a loop of one-document calls loses nothing);
* ``nouns`` (the chunk's section heading) beside the name: a chunk whose prefix cannot say which
  document it is from gets no section heading either (see below);
* ``category`` when the documents seen (the run's, with ``corpus=``'s) fall into at least two categories;
  dropped when all share one (or none has one). The one field that depends on the corpus: pass a shared
  :class:`~chop_integrations.CorpusState` when documents arrive one at a time and categories matter.

The kept fields render in CHOP's own shape, ``model: [category | section | model] ``,
with the dropped and the empty fields left out along with their separators (``model: [section | model] ``).
The model printed at both ends outweighs section titles that many documents share, and the
innermost heading alone dilutes the name least (a changelog's version or a numbered chapter above a
sub-heading with no number of its own stays above it, as ``Version 1.63.0 > Bug fixes``, and so does the parent of
a sub-heading whose title the document had before under another parent, as ``API > Examples``: see ``_section``);
without a name to go with it, a section title that many documents share makes their chunks look alike, so the
heading path is printed only where the document's name is. Both were chosen on the manuals' tune half; the
scores are in ``docs/tuning.md``.

**State across calls.** What the adaptive prefix knows of the corpus is a
:class:`~chop_integrations.CorpusState` (the distinct document names and categories seen),
never the policy's: a chunker without ``corpus=`` judges each call on its own documents, so the same
input and options give the same chunks whatever ran before (with the same answer cache too). Only the
category reads it. (For documents without a name, ``prefix="[{nouns}] "`` prints the heading path alone;
the bench has no evidence that it helps, so it is not the default.)

``prefix="fixed"`` renders :data:`~chop_integrations._chop.base_chunks.DEFAULT_PREFIX_TEMPLATE`
(every field, the model twice) and any other string is a ``str.format`` template over
``{category}``, ``{nouns}`` and ``{model}`` that uses at least one of them (a str with none is taken
for a misspelt keyword); neither looks at the corpus.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .._checks import did_you_mean
from .._defaults import SECTION_DEPTH
from .._errors import ConfigurationError
from .._offline.signature import spelling_key
from .._text.headings import NUMBER_LABEL, VERSION
from .._types import CNM, DEFAULT_PREFIX_TEMPLATE, render_fields, render_prefix, sanitize_field
from .base_chunks import check_template
from .corpus import CorpusState

__all__ = [
    "ADAPTIVE",
    "FIELDS",
    "FIXED",
    "PrefixChoice",
    "PrefixMode",
    "PrefixPolicy",
]

#: The prefix keywords. ``prefix=`` takes one of them or any other str as a ``str.format`` template, so
#: it is no closed Literal and cannot go through :func:`~chop_integrations._checks.check_choice`: a str
#: that is not a keyword is validated as a template (:func:`~chop_integrations._chop.base_chunks.check_template`).
PrefixMode = Literal["adaptive", "fixed"]
ADAPTIVE, FIXED = "adaptive", "fixed"
#: The signature fields, in the order the adaptive prefix prints them (outermost first).
FIELDS = ("category", "model", "nouns")
#: Between the headings of a section path.
PATH_SEPARATOR = " > "
#: How many rendered prefixes, and how many field values, the policy keeps (caches; cleared when full).
_RENDERED = 4096
#: A letter or digit (``str.isalnum``), found in one look.
_ALNUM = re.compile(r"[^\W_]")
#: A field the choice leaves out: no value, no spelling key, nothing to print.
_NO_VALUE = ("", "", False)
#: Whether a name is printed (so a section may be), the name's spelling key, the category and the name as printed,
#: and the prefix without a section.
_Frame = tuple[bool, str, str | None, str | None, str]


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
    """Chooses and renders the prefix of every chunk of a run; what it knows of the corpus is passed in.

    Args:
        prefix: ``"adaptive"`` (the default), ``"fixed"`` or a ``str.format`` template.

    Raises:
        ConfigurationError: When ``prefix`` is not a str, or not a valid template, or a template with none of
            ``{category}``, ``{nouns}``, ``{model}`` (a misspelt ``"adaptive"`` or ``"fixed"``).
    """

    def __init__(self, prefix: PrefixMode | str = ADAPTIVE) -> None:
        if not isinstance(prefix, str):
            raise ConfigurationError(f"prefix must be 'adaptive', 'fixed' or a template str, got {prefix!r}")
        self.prefix = prefix
        self.template = None if prefix == ADAPTIVE else _checked(DEFAULT_PREFIX_TEMPLATE if prefix == FIXED else prefix)
        self._rendered: dict[tuple[object, ...], str] = {}  # many chunks share a section: render each once
        self._values: dict[str | None, tuple[str, str, bool]] = {}  # see _value
        self._frames: dict[tuple[object, ...], _Frame] = {}  # see _frame

    def carries_name(self, names: Sequence[str | None], corpus: CorpusState | None = None) -> list[bool]:
        """Per document (by its name, or None), whether its prefix will print that name.

        The adaptive prefix prints it whenever the document has a name, so a document gets the same prefix
        alone as in a batch; ``"fixed"`` and your own template are taken to print it always. Asked before
        chunking (CHOPChunker's built-in chunker sizes its chunks by it); ``corpus`` is not read (kept in the
        signature for callers that pass it).
        """
        del corpus  # a name is printed whatever else the corpus holds: alone as in a batch
        return [self.template is not None or bool(_name_key(name)) for name in names]

    def choose(
        self,
        documents: Sequence[CNM | None],
        signatures: Sequence[CNM | None],
        corpus: CorpusState | None = None,
    ) -> PrefixChoice:
        """Choose the fields of this run; the adaptive prefix adds the run's documents to ``corpus``.

        Args:
            documents: One document-level signature (model, category) per document of the run.
            signatures: Every chunk's signature, in order.
            corpus: What is known of the corpus; ``None``: the run's documents alone.
        """
        if self.template is not None:
            mode = FIXED if self.prefix == FIXED else "template"
            return PrefixChoice(mode, tuple(f for f in FIELDS if "{" + f in self.template))
        known = (corpus if corpus is not None else CorpusState()).observe(documents)
        sections = {tuple(s.nouns) for s in signatures if s is not None and s.nouns}
        named = any(signature is not None and signature.model for signature in documents)
        reasons = {
            "category": _reason(known["category"], "categories"),
            "model": "kept" if named else "no document names found",
            "nouns": "kept" if sections else "no sections found",
        }
        if reasons["model"] != "kept":
            reasons["nouns"] = "no document name to print it beside"
        fields = tuple(name for name in FIELDS if reasons[name] == "kept")
        return PrefixChoice(ADAPTIVE, fields, tuple(reasons.items()))

    def render(self, signature: CNM | None, choice: PrefixChoice, repeated: bool = False, *, memo: bool = True) -> str:
        """The prefix of one chunk under ``choice`` (``""`` when nothing is left to say).

        Args:
            signature: The chunk's signature.
            choice: The fields to render.
            repeated: The chunk's section title came earlier in its document under another parent heading
                (:meth:`repeats`, asked in document order by whoever sees the whole document). With ``nouns``
                rendered, that parent is printed: a README's ``Usage`` > ``Examples``, then ``API`` > ``Examples``
                prints ``API > Examples``, so its label tells it from the first.
            memo: Keep the prefix by the signature's values, for callers that render each chunk's signature (a
                section's chunks render one prefix). A caller that renders each signature once passes False: the
                key would cost more than it saves.
        """
        if self.template is not None:
            return render_prefix(signature, self.template)
        if signature is None:
            return ""
        repeated = repeated and "nouns" in choice.fields
        if not memo:
            self._bound()
            return self._render(signature, choice, repeated)
        key = (choice.fields, signature.category, tuple(signature.nouns), signature.model, repeated)
        cached = self._rendered.get(key)
        if cached is None:
            self._bound()
            cached = self._rendered[key] = self._render(signature, choice, repeated)
        return cached

    def _bound(self) -> None:
        """Empty the caches once the prefixes or the values kept pass :data:`_RENDERED` (memory stays bounded)."""
        if len(self._rendered) > _RENDERED or len(self._values) > _RENDERED:
            self._rendered.clear()
            self._values.clear()
            self._frames.clear()

    def repeats(self, signature: CNM | None, seen: dict[tuple[str, ...], str]) -> bool:
        """True when the chunk's section title came earlier in its document under another parent heading.

        Asked of a document's chunks in order, with one ``seen`` per document (it keeps each title's first parent,
        by spelling keys, and this call adds the chunk's): the title alone then names two sections of the
        document, and the parent tells them apart (:meth:`render` prints it). The first section with the title
        keeps it alone (a stream cannot know a later repeat, and batch renders as the stream does); a title below a
        version or a numbered heading has that parent printed anyway (:func:`_section`), and a parent that only
        repeats the document's name (a README's ``# Requests``) tells nothing apart. The answer does not depend on
        the fields a choice renders, so it can be decided once, where the document is chunked, and a prefix
        rendered later under another choice (the Ray adapter's second pass) still prints the parent.
        """
        if signature is None or len(signature.nouns) <= SECTION_DEPTH or not signature.model:
            return False
        parts = [value for value in map(self._value, signature.nouns) if value[2]]
        if len(parts) <= SECTION_DEPTH:
            return False
        model_key = self._value(signature.model)[1]
        parent, parent_key, _ = parts[-SECTION_DEPTH - 1]
        own = parts[-SECTION_DEPTH:]
        if not model_key or parent_key == model_key or _tells_apart(parent, own[-1][0]) or _numbered(own[-1][0]):
            return False
        return seen.setdefault(tuple(key for _, key, _ in own), parent_key) != parent_key

    def _render(self, signature: CNM, choice: PrefixChoice, repeated: bool = False) -> str:
        # The path's own separator never comes from a value ("0>" would print "0> > ..." or "0>: [0>]"), and a
        # path part with no letter or digit (a lone "-") says nothing and would print a bare separator.
        fields, nouns = choice.fields, signature.nouns
        frame = self._frames.get((fields, signature.category, signature.model))
        if frame is None:
            frame = self._frames[fields, signature.category, signature.model] = self._frame(signature, fields)
        named, model_key, category, model, plain = frame
        if not (named and nouns and "nouns" in fields):
            return plain  # a document without a name gets no section either
        if len(nouns) == 1 and not repeated:  # (most signatures: one heading, its own section)
            part, key, alnum = self._value(nouns[0])
            path = [part] if alnum and key != model_key else []
        else:
            parts = [value for value in map(self._value, nouns) if value[2]]
            kept = _section([part for part, _, _ in parts], repeated=repeated)
            # A heading that only repeats the document's name (a README's "# Requests") names no section.
            path = [part for part, key, _ in parts[len(parts) - len(kept) :] if key != model_key]
        # Sanitised as a CNM of these fields would hold them (one CNM per chunk costs more than its rendering).
        section = sanitize_field(PATH_SEPARATOR.join(path)) if path else None
        return render_fields(category, [section], model, DEFAULT_PREFIX_TEMPLATE) if section else plain

    def _frame(self, signature: CNM, fields: tuple[str, ...]) -> _Frame:
        """What the prefixes of one category and name share (a document's signatures do): see :data:`_Frame`."""
        model, model_key, _ = self._value(signature.model) if "model" in fields else _NO_VALUE
        category = sanitize_field(self._value(signature.category)[0] if "category" in fields else None)
        printed = sanitize_field(model or None)
        return bool(model), model_key, category, printed, render_fields(category, [], printed, DEFAULT_PREFIX_TEMPLATE)

    def _value(self, value: str | None) -> tuple[str, str, bool]:
        """A field's value without the path separator, its spelling key, and whether it holds a letter or digit.

        Read once per value (a run's signatures repeat their model and headings).
        """
        found = self._values.get(value)
        if found is None:
            clean = _without_separator(value)
            found = self._values[value] = (clean, spelling_key(clean), _ALNUM.search(clean) is not None)
        return found


def _section(parts: Iterable[str], *, repeated: bool = False) -> list[str]:
    """The innermost :data:`SECTION_DEPTH` parts of a heading path, with the parent that tells them apart above.

    ``Stabilized APIs`` or ``Bug fixes`` heads a section of every release, and ``Beispiele`` or ``Examples`` one of
    every chapter: the version or the numbered heading above such a sub-heading (one with no number of its own) is
    what tells them apart (``Version 1.63.0 (2022-08-11) > Stabilized APIs``, ``Kapitel 9. Systemtipps >
    Beispiele``). A numbered sub-heading (``9.2. Tipps``) tells itself apart. ``repeated``: the title came earlier
    in the document under another parent (:meth:`PrefixPolicy.repeats`), which is then printed whatever it is.
    """
    path = list(parts)
    parented = len(path) > SECTION_DEPTH and (repeated or _tells_apart(path[-SECTION_DEPTH - 1], path[-1]))
    return path[-(SECTION_DEPTH + parented) :]


def _tells_apart(parent: str, own: str) -> bool:
    """True when ``parent`` names what ``own`` alone may not: a version, or a number above an unnumbered title."""
    if VERSION.match(parent):
        return True
    return NUMBER_LABEL.match(parent) is not None and not _numbered(own)


def _numbered(title: str) -> bool:
    """True for a title that tells itself apart: a number label or a version (``9.2. Tipps``, ``v1.2.0``)."""
    return NUMBER_LABEL.match(title) is not None or VERSION.match(title) is not None


def _checked(template: str) -> str:
    """``template`` when it is a valid template using at least one field (else it is a misspelt keyword)."""
    check_template(template)
    if not any(name in FIELDS for _, name, _, _ in string.Formatter().parse(template)):
        hint = did_you_mean(template.strip().lower(), (ADAPTIVE, FIXED))
        raise ConfigurationError(
            f"prefix must be 'adaptive', 'fixed' or a template with at least one of {{category}}, {{nouns}}, "
            f"{{model}}; got {template!r}{hint}"
        )
    return template


def _name_key(name: str | None) -> str:
    """How the memory keys a document's name: as its signature holds it (``"E.G."`` is ``"e.g"``), case-folded.

    :meth:`~chop_integrations.CorpusState.observe` sees names through signatures, which drop
    what a prefix cannot hold (a trailing dot, brackets); a raw name keyed otherwise would count as a second document.
    """
    return (CNM(model=name).model or "").casefold() if name else ""


def _without_separator(value: str | None) -> str:
    """``value`` with the path separator's ``>`` as a space, whitespace collapsed (``""`` for None)."""
    return " ".join((value or "").replace(">", " ").split())


def _reason(distinct: int, what: str) -> str:
    if distinct >= 2:
        return "kept"
    return f"one value among the {what} seen" if distinct == 1 else f"no {what} found"
