"""Token counting that works with no network and no extra: tiktoken encodings and simple counters.

tiktoken downloads its BPE files on first use, which fails (or hangs) offline.
An encoding's file is looked up in this order, and the first found is used:

1. ``TIKTOKEN_CACHE_DIR`` (or ``DATA_GYM_CACHE_DIR``, or tiktoken's default cache in the temp folder) already holds it;
2. ``llama-index-core`` is installed: it ships ``cl100k_base`` and ``o200k_base`` in
   ``llama_index/core/_static/tiktoken_cache`` (read from there without importing ``llama_index``);
3. the copy of ``cl100k_base`` shipped with this package (``chop_integrations/_tiktoken``; MIT, see its ``NOTICE``);
4. otherwise it is downloaded, with a bounded timeout (:data:`DOWNLOAD_TIMEOUT_S`), into tiktoken's cache.

So the default counter never needs a network; where the file came from is logged once at INFO, and every usage
report names the counter. The counters are picklable module-level classes (a tiktoken counter pickles as its
encoding's name); any ``Callable[[str], int]`` can replace them (``token_counter=``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import logging
import os
import re
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import ConfigurationError
from .long_runs import count_in_halves, long_runs

logger = logging.getLogger("chop_integrations.tokens")  # its name before the move

TokenCounter = Callable[[str], int]

#: Seconds a download of a BPE file may take before it is given up (tiktoken's own has no limit).
DOWNLOAD_TIMEOUT_S = 20.0
#: The folder of BPE files shipped with the package (named as tiktoken's cache names them).
SHIPPED_DIR = Path(__file__).parents[1] / "_tiktoken"
#: Short names the CLI and ``token_counter=`` accept, and the encoding each stands for.
ALIASES = {"cl100k": "cl100k_base", "o200k": "o200k_base"}

PIECE_CHARS = 1 << 20  #: Characters a :class:`TiktokenCounter` encodes at once (at most about twice that).
_PIECE_CUT = re.compile(r"\n[A-Za-z]")
_ENV_LOCK = threading.Lock()
_BLOB_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
#: SHA-256 of each file, as tiktoken_ext.openai_public checks it.
_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def _cache_key(encoding_name: str) -> str:
    return hashlib.sha1(_BLOB_URLS[encoding_name].encode()).hexdigest()


def _cache_dirs() -> list[tuple[str, Path]]:
    """Every folder that may hold a BPE file, in lookup order, each with a word for the log."""
    dirs: list[tuple[str, Path]] = []
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(var):
            dirs.append((f"${var}", Path(os.environ[var])))
    dirs.append(("tiktoken's cache", Path(tempfile.gettempdir()) / "data-gym-cache"))
    try:
        spec = importlib.util.find_spec("llama_index.core") if importlib.util.find_spec("llama_index") else None
    except (ImportError, ValueError):  # not installed, or a broken install: skip it
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            dirs.append(("llama-index-core's copy", Path(location) / "_static" / "tiktoken_cache"))
    dirs.append(("the copy shipped with chop-integrations", SHIPPED_DIR))
    return dirs


def _intact(path: Path, encoding_name: str) -> bool:
    """Whether ``path`` holds the encoding's file byte for byte (tiktoken would re-download a damaged one)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == _SHA256[encoding_name]
    except OSError:
        return False


def _find_file(encoding_name: str) -> tuple[Path, str] | None:
    """The first intact local BPE file for ``encoding_name`` and where it lies, if any."""
    key = _cache_key(encoding_name)
    for where, directory in _cache_dirs():
        if (directory / key).is_file():
            if _intact(directory / key, encoding_name):
                return directory / key, where
            logger.warning("ignoring %s: not tiktoken's %s file (damaged or partial)", directory / key, encoding_name)
    return None


def share_tiktoken_cache(encoding_name: str = "cl100k_base") -> None:
    """Point ``TIKTOKEN_CACHE_DIR`` at the local BPE file of ``encoding_name``, unless it is set already.

    For libraries that load tiktoken themselves (chonkie, LangChain's and LlamaIndex's splitters): offline,
    they then find the file this module finds (a cache, llama-index-core's copy or the shipped one).
    Nothing happens when there is no local file.
    """
    found = _find_file(encoding_name) if encoding_name in _BLOB_URLS else None
    if found is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(found[0].parent))


