"""The options both engines share, and the machinery of their config objects.

:class:`LLMConfig` holds what governs the calls of a run: the failure policy, the concurrency, the
answer cache, the retry policy and the per-call timeout. Each engine's own config
(:class:`~chop_integrations.LumberConfig`,
:class:`~chop_integrations.CHOPConfig`) inherits these five fields through :class:`EngineConfig`, which adds
the token counter and what watches a run (:data:`RUN_FIELDS`: a progress callback, limits on calls and
tokens), so one object
configures an engine; it is a frozen pydantic model, validated once, when it is built. An engine
takes it whole (``LumberChunker(llm, config)``) or builds it from keyword arguments
(``LumberChunker(llm, max_tokens=200)``), or both (the keywords override the given config):
:meth:`LLMConfig.of`. The engine holds it as ``config`` and hands it to its runner
(:meth:`LLMConfig.runner`) and, for CHOP, its LLM fields to the built-in LumberChunker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, ValidationError, ValidationInfo, field_validator

from .._checks import did_you_mean, optional_timeout, positive_int, shown
from .._errors import ConfigurationError
from .._text.tokens import TokenCounter, resolve_counter
from .cache import resolve_cache
from .identity import usable_cache
from .policy import OnLLMError, check_policy
from .progress import Progress, ProgressMeter, metering
from .progress_bar import meter_for
from .retry import RetryPolicy
from .runner import LLMRunner
from .usage import UsageReport

__all__ = ["RUN_FIELDS", "EngineConfig", "LLMConfig", "LLMConfigMixin", "configuration_error"]

#: The fields that meter a whole run (a callback and limits), not how one call is made.
RUN_FIELDS = ("max_calls", "max_llm_tokens", "on_progress")


def _check_retry(value: Any) -> Any:
    if value is not None and not isinstance(value, RetryPolicy):
        raise ConfigurationError(f"retry must be a RetryPolicy or None, got {type(value).__name__}")
    return value


#: The one check of each LLM field, by name: the value as the config holds it, or a ConfigurationError.
_LLM_CHECKS: dict[str, Callable[[Any], Any]] = {
    "on_llm_error": check_policy,
    "max_concurrency": lambda value: positive_int("max_concurrency", value),
    "cache": resolve_cache,
    "retry": _check_retry,
    "timeout": optional_timeout,
}


class LLMConfig(BaseModel):
    """How an engine calls its LLM: failure policy, concurrency, cache, retries, timeout.

    The base of both engines' configs. Every field is validated when the object is built; an
    invalid value or an unknown name raises :class:`~chop_integrations.ConfigurationError`
    (an unknown name with the valid ones and the closest match). The object is frozen: derive a
    changed copy with ``type(config).of(config, {"timeout": 5})``.

    Raises:
        ConfigurationError: On an invalid value or an unknown field name.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True, validate_default=True)

    on_llm_error: OnLLMError = Field(
        "fallback",
        description='When an LLM decision fails: "fallback" (the offline decider answers; counted and logged) '
        'or "raise" (a typed LLMError).',
    )
    max_concurrency: int = Field(8, description="LLM calls in flight at once.")
    cache: Any = Field(
        None,
        description="Answer cache: None/False (none), a path (an SQLite file or a directory for one) or an "
        "object with get/set; held resolved (a path becomes an SQLiteCache).",
    )
    retry: InstanceOf[RetryPolicy] | None = Field(
        None,
        description="RetryPolicy for transient errors; None: the runner's default (or the model wrapper's "
        "suggested attempts).",
    )
    timeout: float | None = Field(None, description="Seconds one LLM call may take; None for no limit.")

    def __init__(self, /, **data: Any) -> None:
        unknown = [name for name in data if name not in type(self).model_fields]
        if unknown:
            raise ConfigurationError(unknown_option(type(self), unknown[0]))
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise configuration_error(exc) from None

    @field_validator(*_LLM_CHECKS, mode="before")
    @classmethod
    def _check_llm_field(cls, value: Any, info: ValidationInfo) -> Any:
        return _LLM_CHECKS[str(info.field_name)](value)

    @classmethod
    def of(cls, config: Any = None, options: Mapping[str, Any] | None = None) -> Any:
        """The config an engine runs with: ``config`` (or the defaults), with ``options`` overriding its fields.

        Args:
            config: An instance of this class, or ``None`` for the defaults.
            options: Field values that build the config or override ``config``'s.

        Raises:
            ConfigurationError: When ``config`` is not an instance of this class, an option is
                unknown (the message names the valid ones), or a value is invalid.
        """
        if config is not None and not isinstance(config, cls):
            raise ConfigurationError(f"config must be a {cls.__name__} or None, got {type(config).__name__}")
        if not options:
            return cls() if config is None else config
        given = {} if config is None else {name: getattr(config, name) for name in config.model_fields_set}
        return cls(**{**given, **options})

    def llm_fields(self) -> dict[str, Any]:
        """The five :class:`LLMConfig` fields, by name (to hand to another engine).

        The run's meter (:data:`RUN_FIELDS`, an :class:`EngineConfig`'s) stays with the engine that runs: a base
        chunker it calls counts against the same callback and limits.
        """
        return {name: getattr(self, name) for name in LLMConfig.model_fields}

    def runner(self, llm: Any, *, usage: UsageReport, token_counter: TokenCounter) -> LLMRunner:
        """An :class:`~chop_integrations._llm.runner.LLMRunner` for ``llm`` with this cache, retry and timeout.

        A model without a stable identity (a lambda, a ``functools.partial``) gets no cache: see
        :func:`~chop_integrations._llm.identity.usable_cache`.
        """
        cache = usable_cache(llm, self.cache)
        return LLMRunner(
            llm, usage=usage, token_counter=token_counter, cache=cache, retry=self.retry, timeout=self.timeout
        )


