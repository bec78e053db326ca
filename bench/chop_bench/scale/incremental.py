"""``bench-scale --scenario incremental``: LLM calls to re-ingest a corpus after editing one section of one document.

With a simulated LLM (:class:`~chop_integrations.testing.SimulatedLLM`, no latency)
and a fresh persistent answer cache (:class:`~chop_integrations.SQLiteCache`
in a temporary folder), each method ingests the whole corpus, then one section of one
document is edited (:func:`edit_one_section`: a line of a paragraph rewritten and a
sentence inserted, in the middle of the document) and the whole corpus is ingested
again with the same cache. Rows, one per method and tiling:

* ``calls_ratio``: calls of the re-ingest / calls of the full ingest (the target: at most 0.03);
* ``doc_calls_ratio``: calls of the re-ingest / calls of the edited document's own full
  ingest (the stricter figure: what share of that document was asked again).

``--incremental-tiling positional`` (or ``both``, the default) also measures the windows
placed by position, as before content-defined windows (:mod:`chop_integrations._text.tiling`).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from chop_integrations._chop import plan as chop_plan
from chop_integrations._chop.chunker import CHOPChunker
from chop_integrations._chop.corpus import CorpusState
from chop_integrations._errors import ConfigurationError
from chop_integrations._llm.cache import InMemoryCache
from chop_integrations._llm.sqlite_cache import SQLiteCache
from chop_integrations._lumber import plans as lumber_plans
from chop_integrations._lumber.chunker import LumberChunker
from chop_integrations._text.tiling import ContentCuts
from chop_integrations.testing import SimulatedLLM

__all__ = ["add_arguments", "edit_one_section", "measure", "run"]

#: The corpus the issue names: the 30 manuals, beside the checkout.
DEFAULT_CORPUS = Path(__file__).resolve().parents[4] / "shared" / "data" / "manuals"
#: The sentence the edit inserts.
INSERTED = "NOTE Keep the device away from water and dust while you change this setting, then restart it."
#: Windows placed by position: a window closes by content only when full, i.e. never early.
POSITIONAL = ContentCuts(min_share=1.0, expected_share=1.0)
#: The methods measured: name -> engine factory (model, cache, CHOP's corpus state: the corpus's, so that a
#: document ingested alone is chunked as in the corpus, where the prefix prints its name).
METHODS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "chop": lambda llm, cache, corpus: CHOPChunker(llm, cache=cache, corpus=corpus),
    "chop-llm-boundaries": lambda llm, cache, corpus: CHOPChunker(llm, cache=cache, corpus=corpus, llm_boundaries=True),
    "lumber": lambda llm, cache, corpus: LumberChunker(llm, cache=cache),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The scenario's options (``--corpus`` is shared with other scenarios when they add it too)."""
    if "--corpus" not in parser._option_string_actions:
        parser.add_argument(
            "--corpus",
            metavar="DIR",
            help="folder of *.txt documents, or one holding manuals/ (default: the evaluation data beside the "
            "checkout, ../shared/data; see docs/benchmarks.md)",
        )
    parser.add_argument(
        "--incremental-tiling",
        choices=("content", "positional", "both"),
        default="both",
        help="incremental: window placement to measure (positional = before content-defined windows)",
    )


