"""Which of the store's known models (and categories) a question names.

Offline by default (:mod:`.names`: tolerant of case, spacing, hyphens, ``+``/``plus`` and a dropped
family word; the most specific value wins; nothing when none or two are named). An optional LLM is
asked only when that finds nothing, and its answer counts only when it is exactly one of the known
values: a reading never holds a value the store does not have.
"""

from __future__ import annotations

import logging
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigurationError, InputError
from .._llm.aio import run_sync
from .._llm.options import LLMConfig
from .._llm.protocol import as_llm
from .._llm.usage import UsageReport
from .._text.tokens import default_counter
from .catalog import CATEGORY_KEY, MODEL_KEY, SignatureCatalog
from .names import NameIndex

__all__ = ["QueryReader", "QueryReading"]

logger = logging.getLogger("chop_integrations")

#: What the LLM is asked when the offline reading finds no model: a template with ``{names}`` (the known values,
#: one ``- value`` per line) and ``{question}``. It speaks of names that tell documents apart (a model, an edition,
#: a version, a statute), not of products: the store may hold manuals, laws or books.
PROMPT = (
    "The documents of a collection are told apart by the names listed below (a model, an edition, a version, "
    "a code). Which one of these names does the question refer to?\n"
    "Answer with one name exactly as written in the list, or NONE when the question refers to none of them or "
    "to several.\n\nNames:\n{names}\n\nQuestion: {question}\nAnswer:"
)
#: The placeholders a prompt template must hold.
PROMPT_FIELDS = frozenset({"names", "question"})
#: The reader's LLM settings unless the caller gives others: a question waits on the call, so it has a time limit.
DEFAULT_CONFIG = LLMConfig(timeout=30.0)


