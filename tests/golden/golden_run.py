"""Runs both engines through every entry point on a set of documents and records what came out.

The record is what the golden-output test compares byte for byte before and after a refactoring:
every chunk (text, offsets, token count, metadata, signature, continuity, prefix, embed text), every
prompt sent to the model (as a sorted multiset: concurrency changes the order, not the set), the usage
report less its wall time, every estimate, and the message of any error raised. The model is
:class:`GoldenLLM`, an answerer written here from the prompts' visible shape, independent of the
package's own fakes so that a change in those cannot hide a change in the engines.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chop_integrations import CHOPChunker, LumberChunker, UsageReport

#: The demo samples, which the library keeps with its demo.
SAMPLES = Path(__file__).resolve().parents[2] / "chop_integrations" / "_demo" / "samples"

_RANGE = re.compile(r"\(#(\d+) to #(\d+)\)")
_NUMBERED = re.compile(r"^#(\d+) (.*)$", re.MULTILINE)
_PAPER_IDS = re.compile(r"^ID (\d+):(.*)$", re.MULTILINE)
_WINDOW_ITEM = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_HINT = re.compile(r'(file|model|category) "([^"]+)"')
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")


def _h(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).digest()[:8], "big")


class GoldenLLM:
    """A deterministic model: answers from a hash of the prompt, records every prompt.

    About one answer in eleven is unusable (no JSON, no ID), so corrective retries, fallbacks and
    ``on_llm_error="raise"`` are exercised too. Answers depend only on the prompt, never on the order of
    calls, so concurrent runs give the same record.
    """

    def __init__(self, *, model_id: str = "golden", bad: int = 11) -> None:
        self.model_id = model_id
        self.bad = bad
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def complete(self, prompt: str) -> str:
        with self._lock:
            self.prompts.append(prompt)
        return answer(prompt, bad=self.bad)

    async def acomplete(self, prompt: str) -> str:
        await asyncio.sleep(0)
        return self.complete(prompt)


def _cnm(prompt: str, passage: str) -> dict[str, Any]:
    hints = dict(_HINT.findall(prompt))
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(passage)))
    nouns = [words[_h(passage, "noun") % len(words)]] if words else []
    return {
        "category": hints.get("category") or ("manual" if _h(passage, "cat") % 2 else "device"),
        "nouns": nouns,
        "model": hints.get("model") or (Path(hints["file"]).stem if "file" in hints else None),
    }


def answer(prompt: str, *, bad: int = 11) -> str:
    """The answer to one prompt: valid for the package's prompt kinds, unusable one time in ``bad``."""
    if _h(prompt, "bad", str(bad)) % bad == 0:
        return "I am not sure what you mean."
    if prompt.startswith("Split the text into topical sections"):
        found = _RANGE.search(prompt)
        lo, hi = (int(found.group(1)), int(found.group(2))) if found else (1, 0)
        starts = [
            int(n) for n, text in _NUMBERED.findall(prompt) if lo <= int(n) <= hi and _h(text, n, "start") % 4 == 0
        ]
        return json.dumps({"starts": starts})
    if prompt.startswith("You will receive as input an english document"):
        ids = [int(n) for n, _ in _PAPER_IDS.findall(prompt)]
        if len(ids) < 2:
            return f"Answer: ID {ids[0] if ids else 0}"
        return f"Answer: ID {ids[1 + _h(prompt, 'paper') % (len(ids) - 1)]}"
    if prompt.startswith("Passages [1]..["):
        opens = "[1] opens the document" in prompt
        passages: list[Any] = []
        for number, text in _WINDOW_ITEM.findall(prompt):
            if number == "0":
                continue
            fresh = (number == "1" and opens) or _h(text, "cont") % 3 == 0
            passages.append(_cnm(prompt, text) if fresh else True)
        return json.dumps({"passages": passages})
    if prompt.startswith("A and B are adjacent passages"):
        continues = _h(prompt, "cont") % 3 != 0
        if "Same topic flow" in prompt:
            return json.dumps({"continues": True} if continues else {"continues": False, "cnm": _cnm(prompt, prompt)})
        return "TRUE" if continues else "FALSE"
    if prompt.startswith("Signature of the passage"):
        return json.dumps(_cnm(prompt, prompt[-600:]))
    return "TRUE"


# -- records ------------------------------------------------------------------------------------


