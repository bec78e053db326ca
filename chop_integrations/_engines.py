"""The engines by name, and the one function that builds an engine from its config fields.

The command line (``chop-integrations chunk``) and Ray (:func:`chop_integrations.ray.build_engine`)
both build their engine here, from the fields of its config
(:class:`~chop_integrations.LumberConfig`, :class:`~chop_integrations.CHOPConfig`),
so an option means the same everywhere.
"""

from __future__ import annotations

from typing import Any

from ._chop.chunker import CHOPChunker
from ._chop.config import CHOPConfig
from ._errors import ConfigurationError
from ._llm.options import LLMConfig
from ._lumber.chunker import LumberChunker
from ._lumber.config import LumberConfig

__all__ = ["CONFIGS", "ENGINES", "build_engine", "engine_class"]

#: The engines by name.
ENGINES: dict[str, type] = {"chop": CHOPChunker, "lumber": LumberChunker}
#: Each engine's config class, by name.
CONFIGS: dict[str, type[LLMConfig]] = {"chop": CHOPConfig, "lumber": LumberConfig}


def engine_class(engine: str | type) -> type:
    """The engine class ``engine`` names (``"chop"``, ``"lumber"``), or ``engine`` itself when it is a class.

    Raises:
        ConfigurationError: On an unknown name.
    """
    cls = ENGINES.get(engine) if isinstance(engine, str) else engine
    if not isinstance(cls, type):
        raise ConfigurationError(f"engine must be one of {sorted(ENGINES)} or an engine class, got {engine!r}")
    return cls


def build_engine(engine: str | type = "chop", llm: Any = None, **options: Any) -> Any:
    """Build ``engine`` with ``llm`` and its config fields as keyword options.

    Args:
        engine: ``"chop"``, ``"lumber"``, or an engine class taking ``(llm, **options)``.
        llm: The model, or ``None`` for the offline deciders.
        **options: Config fields (or an engine class's own options), and ``config=`` a whole config.

    Raises:
        ConfigurationError: On an unknown engine, an unknown option (naming the valid ones) or an invalid value.
    """
    return engine_class(engine)(llm, **options)
