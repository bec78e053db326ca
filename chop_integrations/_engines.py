"""The engines by name, and the one function that builds an engine from its config fields.

The registry is :data:`~chop_integrations._llm.engine.ENGINES`: an engine class registers itself by subclassing
:class:`~chop_integrations._llm.engine.Engine` with a ``name``. This module imports the shipped engines
(``"lumber"``, ``"chop"``) so that they are in it. The command line (``chop-integrations chunk``: ``--method``
and the config flags) and Ray (:func:`chop_integrations.ray.build_engine`) build their engine here, from the
fields of its config (:attr:`Engine.config_class`), so an option means the same everywhere.
"""

from __future__ import annotations

from typing import Any

from ._chop.chunker import CHOPChunker
from ._errors import ConfigurationError
from ._llm.engine import ENGINES, Engine
from ._lumber.chunker import LumberChunker

__all__ = ["ENGINES", "SHIPPED", "Engine", "build_engine", "engine_class"]

#: The engines this package ships (each registered in :data:`ENGINES` when its class is defined).
SHIPPED: tuple[type[Engine], ...] = (LumberChunker, CHOPChunker)


def engine_class(engine: str | type) -> type:
    """The engine class ``engine`` names (a key of :data:`ENGINES`), or ``engine`` itself when it is a class.

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
        engine: A name in :data:`ENGINES` (``"chop"``, ``"lumber"``...), or an engine class taking
            ``(llm, **options)``.
        llm: The model, or ``None`` for the offline deciders.
        **options: Config fields (or an engine class's own options), and ``config=`` a whole config.

    Raises:
        ConfigurationError: On an unknown engine, an unknown option (naming the valid ones) or an invalid value.
    """
    return engine_class(engine)(llm, **options)
