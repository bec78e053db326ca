"""The package's public face: what importing it loads, what it exports, and what its wheel holds."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import chop_integrations


def test_import_loads_no_framework() -> None:
    code = (
        "import sys, chop_integrations\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('langchain', 'langchain_core', 'llama_index', 'torch', 'sentence_transformers', 'numpy'))\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import chop_integrations loaded: {out.stdout.strip()}"


def test_version_is_exposed() -> None:
    assert chop_integrations.__version__.count(".") == 2


def test_all_names_resolve() -> None:
    for name in chop_integrations.__all__:
        assert getattr(chop_integrations, name) is not None, name


def test_public_names_are_pinned() -> None:
    assert sorted(chop_integrations.__all__) == sorted(
        [
            "AnswerParseError",
            "BudgetExceededError",
            "CHOPChunker",
            "CHOPConfig",
            "CNM",
            "CallableLLM",
            "ChopError",
            "Chunk",
            "ConfigurationError",
            "CorpusState",
            "InMemoryCache",
            "InputError",
            "LLM",
            "LLMAnswerError",
            "LLMCallError",
            "LLMError",
            "LLMResponseError",
            "LLMTimeoutError",
            "LLMConfig",
            "Lexicon",
            "LumberChunker",
            "LumberConfig",
            "OfflineCNMExtractor",
            "OfflineContinuity",
            "OfflineTopicShift",
            "Progress",
            "PromptBudget",
            "QueryReader",
            "QueryReading",
            "RetryPolicy",
            "SQLiteCache",
            "ScriptedLLM",
            "SignatureCatalog",
            "StructuredLLM",
            "Unit",
            "UsageReport",
            "__version__",
            "as_llm",
            "section_run",
            "split_units",
        ]
    )


def test_cnm_format_renders_like_chop() -> None:
    from chop_integrations._types import render_prefix

    cnm = chop_integrations.CNM(category="camera", nouns=["lens | x", "battery"], model="KX-200")
    assert cnm.format() == render_prefix(cnm) == "KX-200: [camera | lens x, battery | KX-200] "
    assert chop_integrations.CNM().format() == ""


def _wheel(project: Path, into: Path) -> zipfile.ZipFile:
    """The wheel pip builds from ``project`` (its own build backend, in an isolated environment)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(project), "--no-deps", "--quiet", "--wheel-dir", str(into)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    (wheel,) = into.glob("*.whl")
    return zipfile.ZipFile(wheel)


@pytest.mark.slow  # two wheel builds, a few seconds each
def test_the_library_wheel_holds_no_benchmark_and_the_bench_wheel_registers_its_commands(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    library = _wheel(root, tmp_path / "library").namelist()
    assert "chop_integrations/_cli/registry.py" in library and "chop_integrations/_demo/runner.py" in library
    assert [name for name in library if "bench" in name.split("/")[0] or "/_bench/" in name] == []
    assert not [name for name in library if name.startswith("chop_integrations/") and "bench" in name.lower()]

    bench = _wheel(root / "bench", tmp_path / "bench")
    assert "chop_bench/eval/cli.py" in bench.namelist()
    assert not [name for name in bench.namelist() if name.startswith("chop_integrations/")]
    (entry_points,) = [name for name in bench.namelist() if name.endswith(".dist-info/entry_points.txt")]
    text = bench.read(entry_points).decode()
    from chop_bench.commands import COMMANDS

    for command in COMMANDS:
        assert f"{command.name} = chop_bench.commands:" in text
    assert "chop-bench = chop_bench.cli:main" in text
