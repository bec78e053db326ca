"""What the LlamaIndex components share: their fields made from an engine's config, and the engine they keep.

Every field of :class:`~chop_integrations.LumberConfig` (or :class:`~chop_integrations.CHOPConfig`)
becomes a pydantic field of the component with the same name, annotation, default and description
(:func:`config_fields`), so ``from_defaults(max_tokens=200)`` and ``to_dict()`` read as they do
for LlamaIndex's own parsers, and an option added to the config appears here by itself.
:class:`EngineComponent` validates the fields once, as the config, keeps the engine built from
them, and builds it again only when a field (or the LLM) changes.

The IngestionPipeline caches each transformation's output under a hash of the input nodes and
``transformation.to_dict()``, so every option that changes the output must be in it. Plain
values (str, numbers, bools, None) are; an object (a callable token counter, an offline
decider, an embedder, a corpus) cannot be serialised, so ``to_dict()`` writes ``None`` in its
place and its identity in ``object_ids``; the LLM's identity is ``llm_id``. ``cache`` and
``retry`` change where answers come from, never what they are, and stay out of ``to_dict()``.
"""

from __future__ import annotations

import hashlib
import pickle
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    ValidationError,
    computed_field,
    create_model,
    model_validator,
)

from .._errors import ConfigurationError
from .._llm.options import LLMConfig, configuration_error, unknown_option
from .._llm.protocol import LLM, as_llm
from .._llm.usage import UsageReport, UsageSlot
from .._text.embedding_limit import resolve_embedding_limit

#: ``llm_id`` of a component without an LLM (the offline deciders).
OFFLINE_ID = "offline"
#: ``llm=`` value that takes LlamaIndex's global ``Settings.llm`` (an explicit opt-in: the default stays offline).
SETTINGS = "settings"
#: Config fields that change where answers come from or who watches, not what they are: never part of ``to_dict()``.
UNKEYED = ("cache", "retry", "max_calls", "max_llm_tokens", "on_progress")


def resolve_llm(llm: Any) -> tuple[LLM | None, str]:
    """Wrap ``llm`` into the engines' protocol and return it with its identity.

    Args:
        llm: ``None``, a LlamaIndex LLM, or any object :func:`chop_integrations.as_llm` accepts.

    Raises:
        ConfigurationError: When ``llm`` is none of these.
    """
    wrapped = as_llm(llm)
    return wrapped, OFFLINE_ID if wrapped is None else wrapped.model_id


def settings_llm() -> Any:
    """LlamaIndex's ``Settings.llm`` (which builds LlamaIndex's default OpenAI LLM when none was set)."""
    from llama_index.core import Settings

    return Settings.llm


def _is_settings(llm: Any) -> bool:
    return isinstance(llm, str) and llm == SETTINGS


def is_plain(value: Any) -> bool:
    """Whether ``value`` serialises as itself in ``to_dict()`` (a JSON scalar, or a list or dict of them)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and is_plain(item) for key, item in value.items())
    return False


def object_identity(obj: Any) -> str:
    """A cache-key identity for an option that is not serialised (an offline decider, a counter, a corpus).

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


def _identity(name: str, value: Any) -> str:
    """:func:`object_identity`, except an embedder: what the engine reads of it (its limit), not its weights."""
    if name == "embedding":
        limit = resolve_embedding_limit(value)
        model = getattr(value, "model_name", None) or type(value).__qualname__
        return f"{model}:max_tokens={limit.max_tokens if limit else None}"
    return object_identity(value)


def progress(total: int, show: bool, description: str) -> Any:
    """A tqdm bar over ``total`` documents, as LlamaIndex's components draw; silent unless ``show`` on a terminal.

    With an LLM the components draw a bar of decisions instead, which moves within a document
    (:func:`~chop_integrations._llm.progress_bar.watched`).
    """
    from tqdm.auto import tqdm

    from .._llm.progress_bar import terminal

    return tqdm(total=total, desc=description, unit="doc", disable=not (show and terminal()))


def _serialised(value: Any) -> Any:
    return value if is_plain(value) else None


def config_fields(config: type[BaseModel]) -> dict[str, Any]:
    """Every field of ``config`` as a component field: same name, annotation, default and description.

    A value that is no plain value serialises as ``None`` (its identity goes into
    ``object_ids``); :data:`UNKEYED` fields are left out of ``to_dict()``.
    """
    fields: dict[str, Any] = {}
    for name, info in config.model_fields.items():
        annotation = Annotated[info.annotation, PlainSerializer(_serialised)]  # type: ignore[name-defined]
        default: dict[str, Any] = (
            {"default_factory": info.default_factory} if info.default_factory else {"default": info.default}
        )
        fields[name] = (annotation, Field(**default, description=info.description, exclude=name in UNKEYED))
    return fields


def config_model(name: str, config: type[BaseModel]) -> type[BaseModel]:
    """A pydantic model holding :func:`config_fields` of ``config``, for a component to inherit."""
    fields = config_fields(config)
    return create_model(name, __config__=ConfigDict(arbitrary_types_allowed=True), **fields)  # type: ignore[call-overload, no-any-return]


