"""Token counting with tiktoken's ``cl100k_base`` that works with no network.

tiktoken downloads its BPE files on first use, which fails offline. The
encoding is resolved in this order:

1. ``TIKTOKEN_CACHE_DIR`` (or tiktoken's own default cache) already holds it:
   plain ``tiktoken.get_encoding``, no network.
2. ``llama-index-core`` is installed: it ships ``cl100k_base`` and
   ``o200k_base`` in ``llama_index/core/_static/tiktoken_cache``; the file is
   read from there directly (without importing ``llama_index``).
3. Otherwise tiktoken is asked to download it (the only step that needs a
   network).

Any ``Callable[[str], int]`` can replace the counter (``token_counter=``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from .errors import ConfigurationError

TokenCounter = Callable[[str], int]

_ENV_LOCK = threading.Lock()
_BLOB_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def _cache_key(encoding_name: str) -> str:
    return hashlib.sha1(_BLOB_URLS[encoding_name].encode()).hexdigest()


def _cached_file(encoding_name: str) -> Path | None:
    """The locally cached BPE file for ``encoding_name``, if any cache has it."""
    key = _cache_key(encoding_name)
    dirs = [os.environ.get("TIKTOKEN_CACHE_DIR"), os.environ.get("DATA_GYM_CACHE_DIR")]
    dirs.append(str(Path(tempfile.gettempdir()) / "data-gym-cache"))
    spec = importlib.util.find_spec("llama_index.core") if importlib.util.find_spec("llama_index") else None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            dirs.append(str(Path(location) / "_static" / "tiktoken_cache"))
    for directory in dirs:
        if directory and (Path(directory) / key).is_file():
            return Path(directory) / key
    return None


@functools.lru_cache(maxsize=4)
def get_encoding(encoding_name: str = "cl100k_base"):  # type: ignore[no-untyped-def]
    """Return a tiktoken ``Encoding``, loading it from a local cache where one exists.

    Raises:
        ConfigurationError: When the encoding is in no cache and cannot be downloaded.
    """
    import tiktoken

    local = _cached_file(encoding_name) if encoding_name in _BLOB_URLS else None
    if local is not None:
        # tiktoken reads TIKTOKEN_CACHE_DIR when it loads; point it at the cache for this one load.
        with _ENV_LOCK:
            previous = os.environ.get("TIKTOKEN_CACHE_DIR")
            os.environ["TIKTOKEN_CACHE_DIR"] = str(local.parent)
            try:
                return tiktoken.get_encoding(encoding_name)
            finally:
                if previous is None:
                    del os.environ["TIKTOKEN_CACHE_DIR"]
                else:
                    os.environ["TIKTOKEN_CACHE_DIR"] = previous
    try:
        return tiktoken.get_encoding(encoding_name)
    except Exception as err:  # network or cache failures surface as assorted exceptions
        raise ConfigurationError(
            f"tiktoken could not load {encoding_name!r} (no local cache and no network: {err}). "
            "Set TIKTOKEN_CACHE_DIR to a folder holding the encoding, install the 'llama-index' extra "
            "(llama-index-core ships cl100k_base), or pass token_counter= any Callable[[str], int]."
        ) from err


def tiktoken_counter(encoding_name: str = "cl100k_base") -> TokenCounter:
    """A token counter backed by a tiktoken encoding (special tokens counted as text)."""
    encoding = get_encoding(encoding_name)

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    count.__name__ = f"tiktoken_{encoding_name}"
    return count


@functools.lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The package's default counter: tiktoken ``cl100k_base``."""
    return tiktoken_counter("cl100k_base")


def resolve_counter(token_counter: TokenCounter | str | None) -> TokenCounter:
    """Turn a ``token_counter=`` argument into a callable.

    Args:
        token_counter: ``None`` (the default, cl100k_base), an encoding name, or a callable.

    Raises:
        ConfigurationError: When it is none of these.
    """
    if token_counter is None:
        return default_counter()
    if isinstance(token_counter, str):
        return tiktoken_counter(token_counter)
    if callable(token_counter):
        return token_counter
    raise ConfigurationError(
        f"token_counter must be None, an encoding name or a callable, got {type(token_counter).__name__}"
    )
