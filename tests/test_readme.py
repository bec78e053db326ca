"""The code of README.md and docs/*.md runs, and the configuration reference names every parameter.

Every fenced ```python block of README.md and of each page under docs/ is executed, in order, each in a fresh
namespace (``{"__name__": "__readme__"}``): the quick starts and examples are meant to be copied one at a time,
so none may lean on another. Each block runs in an empty temporary working directory, which it must leave empty
(a reader who copies a block finds no stray file: a cache goes to a temporary folder the block removes), and
must neither warn (a Python warning raised from this package or the block; a library's own deprecation notes,
such as Ray's, are its business) nor log a WARNING of this package (the block that shows the failure policy
quiets its fallbacks, counted in ``last_usage``). The network stays untouched: the blocks use the offline
default or an offline fake, and the one that shows a real model only builds it when ``OPENAI_API_KEY`` is set,
which CI never sets (the test removes it). Shell and text blocks (```bash, ```text, ...) are shown only. Blocks
that need an extra (LangChain, LlamaIndex, Ray, Qdrant) run because ``make test`` installs ``.[dev]``, which holds
every extra.

A second test reads the tables of docs/configuration.md and checks that every public parameter of the six public
classes is documented there, so the reference cannot fall behind a new option.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PACKAGE = ROOT / "chop_integrations"
#: The pages whose blocks run: the README and every docs page that is a file of its own (the changelog page is
#: a link to CHANGELOG.md and holds no code).
PAGES = [README, *sorted(p for p in (ROOT / "docs").glob("*.md") if not p.is_symlink())]
REFERENCE = ROOT / "docs" / "configuration.md"
_FENCE = re.compile(r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
#: Languages a fenced block may have: the Python ones run, the others are shown only.
_SHOWN_ONLY = {"bash", "sh", "console", "text", "json", "toml", "yaml"}


def _blocks(page: Path) -> list[tuple[str, int, str]]:
    """``(language, line number, code)`` of every fenced block of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    return [(m["lang"], text.count("\n", 0, m.start()) + 1, m["body"]) for m in _FENCE.finditer(text)]


def _python_blocks(page: Path) -> list[tuple[int, str]]:
    return [(line, body) for lang, line, body in _blocks(page) if lang in ("python", "py")]


