"""The package's architecture, checked from its source: layers, no import cycles, small modules.

Every ``import`` and ``from ... import`` in the package (lazy ones inside functions and ``TYPE_CHECKING``
blocks included) is read with :mod:`ast` and resolved to the module it names. A module may import
its own layer or a lower one, never a higher one, and the import graph has no cycle.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "chop_integrations"
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
ROOT = "chop_integrations"
#: The benchmark: a package of its own beside the library (``bench/``), above every layer. It may import the
#: library; the library never imports it (its commands reach the CLI through entry points).
BENCH_PACKAGE = PACKAGE.parent / "bench" / "chop_bench"
BENCH_ROOT = "chop_bench"

#: Lowest first. A module belongs to the longest name here that is it or a package above it.
LAYERS: list[tuple[str, ...]] = [
    ("_errors",),  # the exceptions
    ("_defaults",),  # the numbers chosen on data, with their provenance
    ("_types",),  # the data: Unit, Chunk, CNM and its prefix rendering
    ("_text",),  # tokens and segmentation
    ("_deciders", "_checks", "_files"),  # the decision protocols; document and option checks; output files
    ("_llm",),  # the model protocol, runner, retries, cache, parsing, usage, failure policy
    ("_offline",),  # the offline deciders
    ("_lumber",),  # LumberChunker
    ("_chop",),  # CHOPChunker (uses LumberChunker as its default base chunker)
    ("_query",),  # CHOP at query time: the signature catalog, the query reader, section runs
    ("testing",),  # the fake LLMs (the facade re-exports ScriptedLLM)
    ("", "_engines"),  # the public facade (chop_integrations/__init__.py) and the engines by name
    ("langchain", "llama_index", "ray"),  # the framework adapters (Ray Data too)
    ("_demo",),  # the offline demo
    ("_cli",),  # the command line
]
MAX_LINES = 400
MAX_TOP_LEVEL = 10
HEAVY = (
    *("langchain", "langchain_core", "llama_index", "torch", "sentence_transformers", "numpy"),
    *("ray", "pyarrow", "pandas"),
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The package modules ``name`` imports, with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == ROOT:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(name, path.name == "__init__.py", node)
            if target.split(".")[0] != ROOT:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield (sub if sub in known else target), node.lineno


def layer(name: str) -> int:
    rel = name[len(ROOT) + 1 :] if name != ROOT else ""
    best, best_len = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (rel == prefix or rel.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
            if prefix == "" and rel == "" and best_len < 0:
                best, best_len = index, 0
    return best


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: {t for t, _ in imports(name, path, known) if t != name} for name, path in known.items()}


def test_every_module_has_a_layer() -> None:
    missing = [name for name in modules() if layer(name) < 0]
    assert not missing, f"modules outside every layer (add them to LAYERS): {missing}"


def test_imports_point_down() -> None:
    known = modules()
    upward = []
    for name, path in known.items():
        for target, line in imports(name, path, known):
            if layer(name) >= 0 and layer(target) > layer(name):
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line} {name} -> {target}")
    upward = list(dict.fromkeys(upward))
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle() -> None:
    cycle = _cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def documented_layers(page: str) -> list[tuple[str, ...]]:
    """The layer table of ``docs/architecture.md``: each row's modules, lowest first (the facade as ``""``)."""
    table = page.split("<!-- layers:", 1)[1].split("<!-- /layers -->", 1)[0]
    rows = [line.split("|")[2] for line in table.splitlines() if re.match(r"\|\s*\d+\s*\|", line)]
    return [
        tuple("" if cell.strip() == "(the facade)" else cell.strip(" `") for cell in row.split(",")) for row in rows
    ]


def test_the_architecture_page_shows_these_layers() -> None:
    documented = documented_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert documented == LAYERS, f"docs/architecture.md's layer table differs from LAYERS: {documented} != {LAYERS}"


def test_the_layer_table_reader_reads_rows_in_order() -> None:
    page = "x\n<!-- layers: -->\n| layer | modules | w |\n|---:|---|---|\n"
    page += "| 1 | `_a` | a |\n| 2 | (the facade), `_b` | b |\n"
    assert documented_layers(page + "<!-- /layers -->\n| 3 | `_c` | c |") == [("_a",), ("", "_b")]


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_layer_lookup() -> None:
    assert layer("chop_integrations") == next(i for i, p in enumerate(LAYERS) if "" in p)
    assert layer("chop_integrations._llm.runner") > layer("chop_integrations._text.tokens")
    assert layer("chop_integrations.langchain._llm") > layer("chop_integrations._llm.protocol")


def bench_modules() -> dict[str, Path]:
    return {".".join(p.relative_to(BENCH_PACKAGE.parent).with_suffix("").parts): p for p in BENCH_PACKAGE.rglob("*.py")}


@pytest.mark.parametrize("name", sorted([*modules(), *bench_modules()]))
def test_module_is_small(name: str) -> None:
    path = {**modules(), **bench_modules()}[name]
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES})"


def _names_the_bench(node: ast.AST) -> bool:
    """An import of the bench package, or a string naming one of its modules (``importlib.import_module``)."""
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == BENCH_ROOT for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] == BENCH_ROOT
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == BENCH_ROOT or node.value.startswith(BENCH_ROOT + ".")
    return False


def test_the_library_never_imports_the_bench() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path in modules().values()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _names_the_bench(node) and hasattr(node, "lineno")
    ]
    assert not found, "the library names the bench package (it must not; bench commands come by entry points):\n" + (
        "\n".join(found)
    )


def test_the_bench_is_outside_the_library_and_imports_it() -> None:
    assert not (PACKAGE / "_bench").exists() and BENCH_PACKAGE.is_dir()
    bench = bench_modules()
    imported = {target.split(".")[0] for name, path in bench.items() for target, _ in imports(name, path, modules())}
    assert imported == {ROOT}, imported  # it uses the library, through the imports that name it
    assert _names_the_bench(ast.parse("import chop_bench.speed").body[0])
    assert _names_the_bench(ast.parse("x = 'chop_bench.eval.cli'").body[0].value)  # type: ignore[attr-defined]
    assert not _names_the_bench(ast.parse("x = 'the chop_bench package'").body[0].value)  # type: ignore[attr-defined]


def test_few_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} modules at the top level: {top}"


def test_import_loads_no_framework_or_numeric_library() -> None:
    code = (
        "import sys, chop_integrations\n"
        f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import chop_integrations loaded: {out.stdout.strip()}"


@pytest.mark.parametrize(
    ("setup", "module", "wrapper"),
    [
        (
            "from langchain_core.language_models.fake_chat_models import FakeListChatModel\n"
            "model = FakeListChatModel(responses=['x'])",
            "chop_integrations.langchain._llm",
            "LangChainLLM",
        ),
        (
            "from llama_index.core.llms import MockLLM\nmodel = MockLLM()",
            "chop_integrations.llama_index._llm",
            "LlamaIndexLLM",
        ),
    ],
)
def test_as_llm_loads_an_adapter_the_first_time_it_meets_its_framework(setup: str, module: str, wrapper: str) -> None:
    """The core imports no adapter; the adapter registers itself when as_llm first needs it."""
    code = (
        f"import sys\n{setup}\nfrom chop_integrations import as_llm\n"
        f"assert {module!r} not in sys.modules\n"
        "llm = as_llm(model)\n"
        "print(type(llm).__module__, type(llm).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PACKAGE.parent)
    assert out.stdout.split() == [module, wrapper]