def unknown_option(config: type[BaseModel], name: str) -> str:
    """The message for an unknown option ``name`` of ``config``: the closest field, then all of them."""
    valid = sorted(config.model_fields)
    return (
        f"unknown option {name!r} for {config.__name__}{did_you_mean(name, valid)}; valid options: {', '.join(valid)}"
    )


def configuration_error(exc: ValidationError) -> ConfigurationError:
    """The first error of a failed validation, as our own exception (a check's own error as it was raised)."""
    error = exc.errors()[0]
    raised = error.get("ctx", {}).get("error")
    if isinstance(raised, ConfigurationError):
        return raised
    name = ".".join(str(part) for part in error["loc"])
    return ConfigurationError(f"{name}: {error['msg']}, got {shown(error.get('input'))}")


class EngineConfig(LLMConfig):
    """The options both engines share: the LLM options of :class:`LLMConfig`, how tokens are counted, a run's meter.

    ``max_calls``, ``max_llm_tokens`` and ``on_progress`` (:data:`RUN_FIELDS`) watch each run (one ``chunk``,
    ``chunk_many``, ``annotate`` or ``chunk_stream`` call): a callback with the counts as they grow, and limits
    that stop the run cleanly with :class:`~chop_integrations.BudgetExceededError`.

    Raises:
        ConfigurationError: On an invalid value or an unknown field name.
    """

    token_counter: Callable[[str], int] | str | None = Field(
        None,
        description='How tokens are counted: None (tiktoken cl100k_base), "chars", "words", an encoding name, '
        'a "module:function" path, or a callable str -> int.',
    )

    max_calls: int | None = Field(
        None,
        description="Most LLM calls one run may start (retries included); at the limit the run stops with "
        "BudgetExceededError and no call past it is sent. None: no limit.",
    )
    max_llm_tokens: int | None = Field(
        None,
        description="Most prompt plus completion tokens one run may spend; a call whose prompt would pass the "
        "limit is not sent and the run stops with BudgetExceededError. None: no limit.",
    )
    on_progress: Callable[[Progress], None] | None = Field(
        None,
        description="Called with a Progress (decisions done and planned, calls, retries, fallbacks, tokens, "
        "elapsed) after every change during a run; counts only grow. None: nothing is called.",
    )

    @field_validator("token_counter", mode="before")
    @classmethod
    def _check_counter(cls, value: Any) -> Any:
        if value is not None:
            resolve_counter(value)  # an unknown name or a bad path fails here, not on the first chunk
        return value

    @field_validator("max_calls", "max_llm_tokens", mode="before")
    @classmethod
    def _check_limit(cls, value: Any, info: ValidationInfo) -> Any:
        return None if value is None else positive_int(str(info.field_name), value)

    @field_validator("on_progress", mode="before")
    @classmethod
    def _check_on_progress(cls, value: Any) -> Any:
        if value is not None and not callable(value):
            raise ConfigurationError(f"on_progress must be a function of a Progress, got {type(value).__name__}")
        return value

    def metered(self) -> AbstractContextManager[ProgressMeter | None]:
        """A block that meters one run with :attr:`on_progress` and the limits, or does nothing when none is set."""
        return metering(self.meter())

    def meter(self) -> ProgressMeter | None:
        """A meter with :attr:`on_progress` and the limits (a stream's, which no block holds); None when none is set."""
        meter, _ = meter_for(on_progress=self.on_progress, max_calls=self.max_calls, max_tokens=self.max_llm_tokens)
        return meter


class LLMConfigMixin:
    """The five :class:`LLMConfig` fields as read-only attributes of an engine holding ``config``."""

    config: LLMConfig

    @property
    def on_llm_error(self) -> OnLLMError:
        """``"fallback"`` or ``"raise"`` (from :attr:`config`)."""
        return self.config.on_llm_error

    @property
    def max_concurrency(self) -> int:
        """LLM calls in flight at once (from :attr:`config`)."""
        return self.config.max_concurrency

    @property
    def cache(self) -> Any:
        """The resolved answer cache, or None (from :attr:`config`)."""
        return self.config.cache

    @property
    def retry(self) -> RetryPolicy | None:
        """The retry policy, or None for the runner's default (from :attr:`config`)."""
        return self.config.retry

    @property
    def timeout(self) -> float | None:
        """Seconds per LLM call, or None (from :attr:`config`)."""
        return self.config.timeout