def digest(value: Any) -> str:
    """SHA-256 of a canonical JSON rendering (sorted keys, no ASCII escaping)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def usage(report: UsageReport | None) -> dict[str, Any] | None:
    """A usage report as a dict, less ``wall_s`` (the one value that may differ between runs)."""
    if report is None:
        return None
    data = report.to_dict()
    data.pop("wall_s", None)
    return data


def chunk_dicts(chunks: Sequence[Any]) -> list[dict[str, Any]]:
    """Every field of every chunk, ``embed_text`` included."""
    return [c.to_dict() for c in chunks]


@dataclass(frozen=True)
class Docs:
    """A set of documents: identifiers, texts and metadata."""

    ids: list[str]
    texts: list[str]
    metadatas: list[dict[str, Any]]


def load(folder: Path, *, limit: int | None = None) -> Docs:
    """The ``*.txt`` files of ``folder`` in name order, with ``source`` and ``title`` metadata."""
    files = sorted(folder.glob("*.txt"))[:limit]
    return Docs(
        ids=[f.name for f in files],
        texts=[f.read_text(encoding="utf-8") for f in files],
        metadatas=[{"source": f"manuals/{f.name}", "title": f.stem.replace("_", " ")} for f in files],
    )


def _many(docs: Docs, per_doc: Sequence[Sequence[Any]]) -> dict[str, str]:
    return {doc_id: digest(chunk_dicts(chunks)) for doc_id, chunks in zip(docs.ids, per_doc, strict=True)}


def _prompts(llm: GoldenLLM | None, error: str | None = None) -> dict[str, Any] | None:
    """Count and digest of the prompts; None without a model or after an error (calls still in flight when a
    run raises finish or not depending on timing, so only the error message is compared then)."""
    if llm is None or error is not None:
        return None
    ordered = sorted(llm.prompts)
    return {"count": len(ordered), "sha256": digest(ordered)}


def _attempt(fn: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return fn(), None
    except Exception as exc:  # the message is part of the behaviour
        return None, f"{type(exc).__name__}: {exc}"


def run_lumber(docs: Docs, *, llm: bool, asynchronous: bool = False, bad: int = 11, **options: Any) -> dict[str, Any]:
    """LumberChunker: ``chunk_many`` (or ``achunk_many``), ``chunk`` of the first document, ``estimate``."""
    model = GoldenLLM(bad=bad) if llm else None
    chunker = LumberChunker(model, **options)
    if asynchronous:
        per_doc, error = _attempt(lambda: asyncio.run(chunker.achunk_many(docs.texts, metadatas=docs.metadatas)))
    else:
        per_doc, error = _attempt(lambda: chunker.chunk_many(docs.texts, metadatas=docs.metadatas))
    record: dict[str, Any] = {
        "chunks": None if per_doc is None else _many(docs, per_doc),
        "usage": None if per_doc is None else usage(chunker.last_usage),
        "prompts": _prompts(model, error),
        "error": error,
    }
    single_model = GoldenLLM(bad=bad) if llm else None
    single = LumberChunker(single_model, **options)
    one, one_error = _attempt(lambda: single.chunk(docs.texts[0], metadata=docs.metadatas[0]))
    record["chunk_first"] = {
        "chunks": None if one is None else digest(chunk_dicts(one)),
        "usage": None if one is None else usage(single.last_usage),
        "prompts": _prompts(single_model, one_error),
        "error": one_error,
    }
    estimator = LumberChunker(GoldenLLM() if llm else None, **options)
    record["estimate"] = usage(estimator.estimate(docs.texts, docs.metadatas))
    return record


def run_chop(docs: Docs, *, llm: bool, asynchronous: bool = False, bad: int = 11, **options: Any) -> dict[str, Any]:
    """CHOPChunker: ``chunk_many`` (or ``achunk_many``), ``annotate`` of its own chunks, ``estimate``."""
    model = GoldenLLM(bad=bad) if llm else None
    chunker = CHOPChunker(model, **options)
    if asynchronous:
        per_doc, error = _attempt(lambda: asyncio.run(chunker.achunk_many(docs.texts, metadatas=docs.metadatas)))
    else:
        per_doc, error = _attempt(lambda: chunker.chunk_many(docs.texts, metadatas=docs.metadatas))
    record: dict[str, Any] = {
        "chunks": None if per_doc is None else _many(docs, per_doc),
        "usage": None if per_doc is None else usage(chunker.last_usage),
        "prompts": _prompts(model, error),
        "error": error,
    }
    base = LumberChunker().chunk_many(docs.texts, metadatas=docs.metadatas)
    texts = [c.text for chunks in base for c in chunks]
    metadatas = [c.metadata for chunks in base for c in chunks]
    annotate_model = GoldenLLM(bad=bad) if llm else None
    annotator = CHOPChunker(annotate_model, **options)
    if asynchronous:
        signed, annotate_error = _attempt(lambda: asyncio.run(annotator.aannotate(texts, metadatas=metadatas)))
    else:
        signed, annotate_error = _attempt(lambda: annotator.annotate(texts, metadatas=metadatas))
    record["annotate"] = {
        "chunks": None if signed is None else digest(chunk_dicts(signed)),
        "usage": None if signed is None else usage(annotator.last_usage),
        "prompts": _prompts(annotate_model, annotate_error),
        "error": annotate_error,
    }
    estimator = CHOPChunker(GoldenLLM() if llm else None, **options)
    record["estimate"] = usage(estimator.estimate(docs.texts, docs.metadatas))
    return record


#: name -> (runner, options). ``FAST`` runs on the demo samples, ``MANUALS`` on the 30 manuals. The ``raise``
#: configurations ask one call at a time, so the first error is always the same one.
CONFIGS: dict[str, tuple[Callable[..., dict[str, Any]], dict[str, Any]]] = {
    "lumber_offline": (run_lumber, {"llm": False}),
    "lumber_offline_words": (run_lumber, {"llm": False, "token_counter": "words", "max_tokens": 120}),
    "lumber_paper_offline": (run_lumber, {"llm": False, "mode": "paper"}),
    "lumber_llm": (run_lumber, {"llm": True}),
    "lumber_llm_async": (run_lumber, {"llm": True, "asynchronous": True}),
    "lumber_llm_small": (run_lumber, {"llm": True, "max_tokens": 80, "context_tokens": 40, "max_concurrency": 1}),
    "lumber_paper_llm": (run_lumber, {"llm": True, "mode": "paper", "theta": 200}),
    "lumber_llm_flaky": (run_lumber, {"llm": True, "bad": 3}),
    "lumber_llm_raise": (
        run_lumber,
        {"llm": True, "bad": 2, "on_llm_error": "raise", "max_tokens": 80, "max_concurrency": 1},
    ),
    "chop_offline": (run_chop, {"llm": False}),
    "chop_offline_template": (run_chop, {"llm": False, "prefix": "<{model}: {nouns}> ", "max_tokens": 90}),
    "chop_llm_window": (run_chop, {"llm": True}),
    "chop_llm_window_async": (run_chop, {"llm": True, "asynchronous": True}),
    "chop_llm_pair_boundaries": (run_chop, {"llm": True, "decisions": "pair", "llm_boundaries": True}),
    "chop_llm_separate": (run_chop, {"llm": True, "decisions": "separate", "new_document_resets": False}),
    "chop_llm_flaky": (run_chop, {"llm": True, "bad": 3, "decisions": "pair"}),
    "chop_llm_raise": (run_chop, {"llm": True, "bad": 2, "on_llm_error": "raise", "max_concurrency": 1}),
}
FAST = list(CONFIGS)
MANUALS = ["lumber_offline", "lumber_llm", "lumber_paper_llm", "chop_offline", "chop_llm_window", "chop_llm_separate"]


def record(docs: Docs, names: Sequence[str]) -> dict[str, Any]:
    """The record of every named configuration on ``docs``."""
    out = {}
    for name in names:
        runner, options = CONFIGS[name]
        out[name] = runner(docs, **options)
    return out


def samples(docs: Docs) -> dict[str, Any]:
    """A few outputs in full (not digested), so a failure shows readable text."""
    full: dict[str, Any] = {}
    first = (docs.texts[0], docs.metadatas[0])
    full["chop_offline_first"] = chunk_dicts(CHOPChunker().chunk(first[0], metadata=first[1]))
    model = GoldenLLM()
    full["chop_llm_window_first"] = chunk_dicts(CHOPChunker(model).chunk(first[0], metadata=first[1]))
    full["chop_llm_window_first_prompts"] = sorted(model.prompts)[:3]
    model = GoldenLLM()
    full["lumber_llm_first"] = chunk_dicts(LumberChunker(model).chunk(first[0], metadata=first[1]))
    full["lumber_llm_first_prompts"] = sorted(model.prompts)[:2]
    return full