@dataclass(frozen=True)
class QueryReading:
    """What a question names among the known values; every field None when it names none (or is ambiguous).

    Attributes:
        model: A known ``chop_model`` value, exactly as the store holds it.
        category: A known ``chop_category`` value, when categories are read.
        mention: The question's own words that named the model, or the LLM's answer.
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
            conditions[MODEL_KEY] = self.model
        if self.category is not None:
            conditions[CATEGORY_KEY] = self.category
        return conditions


class QueryReader:
    """Reads a question against the known signature values, offline (optionally with an LLM).

    Args:
        models: The known ``chop_model`` values (a catalog's ``models``, or any iterable of values).
        categories: The known ``chop_category`` values; read only when ``read_categories`` is true.
        read_categories: Also name a category (off by default: a category is rarely what tells documents apart).
        llm: An optional model (anything :func:`chop_integrations.as_llm` accepts) asked to name the model when
            the offline reading finds none; its answer counts only when it is exactly one of the known values.
        aliases: Other names of known models (alias -> model: an official long name, an acronym, a file-name
            form), matched like a model and read as it; an alias of an unknown model, or one that two models
            claim, is ignored.
        config: How the LLM is called, as for the engines (:class:`~chop_integrations.LLMConfig`: cache, retry,
            timeout, failure policy); default :data:`DEFAULT_CONFIG` (a 30-second timeout). With
            ``on_llm_error="fallback"`` (the default) a failed call gives the offline reading (logged at warning
            level); with ``"raise"`` its :class:`~chop_integrations.LLMError` propagates.
        prompt: The template the LLM is asked with: ``{names}`` and ``{question}`` and no other placeholder
            (default :data:`PROMPT`).
        **options: :class:`~chop_integrations.LLMConfig` fields overriding ``config``'s (``timeout=5``,
            ``cache="answers.sqlite"``).

    Raises:
        ConfigurationError: ``models`` or ``categories`` is not an iterable of strings (one string is not),
            an option is not an LLMConfig field or has an invalid value, or ``prompt`` lacks a placeholder or
            has another.

    Attributes:
        usage: The LLM calls, tokens and retries the reader spent so far.
    """

    def __init__(
        self,
        models: Iterable[str] | Mapping[str, int] = (),
        categories: Iterable[str] | Mapping[str, int] = (),
        *,
        read_categories: bool = False,
        llm: Any = None,
        aliases: Mapping[str, str] | None = None,
        config: LLMConfig | None = None,
        prompt: str = PROMPT,
        **options: Any,
    ) -> None:
        given = LLMConfig.of(DEFAULT_CONFIG if config is None else config)  # an engine's config lends its LLM fields
        self.config: LLMConfig = LLMConfig.of(LLMConfig(**given.llm_fields()), options)
        self.prompt = _template(prompt)
        self._models = NameIndex(_values("models", models), aliases=_aliases(aliases))
        self._categories = NameIndex(_values("categories", categories), drop_family=False)
        self.models, self.categories = self._models.values, self._categories.values
        self.read_categories = read_categories
        self.llm = as_llm(llm)
        self.usage = UsageReport()
        self._runner = (
            None
            if self.llm is None
            else self.config.runner(self.llm, usage=self.usage, token_counter=default_counter())
        )

    @classmethod
    def from_catalog(cls, catalog: SignatureCatalog, **options: Any) -> QueryReader:
        """A reader of the values ``catalog`` counted (and of its aliases, where it has them)."""
        options.setdefault("aliases", getattr(catalog, "aliases", None) or {})
        return cls(catalog.models, catalog.categories, **options)

    def read_offline(self, question: str) -> QueryReading:
        """The reading without any LLM call (what :meth:`read` returns whenever it finds a model).

        Raises:
            InputError: ``question`` is not a string.
        """
        _check_question(question)
        model, mention = self._models.find(question)
        category = self._categories.find(question)[0] if self.read_categories else None
        return QueryReading(model=model, category=category, mention=mention)

    def read(self, question: str) -> QueryReading:
        """The known model (and category) ``question`` names; an empty reading when none or ambiguous.

        Raises:
            InputError: ``question`` is not a string.
        """
        reading = self.read_offline(question)
        return run_sync(self._ask(question, reading)) if self._asks(reading) else reading

    async def aread(self, question: str) -> QueryReading:
        """:meth:`read`, awaitable (the LLM path is asynchronous)."""
        reading = self.read_offline(question)
        return await self._ask(question, reading) if self._asks(reading) else reading

    def _asks(self, offline: QueryReading) -> bool:
        """Whether the LLM is asked: no model read offline, an LLM given and models to choose from."""
        return offline.model is None and self._runner is not None and bool(self.models)

    async def _ask(self, question: str, offline: QueryReading) -> QueryReading:
        """Ask the LLM which model ``question`` names; keep the answer only when it is one known value."""
        assert self._runner is not None
        prompt = self.prompt.format(names="\n".join(f"- {m}" for m in self.models), question=question.strip())
        try:
            answer = await self._runner.aask(prompt)
        except Exception as exc:  # the reading is an optional help: by default a failed call must not fail the query
            if self.config.on_llm_error == "raise":
                raise
            logger.warning("query reader: the LLM call failed (%s: %s); no model read", type(exc).__name__, exc)
            return offline
        cleaned = answer.strip().strip("\"'`.").removeprefix("- ").strip()
        model = self._models.exact(cleaned)
        if model is None:
            if cleaned.upper() != "NONE":
                logger.info("query reader: the LLM answered %r, not one known model; no model read", cleaned[:80])
            return offline
        return QueryReading(model=model, category=offline.category, mention=cleaned)


def _values(name: str, values: object) -> Iterable[str]:
    """``values`` checked: an iterable (or mapping) of strings, not one string."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigurationError(
            f"{name} must be an iterable of strings (or a mapping of value -> count), got {type(values).__name__}"
            + (f" {values!r}: wrap one value in a list" if isinstance(values, str) else "")
        )
    values = list(values)
    wrong = [v for v in values if not isinstance(v, str)]
    if wrong:
        raise ConfigurationError(f"{name} must hold strings only, got {wrong[0]!r} ({type(wrong[0]).__name__})")
    return values


def _aliases(aliases: object) -> Mapping[str, str]:
    """``aliases`` checked: a mapping of alias -> known model, both strings."""
    if aliases is None:
        return {}
    if not isinstance(aliases, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in aliases.items()
    ):
        raise ConfigurationError("aliases must be a mapping of alias -> model, both strings")
    return aliases


def _template(prompt: object) -> str:
    """``prompt`` checked: a string whose placeholders are exactly ``{names}`` and ``{question}``."""
    if not isinstance(prompt, str):
        raise ConfigurationError(f"prompt must be a string template, got {type(prompt).__name__}")
    try:
        fields = {field for _, field, _, _ in string.Formatter().parse(prompt) if field is not None}
    except ValueError as exc:
        raise ConfigurationError(f"prompt is not a valid template: {exc}") from None
    if fields != PROMPT_FIELDS:
        raise ConfigurationError(
            f"prompt must hold the placeholders {{names}} and {{question}} and no other, got {sorted(fields)}"
        )
    return prompt


def _check_question(question: object) -> None:
    if not isinstance(question, str):
        raise InputError(f"a question must be a string, got {type(question).__name__}")
