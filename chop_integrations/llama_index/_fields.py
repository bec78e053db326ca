"""Helpers shared by the LlamaIndex components: the LLM setting and its identity, and common fields.

The IngestionPipeline caches each transformation's output under a hash of the
input nodes and ``transformation.to_dict()``. An LLM object cannot always be
serialised, so the components exclude it from ``to_dict()`` and carry its
identity in a plain string field, ``llm_id``, instead: two components that
differ only in their LLM (or its decoding settings) never share a cache entry.
"""

from __future__ import annotations

import hashlib
import pickle
from typing import TYPE_CHECKING, Any

from llama_index.core.bridge.pydantic import Field, model_validator

from ..llm.protocol import LLM, as_llm
from ..llm.usage import UsageReport, UsageSlot

#: ``llm_id`` of a component without an LLM (the offline deciders).
OFFLINE_ID = "offline"
#: ``offline_extractor_id`` of a component that uses the default offline CNM extractor.
DEFAULT_EXTRACTOR_ID = "default"


def resolve_llm(llm: Any) -> tuple[LLM | None, str]:
    """Wrap ``llm`` into the engines' protocol and return it with its identity.

    Args:
        llm: ``None``, a LlamaIndex LLM, or any object :func:`chop_integrations.llm.as_llm` accepts.

    Raises:
        ConfigurationError: When ``llm`` is none of these.
    """
    wrapped = as_llm(llm)
    return wrapped, OFFLINE_ID if wrapped is None else wrapped.model_id


def object_identity(obj: Any) -> str:
    """A cache-key identity for a settings object that is not serialised (an offline extractor).

    The class name and a SHA-256 of the object's pickle: two extractors with the same
    lexicon get the same identity (a pipeline cache hit), a changed lexicon a new one.
    An object that cannot be pickled is identified by its class and ``id()``, which is
    never shared with another live object but does not survive the process.
    """
    name = f"{type(obj).__module__}.{type(obj).__qualname__}"
    try:
        digest = hashlib.sha256(pickle.dumps(obj, protocol=4)).hexdigest()[:16]
    except (pickle.PicklingError, TypeError, AttributeError):  # not picklable: no stable identity
        return f"{name}@{id(obj):x}"
    return f"{name}:{digest}"


# -- fields both components declare (each call makes a new field) -------------------------------


def llm_field(description: str) -> Any:
    """The ``llm`` field: the model object, never serialised."""
    return Field(default=None, exclude=True, description=description)


def llm_id_field() -> Any:
    """The ``llm_id`` field: the model's identity, set from ``llm``."""
    return Field(
        default=OFFLINE_ID,
        description="Identity of `llm` (class, model, decoding settings); set from `llm`, part of the cache key.",
    )


def on_llm_error_field() -> Any:
    """The ``on_llm_error`` field."""
    return Field(
        default="fallback",
        description="'fallback': the offline decider answers (counted, logged); 'raise': an LLMError.",
    )


def timeout_field() -> Any:
    """The ``timeout`` field: seconds one LLM call may take (the engines' ``timeout``)."""
    return Field(
        default=None, gt=0, description="Seconds one LLM call may take before it counts as failed; None: no limit."
    )


def retry_field() -> Any:
    """The ``retry`` field: the engines' :class:`~chop_integrations.llm.retry.RetryPolicy`, never serialised."""
    return Field(
        default=None, exclude=True, description="RetryPolicy for transient errors; None: the engines' default."
    )


def cache_field() -> Any:
    """The ``cache`` field: the engines' answer cache, never serialised."""
    return Field(
        default=None, exclude=True, description="Answer cache: None, a path (SQLite) or an object with get/set."
    )


class LLMIdentityMixin:
    """Keeps a component's wrapped ``_llm`` and its ``llm_id`` in step with its ``llm`` field.

    For pydantic components that declare the fields ``llm`` and ``llm_id`` and the
    private attributes ``_llm`` and ``_usage_slot`` (a :class:`~chop_integrations.llm.usage.UsageSlot`:
    ``last_usage`` per thread); list it before the LlamaIndex base class.
    """

    if TYPE_CHECKING:  # declared by the component itself; pydantic must not see them here
        llm: Any
        _llm: LLM | None
        _usage_slot: UsageSlot

    @model_validator(mode="after")
    def _identify_llm(self) -> Any:
        self._refresh_llm()
        return self

    def _refresh_llm(self) -> None:
        self._llm, identity = resolve_llm(self.llm)
        object.__setattr__(self, "llm_id", identity)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "llm":  # keep the identity (and so the cache key) in step with the model
            self._refresh_llm()

    @property
    def last_usage(self) -> UsageReport | None:
        """The usage report of this thread's last run (``None`` before the first; also set after a raise)."""
        slot = self._usage_slot
        return slot.get() if slot.started else None