def _download(encoding_name: str, *, timeout: float) -> Path:
    """Download a BPE file into tiktoken's cache with a time limit, checking its SHA-256.

    Raises:
        OSError: When the download fails, times out or does not match its checksum.
    """
    deadline = time.monotonic() + timeout
    parts: list[bytes] = []
    with urllib.request.urlopen(_BLOB_URLS[encoding_name], timeout=timeout) as response:
        while part := response.read(1 << 16):  # each read waits at most `timeout`; the whole at most about that
            parts.append(part)
            if time.monotonic() > deadline:
                raise TimeoutError(f"downloading {encoding_name} took over {timeout:g} s")
    data = b"".join(parts)
    if hashlib.sha256(data).hexdigest() != _SHA256[encoding_name]:
        raise OSError(f"the downloaded {encoding_name} file does not match its checksum")
    folder = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or Path(tempfile.gettempdir()) / "data-gym-cache")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / _cache_key(encoding_name)
    partial = target.with_name(f"{target.name}.{uuid.uuid4().hex}.tmp")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def _load_from(folder: Path, encoding_name: str) -> Any:
    """``tiktoken.get_encoding`` with ``TIKTOKEN_CACHE_DIR`` pointed at ``folder`` for this one load."""
    import tiktoken

    with _ENV_LOCK:
        previous = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
        try:
            return tiktoken.get_encoding(encoding_name)
        finally:
            if previous is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous


def _load_other(encoding_name: str, *, timeout: float) -> Any:
    """An encoding this module has no file table for: tiktoken loads it, in a thread we stop waiting for."""
    import tiktoken

    result: dict[str, Any] = {}

    def load() -> None:
        try:
            result["encoding"] = tiktoken.get_encoding(encoding_name)
        except Exception as err:  # reported to the caller below
            result["error"] = err

    worker = threading.Thread(target=load, name=f"tiktoken-{encoding_name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if "encoding" in result:
        return result["encoding"]
    raise OSError(result.get("error") or f"tiktoken did not load it within {timeout:g} s")


@functools.lru_cache(maxsize=8)
def get_encoding(encoding_name: str = "cl100k_base"):  # type: ignore[no-untyped-def]
    """Return a tiktoken ``Encoding``, from a local file where one exists (see the module docs).

    Raises:
        ConfigurationError: When the encoding is in no local folder and cannot be downloaded in time.
    """
    import tiktoken

    encoding_name = ALIASES.get(encoding_name, encoding_name)
    if encoding_name not in tiktoken.list_encoding_names():
        raise ConfigurationError(
            f"unknown token counter {encoding_name!r}: use cl100k, o200k, chars, words, a 'module:function' path "
            f"or a tiktoken encoding ({', '.join(tiktoken.list_encoding_names())})"
        )
    try:
        if encoding_name not in _BLOB_URLS:
            encoding = _load_other(encoding_name, timeout=DOWNLOAD_TIMEOUT_S)
            logger.info("token counter: tiktoken %s, loaded by tiktoken", encoding_name)
            return encoding
        found = _find_file(encoding_name)
        if found is None:
            logger.info(
                "tiktoken %s is in no local folder; downloading it (%g s limit)", encoding_name, DOWNLOAD_TIMEOUT_S
            )
            found = _download(encoding_name, timeout=DOWNLOAD_TIMEOUT_S), "a download"
        encoding = _load_from(found[0].parent, encoding_name)
    except Exception as err:  # network, cache and unknown-name failures surface as assorted exceptions
        raise ConfigurationError(
            f"tiktoken could not load {encoding_name!r} (no local copy and no download: {_one_line(err)}). "
            "Set TIKTOKEN_CACHE_DIR to a folder holding the encoding, use the default cl100k_base "
            "(shipped with the package), or pass token_counter= 'chars', 'words' or any Callable[[str], int]."
        ) from err
    logger.info("token counter: tiktoken %s, read from %s (%s)", encoding_name, found[1], found[0])
    return encoding


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


class TiktokenCounter:
    """Counts tokens with a tiktoken encoding (special tokens counted as text).

    The encoding is loaded when the counter is made, so a missing file fails at
    once; a pickle holds only the encoding's name and the encoding is loaded
    again on first use in the new process.

    Args:
        encoding_name: A tiktoken encoding name (or ``"cl100k"``/``"o200k"``).

    Raises:
        ConfigurationError: When the encoding cannot be loaded.
    """

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        self.encoding_name = ALIASES.get(encoding_name, encoding_name)
        self._encoding: Any = get_encoding(self.encoding_name)

    @property
    def name(self) -> str:
        """How usage reports name this counter: ``tiktoken:<encoding>``."""
        return f"tiktoken:{self.encoding_name}"

    def __call__(self, text: str) -> int:
        """The number of tokens in ``text``, special tokens counted as text (as tiktoken's ``encode`` does).

        Up to ``2 * PIECE_CHARS`` characters at once (not ``encode_ordinary``: it panics on an overflow); longer, in
        pieces cut after a line break before an ASCII letter, where tiktoken's pattern ends one (the sum is exact).
        """
        if len(text) <= 2 * PIECE_CHARS and self._encoding is not None and not long_runs(text):
            try:
                return len(self._encoding._core_bpe.encode(text, set()))  # no special token: counted as text
            except UnicodeEncodeError:  # a lone surrogate (a ValueError too, so first): tiktoken's encode mends it
                pass
            except ValueError:  # a whitespace run the pattern overflows on: straight to its halves (see _count)
                return self._count(text[: len(text) // 2]) + self._count(text[len(text) // 2 :])
        total, start = 0, 0
        while len(text) - start > 2 * PIECE_CHARS and (cut := _PIECE_CUT.search(text, start + PIECE_CHARS)):
            total += self._count(text[start : cut.start() + 1])
            start = cut.start() + 1
        return total + self._count(text[start:])

    def _ids(self, text: str) -> list[int]:
        """``text``'s token ids; loads the encoding on first use (an unpickled counter has none)."""
        if self._encoding is None:
            self._encoding = get_encoding(self.encoding_name)
        return self._encoding.encode(text, disallowed_special=())

    def _count(self, text: str) -> int:
        # tiktoken's pattern overflows on a whitespace run of about a million: such a text has no token count
        # of its own, its halves' counts are summed (:mod:`.long_runs`)
        return count_in_halves(lambda piece: len(self._ids(piece)), text)

    def head_end(self, text: str, tokens: int) -> tuple[int, int] | None:
        """``(count, end)``: the tokens in ``text``, and the character offset where its first ``tokens`` end.

        A guess for a search over prefixes (``text[:end]`` alone may count otherwise): the caller verifies it.
        ``None`` when tiktoken cannot encode ``text``.
        """
        try:
            ids = self._ids(text)
        except ValueError:
            return None
        if len(ids) <= tokens:
            return len(ids), len(text)
        head = b"".join(self._encoding.decode_tokens_bytes(ids[:tokens]))
        return len(ids), len(head.decode("utf-8", "ignore"))  # a character cut between tokens is left out

    def __getstate__(self) -> dict[str, Any]:
        return {"encoding_name": self.encoding_name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.encoding_name = state["encoding_name"]
        self._encoding = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TiktokenCounter) and other.encoding_name == self.encoding_name

    def __hash__(self) -> int:
        return hash((TiktokenCounter, self.encoding_name))

    def __repr__(self) -> str:
        return f"TiktokenCounter({self.encoding_name!r})"


@dataclass(frozen=True)
class CharCounter:
    """Counts characters: no tokenizer at all, and never fewer than cl100k tokens for ordinary text.

    A dataclass without fields: every instance is equal to every other and shows as ``CharCounter()``.
    """

    name = "chars"

    def __call__(self, text: str) -> int:
        """The number of characters in ``text``."""
        return len(text)


_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class WordCounter:
    """Counts whitespace-separated words (about 0.75 of cl100k tokens on English prose); a dataclass as well."""

    name = "words"

    def __call__(self, text: str) -> int:
        """The number of words in ``text``."""
        return sum(1 for _ in _WORD.finditer(text))


def tiktoken_counter(encoding_name: str = "cl100k_base") -> TokenCounter:
    """A token counter backed by a tiktoken encoding (a :class:`TiktokenCounter`)."""
    return TiktokenCounter(encoding_name)


@functools.lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The package's default counter: tiktoken ``cl100k_base`` (shipped, so it never needs a network)."""
    return TiktokenCounter("cl100k_base")


def counter_name(counter: TokenCounter) -> str:
    """How a usage report names ``counter``: its ``name`` attribute, else ``module:qualname``."""
    name = getattr(counter, "name", None)
    if isinstance(name, str):
        return name
    target = counter if hasattr(counter, "__qualname__") else type(counter)
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', repr(counter))}"


def _import_path(path: str) -> TokenCounter:
    """The callable a ``module:attribute`` path names.

    Raises:
        ConfigurationError: When the module cannot be imported or the attribute is missing or not callable.
    """
    module_name, _, attribute = path.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError, ValueError) as err:
        raise ConfigurationError(f"token counter {path!r} could not be loaded: {err}") from err
    if isinstance(target, type):  # a class: an instance is the counter
        target = target()
    if not callable(target):
        raise ConfigurationError(f"token counter {path!r} is not callable")
    return target  # type: ignore[no-any-return]


def resolve_counter(token_counter: TokenCounter | str | None) -> TokenCounter:
    """Turn a ``token_counter=`` argument into a callable.

    Args:
        token_counter: ``None`` (the default, cl100k_base); ``"chars"``; ``"words"``; a tiktoken
            encoding name (``"cl100k"``/``"o200k"`` for short); a ``"module:function"`` path; or a callable.

    Raises:
        ConfigurationError: When it is none of these, or the encoding or path cannot be loaded.
    """
    if token_counter is None:
        return default_counter()
    if isinstance(token_counter, str):
        if token_counter == "chars":
            return CharCounter()
        if token_counter == "words":
            return WordCounter()
        if ":" in token_counter:
            return _import_path(token_counter)
        return TiktokenCounter(token_counter)
    if callable(token_counter):
        return token_counter
    raise ConfigurationError(
        f"token_counter must be None, a name, a 'module:function' path or a callable, "
        f"got {type(token_counter).__name__}"
    )
