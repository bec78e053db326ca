"""The package's public face: what importing it loads, and what it exports."""

from __future__ import annotations

import subprocess
import sys

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
