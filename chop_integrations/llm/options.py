"""The LLM options both engines share, grouped and validated once.

:class:`LLMOptions` holds what governs the calls of a run: the failure policy,
the concurrency, the answer cache, the retry policy and the per-call timeout.
:class:`~chop_integrations.lumber.LumberChunker` and
:class:`~chop_integrations.chop.CHOPChunker` take these five as flat keyword
arguments (as the README shows) or as one ``llm_options=LLMOptions(...)``; either
way each engine builds one :class:`LLMOptions` at construction, holds it as
``llm_options``, and hands it down: to its runner (:meth:`LLMOptions.runner`) and,
for CHOP, to its built-in LumberChunker. The framework adapters expose every field
under the same name (``tests/test_llm_options.py`` checks that they reach the engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..checks import optional_timeout, positive_int
from ..errors import ConfigurationError
from ..text.tokens import TokenCounter
from .cache import resolve_cache
from .policy import OnLLMError, check_policy
from .retry import RetryPolicy
from .runner import LLMRunner
from .usage import UsageReport

__all__ = ["LLMOptions", "LLMOptionsMixin", "llm_options_of"]


@dataclass(frozen=True)
class LLMOptions:
    """How an engine calls its LLM: failure policy, concurrency, cache, retries, timeout.

    Args:
        on_llm_error: ``"fallback"`` (the offline decider answers; counted and logged) or
            ``"raise"`` (a typed :class:`~chop_integrations.errors.LLMError`).
        max_concurrency: LLM calls in flight at once.
        cache: Answer cache: ``None``/``False`` (none), a path (an SQLite file or a directory
            for one) or an object with ``get``/``set``; held resolved (a path becomes a
            :class:`~chop_integrations.llm.sqlite_cache.SQLiteCache`).
        retry: :class:`~chop_integrations.llm.retry.RetryPolicy` for transient errors; ``None``:
            the runner's default (or the model wrapper's suggested attempts).
        timeout: Seconds one LLM call may take; ``None`` for no limit.

    Raises:
        ConfigurationError: On an invalid value (checked at construction, once).
    """

    on_llm_error: OnLLMError = "fallback"
    max_concurrency: int = 8
    cache: Any = None
    retry: RetryPolicy | None = None
    timeout: float | None = None

    def __post_init__(self) -> None:
        check_policy(self.on_llm_error)
        positive_int("max_concurrency", self.max_concurrency)
        optional_timeout(self.timeout)
        if self.retry is not None and not isinstance(self.retry, RetryPolicy):
            raise ConfigurationError(f"retry must be a RetryPolicy or None, got {type(self.retry).__name__}")
        object.__setattr__(self, "cache", resolve_cache(self.cache))

    def runner(self, llm: Any, *, usage: UsageReport, token_counter: TokenCounter) -> LLMRunner:
        """An :class:`~chop_integrations.llm.runner.LLMRunner` for ``llm`` with this cache, retry and timeout."""
        return LLMRunner(
            llm, usage=usage, token_counter=token_counter, cache=self.cache, retry=self.retry, timeout=self.timeout
        )


#: The defaults of the flat keyword arguments, by name (the fields' own defaults).
DEFAULTS: Mapping[str, Any] = {f.name: f.default for f in fields(LLMOptions)}


def llm_options_of(llm_options: LLMOptions | None, **flat: Any) -> LLMOptions:
    """The engine's :class:`LLMOptions`, from ``llm_options=`` or from its flat keyword arguments.

    Args:
        llm_options: An :class:`LLMOptions` given as a whole, or ``None``.
        **flat: The engine's flat arguments, exactly the fields of :class:`LLMOptions`.

    Raises:
        ConfigurationError: When ``llm_options`` is not an :class:`LLMOptions`, when it is given
            together with a flat argument changed from its default (the message names the clash),
            or when a value is invalid.
    """
    if llm_options is None:
        return LLMOptions(**flat)
    if not isinstance(llm_options, LLMOptions):
        raise ConfigurationError(f"llm_options must be an LLMOptions or None, got {type(llm_options).__name__}")
    clash = [name for name, value in flat.items() if value is not DEFAULTS[name] and value != DEFAULTS[name]]
    if clash:
        raise ConfigurationError(
            f"pass {', '.join(clash)} inside llm_options=LLMOptions(...) or as keyword arguments, not both"
        )
    return llm_options


class LLMOptionsMixin:
    """The five :class:`LLMOptions` fields as read-only attributes of an engine holding ``llm_options``."""

    llm_options: LLMOptions

    @property
    def on_llm_error(self) -> OnLLMError:
        """``"fallback"`` or ``"raise"`` (from :attr:`llm_options`)."""
        return self.llm_options.on_llm_error

    @property
    def max_concurrency(self) -> int:
        """LLM calls in flight at once (from :attr:`llm_options`)."""
        return self.llm_options.max_concurrency

    @property
    def cache(self) -> Any:
        """The resolved answer cache, or None (from :attr:`llm_options`)."""
        return self.llm_options.cache

    @property
    def retry(self) -> RetryPolicy | None:
        """The retry policy, or None for the runner's default (from :attr:`llm_options`)."""
        return self.llm_options.retry

    @property
    def timeout(self) -> float | None:
        """Seconds per LLM call, or None (from :attr:`llm_options`)."""
        return self.llm_options.timeout