def _all_python_blocks() -> list[tuple[str, int, str]]:
    """``(page name relative to the root, line, code)`` of every Python block of every page."""
    return [(str(page.relative_to(ROOT)), line, code) for page in PAGES for line, code in _python_blocks(page)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_blocks_are_in_known_languages(page: Path) -> None:
    unknown = {lang for lang, _, _ in _blocks(page) if lang not in _SHOWN_ONLY | {"python", "py"}}
    assert not unknown, f"{page.name} has blocks in {unknown}: mark them python (run) or bash/text (shown only)"


def test_readme_has_the_quick_starts() -> None:
    sources = "\n".join(body for _, body in _python_blocks(README))
    for name in (
        "LumberChunker(",
        "CHOPChunker(",
        "LumberChunkerTextSplitter(",
        "CHOPDocumentTransformer(",
        "LumberChunkerNodeParser",
        "CHOPExtractor(",
    ):
        assert name in sources, f"no README quick start uses {name}"
    assert len(_python_blocks(README)) >= 5


@pytest.fixture(autouse=True)
def _registry_kept() -> Any:
    """An engine a block defines (the architecture page's, the FAQ's) leaves the registry as it found it."""
    from chop_integrations._llm.engine import ENGINES

    before = dict(ENGINES)
    yield
    ENGINES.clear()
    ENGINES.update(before)


@pytest.mark.parametrize(
    ("page", "line", "code"), _all_python_blocks(), ids=[f"{p}:{line}" for p, line, _ in _all_python_blocks()]
)
def test_python_block_runs(
    page: str,
    line: int,
    code: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    where = tmp_path / "cwd"
    where.mkdir()
    monkeypatch.chdir(where)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # Processes a block starts (Ray's workers) import this checkout too, not another install of the package.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    namespace: dict[str, object] = {"__name__": "__readme__"}
    name = f"{page}:{line}"
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        exec(compile(code, name, "exec"), namespace)
    assert capsys.readouterr().out.strip(), f"the block at {name} prints nothing to show the reader"
    left = sorted(p.name for p in where.iterdir())
    assert not left, f"the block at {name} leaves files in the working folder: {left}"
    # The block's own warnings and the package's (not a dependency's: the venv may lie inside the checkout).
    ours = [w for w in caught if w.filename == name or Path(w.filename).resolve().is_relative_to(PACKAGE)]
    assert not ours, f"the block at {name} warns: {[f'{w.category.__name__}: {w.message}' for w in ours]}"
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("chop_integrations") and r.levelno >= 30]
    assert not logged, f"the block at {name} logs warnings: {logged[:3]}"


# -- the configuration reference ------------------------------------------------------------------


def _reference_tables() -> dict[str, set[str]]:
    """``{class name: parameters named in its table}`` from docs/configuration.md (one ``## `Class` `` each)."""
    text = REFERENCE.read_text(encoding="utf-8")
    tables: dict[str, set[str]] = {}
    for part in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        name = re.match(r"`(\w+)`", part)
        assert name, f"a reference heading without a `ClassName`: {part[:40]!r}"
        tables[name[1]] = set(re.findall(r"^\| `(\*{0,2}\w+)` \|", part, flags=re.MULTILINE))
    return tables


def _init_parameters(cls: type) -> set[str]:
    return _parameters(cls.__init__)


def _parameters(function: Any) -> set[str]:
    params = inspect.signature(function).parameters.values()
    return {("**" + p.name) if p.kind is p.VAR_KEYWORD else p.name for p in params if p.name != "self"}


def _engine_parameters(cls: type, config: type) -> set[str]:
    """An engine's named parameters and its config's fields (its ``**options``)."""
    return (_init_parameters(cls) - {"**options"}) | set(config.model_fields)


def _own_fields(cls: type) -> set[str]:
    """A LlamaIndex component's own fields: declared by it or its base of ours, not LlamaIndex's or its config's.

    Its config's fields are the ``**options`` row; ``config`` is a keyword that sets them.
    """
    from chop_integrations.llama_index._fields import EngineComponent

    declared = {name for c in (cls, EngineComponent) for name in vars(c).get("__annotations__", {})}
    fields = set(cls.model_fields) | set(cls.model_computed_fields)  # type: ignore[attr-defined]
    return (declared | set(EngineComponent.model_computed_fields)) & fields | {"config", "**options"}


def test_configuration_reference_names_every_public_parameter() -> None:
    from chop_integrations import CHOPChunker, CHOPConfig, LumberChunker, LumberConfig
    from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter
    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    tables = _reference_tables()
    expected = {
        "LumberChunker": _engine_parameters(LumberChunker, LumberConfig),
        "CHOPChunker": _engine_parameters(CHOPChunker, CHOPConfig),
        "LumberChunkerTextSplitter": _init_parameters(LumberChunkerTextSplitter),
        "CHOPDocumentTransformer": _init_parameters(CHOPDocumentTransformer),
        "LumberChunkerNodeParser": _own_fields(LumberChunkerNodeParser)
        | _parameters(LumberChunkerNodeParser.from_defaults),
        "CHOPExtractor": _own_fields(CHOPExtractor) | {"num_workers"},
    }
    assert set(tables) == set(expected), "the reference documents exactly the six public classes"
    for name, parameters in expected.items():
        missing = parameters - tables[name]
        assert not missing, f"the configuration reference for {name} lacks {sorted(missing)}"
        stale = tables[name] - parameters
        assert not stale, f"the configuration reference for {name} names unknown parameters {sorted(stale)}"