def _as_configuration_error(config: type[LLMConfig], exc: ValidationError) -> ConfigurationError:
    """A failed validation of a component as the engines report it: a :class:`ConfigurationError`.

    A check's own error as it was raised; a value pydantic refused before any check ran (``max_tokens=nan``
    is no ``int``) is handed to ``config``'s own check, so the message names the bound as an engine's does.
    """
    errors = exc.errors()
    raised = next((e.get("ctx", {}).get("error") for e in errors if e.get("ctx")), None)
    if isinstance(raised, ConfigurationError):
        return raised
    for error in errors:
        name = error["loc"][0] if error["loc"] else None
        if name in config.model_fields:
            try:
                config(**{str(name): error.get("input")})
            except ConfigurationError as own:
                return own
    return configuration_error(exc)


class EngineComponent(BaseModel):
    """Validates a component's config fields once, keeps its engine, and keeps both in step with the fields.

    The base of the LlamaIndex components, listed before the LlamaIndex base class and
    followed by a :func:`config_model` of :attr:`CONFIG`. It holds the LLM (``llm``, and its
    identity ``llm_id``), the config the fields make, the engines built from them (by a key
    the component chooses) and ``last_usage`` (per thread). ``config=`` (a ready config
    object) sets the fields it was built with; keywords override them.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    #: The engine's config class (LumberConfig or CHOPConfig).
    CONFIG: ClassVar[type[LLMConfig]]
    #: Fields besides the config's that the engine is built with (a corpus state).
    ENGINE_INPUTS: ClassVar[tuple[str, ...]] = ()

    llm: Any = Field(
        default=None,
        exclude=True,
        repr=False,  # the LLM's own repr may show its API key (LlamaIndex's OpenAI does); llm_id names it
        description="A LlamaIndex LLM (or any LLM protocol object); 'settings': LlamaIndex's Settings.llm; "
        "None: the offline deciders. Not serialised.",
    )
    llm_id: str = Field(
        default=OFFLINE_ID,
        description="Identity of `llm` (class, model, decoding settings); set from `llm`, part of the cache key.",
    )

    _llm: LLM | None = PrivateAttr(default=None)
    _config: Any = PrivateAttr(default=None)
    _engines: dict[Any, Any] = PrivateAttr(default_factory=dict)
    _usage_slot: UsageSlot = PrivateAttr(default_factory=UsageSlot)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:  # a check's own ConfigurationError, as the engines raise it
            raise _as_configuration_error(type(self).CONFIG, exc) from None

    @model_validator(mode="before")
    @classmethod
    def _spread_config(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = cls._take_ready({k: v for k, v in data.items() if k != "object_ids"})  # object_ids: recomputed
        unknown = [name for name in data if name not in cls.model_fields and name != "config"]
        if unknown:
            raise ConfigurationError(unknown_option(cls, unknown[0]))
        config = data.pop("config", None)
        if config is not None:
            if not isinstance(config, cls.CONFIG):
                raise ConfigurationError(f"config must be a {cls.CONFIG.__name__}, got {type(config).__name__}")
            data = {**{name: getattr(config, name) for name in config.model_fields_set}, **data}
        if _is_settings(data.get("llm")):
            data["llm"] = settings_llm()
        return data

    @classmethod
    def _take_ready(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Turn a ready object the component also accepts (a node parser's ``chunker=``) into fields."""
        return data

    @model_validator(mode="after")
    def _configure(self) -> Any:
        self._set_llm(resolve_llm(self.llm))
        self._set_config(self._config_of({}))
        return self

    def _config_of(self, change: dict[str, Any]) -> LLMConfig:
        """The config the fields make, with ``change`` applied (validated: raises on a bad value)."""
        return self.CONFIG(**{**{name: getattr(self, name) for name in self.CONFIG.model_fields}, **change})

    def _set_llm(self, resolved: tuple[LLM | None, str]) -> None:
        self._llm, identity = resolved
        object.__setattr__(self, "llm_id", identity)
        self._engines.clear()

    def _set_config(self, config: LLMConfig) -> None:
        self._config = config
        self._engines.clear()

    def __setattr__(self, name: str, value: Any) -> None:
        """Set a field; a config field or the LLM is checked first and the engine is built again on next use."""
        if name == "llm":
            value = settings_llm() if _is_settings(value) else value
            resolved = resolve_llm(value)  # raises before anything changes
            super().__setattr__(name, value)
            self._set_llm(resolved)
        elif name in self.CONFIG.model_fields:
            config = self._config_of({name: value})
            super().__setattr__(name, value)
            self._set_config(config)
        elif name in self.ENGINE_INPUTS:
            super().__setattr__(name, value)
            self._engines.clear()
        else:
            super().__setattr__(name, value)

    @property
    def config(self) -> LLMConfig:
        """The engine's config, as the fields set it (validated once per change)."""
        return self._config

    @computed_field  # type: ignore[prop-decorator]
    @property
    def object_ids(self) -> dict[str, str]:
        """Identity of each option set to an object (not serialised): part of the pipeline cache key.

        The config's options (less :data:`UNKEYED`) and the engine's other inputs.
        """
        names = [*(name for name in self.CONFIG.model_fields if name not in UNKEYED), *self.ENGINE_INPUTS]
        values = {name: getattr(self, name) for name in names}
        return {name: _identity(name, value) for name, value in values.items() if not is_plain(value)}

    @property
    def last_usage(self) -> UsageReport | None:
        """The usage report of this thread's last run (``None`` before the first; also set after a raise)."""
        slot = self._usage_slot
        return slot.get() if slot.started else None
