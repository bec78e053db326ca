"""The README's code runs, and its configuration reference names every parameter.

Every fenced ```python block of README.md is executed, in order, each in a
fresh namespace (``{"__name__": "__readme__"}``): the quick starts are meant to
be copied one at a time, so none may lean on another. Each block runs in a
temporary working directory (a block may write a cache file) with the network
untouched: the blocks use the offline default, and the one that shows a real
model only builds it when ``OPENAI_API_KEY`` is set, which CI never sets (the
test removes it). Shell blocks (```bash) are not run.

A second test reads the "Configuration reference" tables and checks that every
public parameter of the six public classes is documented there, so the README
cannot fall behind a new option.
"""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_FENCE = re.compile(r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
#: Languages a fenced block may have: the Python ones run, the others are shown only.
_SHOWN_ONLY = {"bash", "sh", "console", "text", "json", "toml"}


def _blocks() -> list[tuple[str, int, str]]:
    """``(language, line number, code)`` of every fenced block, in order."""
    text = README.read_text(encoding="utf-8")
    return [(m["lang"], text.count("\n", 0, m.start()) + 1, m["body"]) for m in _FENCE.finditer(text)]


def _python_blocks() -> list[tuple[int, str]]:
    return [(line, body) for lang, line, body in _blocks() if lang in ("python", "py")]


def test_readme_has_the_quick_starts_and_only_known_block_languages() -> None:
    blocks = _blocks()
    unknown = {lang for lang, _, _ in blocks if lang not in _SHOWN_ONLY | {"python", "py"}}
    assert not unknown, f"README blocks in {unknown}: mark them python (run) or bash (shown only)"
    sources = "\n".join(body for _, body in _python_blocks())
    for name in (
        "LumberChunker(",
        "CHOPChunker(",
        "LumberChunkerTextSplitter(",
        "CHOPDocumentTransformer(",
        "LumberChunkerNodeParser",
        "CHOPExtractor(",
    ):
        assert name in sources, f"no README quick start uses {name}"
    assert len(_python_blocks()) >= 5


@pytest.mark.parametrize(("line", "code"), _python_blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_readme_python_block_runs(
    line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # Processes a block starts (Ray's workers) import this checkout too, not another install of the package.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(README.parent), os.environ.get("PYTHONPATH")])))
    namespace: dict[str, object] = {"__name__": "__readme__"}
    exec(compile(code, f"README.md:{line}", "exec"), namespace)
    assert capsys.readouterr().out.strip(), f"the README block at line {line} prints nothing to show the reader"


# -- the configuration reference ------------------------------------------------------------------


def _reference_tables() -> dict[str, set[str]]:
    """``{class name: parameters named in its table}`` from the "Configuration reference" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    tables: dict[str, set[str]] = {}
    for part in re.split(r"^### ", section, flags=re.MULTILINE)[1:]:
        name = re.match(r"`(\w+)`", part)
        assert name, f"a reference heading without a `ClassName`: {part[:40]!r}"
        tables[name[1]] = set(re.findall(r"^\| `(\*{0,2}\w+)` \|", part, flags=re.MULTILINE))
    return tables


def _init_parameters(cls: type) -> set[str]:
    params = inspect.signature(cls.__init__).parameters.values()
    return {("**" + p.name) if p.kind is p.VAR_KEYWORD else p.name for p in params if p.name != "self"}


def _engine_parameters(cls: type, config: type) -> set[str]:
    """An engine's named parameters and its config's fields (its ``**options``)."""
    return (_init_parameters(cls) - {"**options"}) | set(config.model_fields)


def _own_fields(cls: type) -> set[str]:
    """The pydantic fields a LlamaIndex component declares itself (inherited ones are LlamaIndex's)."""
    own = {name for name in vars(cls).get("__annotations__", {}) if not name.startswith("_")}
    return own & set(cls.model_fields)  # type: ignore[attr-defined]


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
        | (set(inspect.signature(LumberChunkerNodeParser.from_defaults).parameters) - {"cls"}),
        "CHOPExtractor": _own_fields(CHOPExtractor) | {"num_workers"},
    }
    assert set(tables) == set(expected), "the reference documents exactly the six public classes"
    for name, parameters in expected.items():
        missing = parameters - tables[name]
        assert not missing, f"README configuration reference for {name} lacks {sorted(missing)}"
        stale = tables[name] - parameters
        assert not stale, f"README configuration reference for {name} names unknown parameters {sorted(stale)}"
