"""The benchmark's commands: records of the library's command registry, named by this distribution's entry points.

``bench/pyproject.toml`` registers each record below in the ``chop_integrations.commands`` entry-point group, so
``chop-integrations`` lists them (without importing their modules) and runs them; ``chop-bench`` runs the same
records on their own. A new bench command is one module with ``add_arguments(parser)`` (which sets ``func``), one
record here and one entry point line.
"""

from __future__ import annotations

from chop_integrations._cli.registry import Command

__all__ = [
    "BENCH",
    "BENCH_LLM",
    "BENCH_SCALE",
    "BENCH_SPEED",
    "BENCH_STRESS",
    "BENCH_STRUCTURE",
    "COMMANDS",
]

#: The packages the retrieval, LLM and speed benchmarks import while they run (this distribution's dependencies).
_NEEDS = ("numpy", "bm25s", "sentence_transformers", "chonkie", "matplotlib", "langchain_core")
#: How to get them: this distribution, from a checkout of the repository.
_INSTALL = "pip install -e ./bench (the benchmark package, in the repository)"

BENCH = Command(
    "bench",
    "retrieval benchmark: chunking strategies and fair baselines x retrievers on eight corpora",
    "chop_bench.eval.cli",
    description="Chunk each corpus (manuals, anonymised manuals, GutenQA Emma, general documents, held-out "
    "general documents, the same without headings, and German and Chinese manuals) with each strategy, retrieve "
    "the top 10 chunks per query with dense MiniLM and BM25, check the must-show criteria, and write results.json, "
    "results.md and results.png.",
    needs=_NEEDS,
    install=_INSTALL,
)
BENCH_LLM = Command(
    "bench-llm",
    "LLM cost and speed benchmark with a simulated LLM",
    "chop_bench.eval.bench_llm",
    needs=_NEEDS,
    install=_INSTALL,
)
BENCH_STRESS = Command(
    "bench-stress",
    "time and peak memory on hostile documents of growing size (linear growth check)",
    "chop_bench.stress",
    install=_INSTALL,
)
BENCH_SPEED = Command(
    "bench-speed",
    "offline chunking speed against LangChain, LlamaIndex, chonkie and semchunk, and growth with document size",
    "chop_bench.speed",
    needs=_NEEDS,
    install=_INSTALL,
)
BENCH_STRUCTURE = Command(
    "bench-structure",
    "headings kept with their body, cuts inside words, CHOP's section labels, on a document set",
    "chop_bench.structure",
    install=_INSTALL,
)
BENCH_SCALE = Command(
    "bench-scale",
    "scaling figures: Ray Data speed-up, incremental re-ingest, streaming memory (JSON)",
    "chop_bench.scale",
    install=_INSTALL,
)

#: Every bench command, in ``--help`` order (the entry points name the same objects).
COMMANDS = (BENCH, BENCH_LLM, BENCH_STRESS, BENCH_SPEED, BENCH_STRUCTURE, BENCH_SCALE)