def edit_one_section(text: str) -> str:
    """``text`` with one section edited in the middle: a line rewritten and a sentence inserted.

    The paragraph (a block between blank lines) at the middle of the document is
    edited: its last line is rewritten and :data:`INSERTED` goes in after its first line.

    Raises:
        ConfigurationError: When the text has no paragraph to edit.
    """
    blocks = [m.start() for m in re.finditer(r"(?:^|\n\n)(?=\S)", text)]
    if not blocks:
        raise ConfigurationError("the document has no paragraph to edit")
    start = blocks[len(blocks) // 2]
    start += 2 if text.startswith("\n\n", start) else 0
    end = text.find("\n\n", start)
    end = len(text) if end < 0 else end
    lines = text[start:end].split("\n")
    lines[-1] = "Updated: " + lines[-1].replace(" the ", " this ")
    lines.insert(1, INSERTED)
    return text[:start] + "\n".join(lines) + text[end:]


@contextlib.contextmanager
def tiling(kind: str) -> Iterator[None]:
    """Place both engines' windows by ``"content"`` (the default) or by ``"positional"`` fill, for a while."""
    saved = lumber_plans.WINDOW_CUTS, chop_plan.WINDOW_CUTS
    if kind == "positional":
        lumber_plans.WINDOW_CUTS = chop_plan.WINDOW_CUTS = POSITIONAL
    try:
        yield
    finally:
        lumber_plans.WINDOW_CUTS, chop_plan.WINDOW_CUTS = saved


def measure(
    make: Callable[[Any, Any, Any], Any], texts: Sequence[str], metadatas: Sequence[dict[str, Any]], edited: int
) -> dict[str, Any]:
    """Calls of a full ingest and of the re-ingest after :func:`edit_one_section` of ``texts[edited]``.

    Each ingest runs ``chunk_many`` over the whole corpus; calls are the model's (cache misses).
    Then every document in turn is ingested alone, edited and ingested again (windows never span
    documents, and CHOP keeps the corpus's state, so this is what its edit costs in the
    corpus): ``doc_calls_ratio_mean`` is the
    mean share of a document asked again, ``doc_calls_ratio_max`` the largest.
    """
    with tempfile.TemporaryDirectory(prefix="chop-incremental-") as folder:
        llm = SimulatedLLM(0)
        corpus = CorpusState()
        engine = make(llm, SQLiteCache(Path(folder) / "answers.sqlite"), corpus)
        engine.chunk_many(list(texts), metadatas=list(metadatas))
        full, prompt_tokens = llm.calls, engine.last_usage.prompt_tokens
        changed = list(texts)
        changed[edited] = edit_one_section(texts[edited])
        engine.chunk_many(changed, metadatas=list(metadatas))
        again = llm.calls - full
    shares, own = [], 0
    for index, (text, metadata) in enumerate(zip(texts, metadatas, strict=True)):
        alone = SimulatedLLM(0)
        engine = make(alone, InMemoryCache(), corpus)
        engine.chunk_many([text], metadatas=[metadata])
        calls = alone.calls
        engine.chunk_many([edit_one_section(text)], metadatas=[metadata])
        shares.append((alone.calls - calls) / calls if calls else 0.0)
        own = calls if index == edited else own
    return {
        "full_calls": full,
        "reingest_calls": again,
        "doc_calls": own,
        "calls_ratio": round(again / full, 4) if full else 0.0,
        "doc_calls_ratio": round(again / own, 4) if own else 0.0,
        "doc_calls_ratio_mean": round(sum(shares) / len(shares), 4),
        "doc_calls_ratio_max": round(max(shares), 4),
        "full_prompt_tokens": prompt_tokens,
    }


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One row per method and tiling: ``{"scenario": "incremental", "method": ..., "calls_ratio": R, ...}``.

    Raises:
        ConfigurationError: When the corpus folder (or its ``manuals/``, as the other scenarios take it) holds no
            ``*.txt`` file.
    """
    folder = Path(getattr(args, "corpus", None) or DEFAULT_CORPUS)
    files = (sorted(folder.glob("*.txt")) or sorted(folder.glob("manuals/*.txt"))) if folder.is_dir() else []
    if not files:
        raise ConfigurationError(f"incremental: no *.txt documents in {folder} nor in its manuals/")
    texts = [f.read_text(encoding="utf-8") for f in files]
    metadatas = [{"source": f.name, "title": f.stem.replace("_", " ")} for f in files]
    edited = len(files) // 2
    kinds = {"both": ("content", "positional")}.get(getattr(args, "incremental_tiling", "both"), None)
    rows = []
    for kind in kinds or (args.incremental_tiling,):
        for method, make in METHODS.items():
            with tiling(kind):
                figures = measure(make, texts, metadatas, edited)
            rows.append(
                {
                    "scenario": "incremental",
                    "method": method,
                    "tiling": kind,
                    "documents": len(files),
                    "edited": files[edited].name,
                    **figures,
                }
            )
    return rows
