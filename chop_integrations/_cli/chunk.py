"""The ``chunk`` command: text files in, JSON Lines out (one chunk per line), with progress and a usage line."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import signal
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .._chop.base_chunks import METADATA_KEYS
from .._chop.records import DOCUMENT_KEY, INDEX_KEY, TEXT_KEY
from .._engines import ENGINES
from .._errors import BudgetExceededError, ChopError
from .._llm.aio import cancel_and_wait
from .common import EXIT_BUDGET, EXIT_FAILED_INPUT, EXIT_OK, EXIT_USAGE, Document, _positive_int, read_documents
from .options import add_config_flags, config_options
from .output import PROG, AtomicOutput, OutputError, RaiseOnSignals, check_cache, check_output

logger = logging.getLogger("chop_integrations")


#: The keys of each JSON line ``chunk`` writes, in order (a CHOP line then adds the ``chop_*`` signature keys).
#: ``chop_document``, ``chop_index`` and ``chop_text`` are the position keys every output shares
#: (:mod:`chop_integrations._chop.records`); ``doc`` is the file's name (the same value as ``chop_document``).
CHUNK_FIELDS = (
    "doc",
    "path",
    DOCUMENT_KEY,
    INDEX_KEY,
    TEXT_KEY,
    "start",
    "end",
    "token_count",
    "embed_text",
    "cnm",
    "continues_previous",
)


def default_cache_path() -> Path:
    """Where ``chunk`` keeps LLM answers unless told otherwise (``$XDG_CACHE_HOME/chop-integrations``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chop-integrations" / "answers.sqlite"


def build_engine(args: argparse.Namespace) -> Any:
    """The engine (``--method``: a name in :data:`~chop_integrations._engines.ENGINES`) the ``chunk`` options describe.

    The engine options are the config flags (:mod:`~chop_integrations._cli.options`). With an
    LLM, the model is wrapped so that at most ``--max-concurrency`` calls are in flight across
    all documents together, and answers go through the persistent cache unless ``--no-cache``.

    Raises:
        ConfigurationError: When the LLM, cache or engine options do not fit together.
    """
    from .._engines import build_engine as build
    from .._llm import config as llm_config

    options = config_options(args, args.method)
    client_timeout = {} if options.get("timeout") is None else {"timeout": options["timeout"]}
    llm = llm_config.build_llm(
        base_url=args.llm_base_url,
        model=args.llm_model,
        api_key_env=args.llm_api_key_env,
        temperature=args.llm_temperature,
        **client_timeout,
    )
    if llm is None:
        return build(args.method, None, **options)
    from .._llm.cache import resolve_cache

    use_cache = not (args.no_cache or getattr(args, "dry_run", False))  # a dry run reads and writes nothing
    options["cache"] = resolve_cache(args.cache or default_cache_path()) if use_cache else None
    config = ENGINES[args.method].config_class(**options)
    return build(args.method, llm_config.BoundedLLM(llm, limit=config.max_concurrency), config=config)


def chunk_record(doc_id: str, chunk: Any, path: str = "", index: int = 0) -> dict[str, Any]:
    """The JSON object ``chunk`` writes for chunk ``index`` of a document: :data:`CHUNK_FIELDS`, then ``chop_*``.

    The ``chop_*`` keys are those the LangChain and LlamaIndex adapters write (``chop_model``, ``chop_aliases``...),
    so a line loads into a store the retrievers read (``chop_integrations.langchain.load_jsonl``,
    ``chop_integrations.llama_index.load_jsonl``).
    """
    data = chunk.to_dict()
    data.update({"doc": doc_id, "path": path, DOCUMENT_KEY: doc_id, INDEX_KEY: index, TEXT_KEY: data["text"]})
    record = {key: data[key] for key in CHUNK_FIELDS}
    record.update((key, chunk.metadata[key]) for key in METADATA_KEYS if key in chunk.metadata)
    return record


def _ascii_only(stream: IO[str]) -> bool:
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
    return encoding not in ("utf8", "utf8sig")


def _progress(total: int, *, hidden: bool = False) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=total, unit="doc", file=sys.stderr, disable=True if hidden else None, dynamic_ncols=True, leave=False
    )


def run_meter(args: argparse.Namespace, engine: Any, documents: Sequence[Document]) -> tuple[Any, Any]:
    """The meter of an LLM run and its bar; ``(None, None)`` offline.

    The meter holds the command's limits (``--max-calls``, ``--max-llm-tokens``) over every document together
    and, on a terminal only, draws a bar over every document's decisions, planned by the dry run's estimate.
    """
    from .._llm.progress import ProgressMeter
    from .._llm.progress_bar import ProgressBar, terminal

    if engine.llm is None:
        return None, None
    bar, planned = None, None
    if terminal():  # the estimate costs an offline pass over the documents: only for a bar someone sees
        estimates = [engine.estimate([d.text], [d.metadata]) for d in documents]
        tokens = sum(e.prompt_tokens + e.completion_tokens for e in estimates)
        planned = {"decisions": sum(e.calls for e in estimates), "tokens": tokens, "documents": len(documents)}
        bar = ProgressBar("chunk")
    meter = ProgressMeter(
        listeners=() if bar is None else (bar,),
        max_calls=args.max_calls,
        max_tokens=args.max_llm_tokens,
        planned=planned,
    )
    return meter, bar


class _Writer:
    """Writes each document's chunks as JSON Lines, in the order the files were given."""

    def __init__(self, out: IO[str], documents: Sequence[Document]) -> None:
        self.out = out
        self.ascii_only = _ascii_only(out)
        self.order = [id(d) for d in documents]
        self.ready: dict[int, list[Any]] = {}
        self.next = 0
        self.sizes: list[int] = []

    def done(self, document: Document, chunks: list[Any]) -> None:
        """Record one finished document (an empty list for a failed one) and write what is due."""
        self.ready[id(document)] = [
            chunk_record(document.doc_id, c, str(document.path), index) for index, c in enumerate(chunks)
        ]
        self.sizes.extend(int(c.token_count) for c in chunks)
        while self.next < len(self.order) and self.order[self.next] in self.ready:
            for record in self.ready.pop(self.order[self.next]):
                self.out.write(json.dumps(record, ensure_ascii=self.ascii_only) + "\n")
            self.next += 1
        self.out.flush()


def size_summary(sizes: Sequence[int]) -> str:
    """One line on chunk sizes in tokens: count, median, 10th and 90th percentiles (nearest rank)."""
    if not sizes:
        return "0 chunks"
    ordered = sorted(sizes)

    def rank(share: float) -> int:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]

    median = statistics.median(ordered)
    shown = int(median) if float(median).is_integer() else median
    return f"{len(ordered)} chunks, median {shown} tokens (p10 {rank(0.1)}, p90 {rank(0.9)})"


def _chunk_sequentially(engine: Any, documents: Sequence[Document], writer: _Writer, bar: Any, usage: Any) -> int:
    failed = 0
    for document in documents:
        bar.set_postfix_str(document.path.name, refresh=False)
        chunks: list[Any] = []
        before = engine.last_usage
        try:
            chunks = _chunk_document(engine, document)
        except Exception as exc:  # one document's failure must not stop the others
            failed += _report_failure(bar, document, exc)
        if engine.last_usage is not before:  # a failed run leaves the previous report in place
            usage.merge(engine.last_usage)
        writer.done(document, chunks)
        bar.update(1)
    return failed


async def _chunk_concurrently(
    engine: Any, documents: Sequence[Document], writer: _Writer, bar: Any, usage: Any, limit: int
) -> int:
    from .._llm import progress

    semaphore = asyncio.Semaphore(limit)
    failures = 0

    async def one(document: Document) -> None:
        nonlocal failures
        chunks: list[Any] = []
        async with semaphore:
            try:
                chunks = await engine.achunk(document.text, metadata=document.metadata)
                usage.merge(engine.last_usage)  # read before any other task can run: no await in between
            except BudgetExceededError:
                raise  # the whole command stops: no other document starts a call
            except Exception as exc:  # one document's failure must not stop the others
                failures += _report_failure(bar, document, exc)
        writer.done(document, chunks)
        bar.update(1)
        progress.note(documents=1)

    tasks = [asyncio.ensure_future(one(d)) for d in documents]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        await cancel_and_wait(tasks)
        raise
    return failures


#: A document at least this long (characters) is fed to an offline LumberChunker in pieces this long, under a
#: bar of its own that counts characters (its chunks are those of ``chunk``: the offline run is that stream).
DOCUMENT_PIECE_CHARS = 1 << 20


def _chunk_document(engine: Any, document: Document) -> list[Any]:
    """One document's chunks; a long one, where the engine's stream is its batch run, streamed under its own bar."""
    text = document.text
    if len(text) < DOCUMENT_PIECE_CHARS or not getattr(engine, "streams", False):
        return list(engine.chunk(text, metadata=document.metadata))
    from tqdm.auto import tqdm

    with tqdm(
        total=len(text), unit="char", unit_scale=True, file=sys.stderr, disable=None, leave=False, position=1
    ) as bar:

        def pieces() -> Any:
            for start in range(0, len(text), DOCUMENT_PIECE_CHARS):
                yield text[start : start + DOCUMENT_PIECE_CHARS]
                bar.update(min(DOCUMENT_PIECE_CHARS, len(text) - start))

        return list(engine.chunk_stream(pieces(), metadata=document.metadata))


def _prompt_interrupt() -> RaiseOnSignals:
    """Ctrl-C raises ``KeyboardInterrupt`` at once, even inside an engine's event loop.

    ``asyncio.run`` otherwise turns SIGINT into a cancellation that waits for the next ``await``,
    which an offline engine reaches only after a whole document's CPU work (seconds on a large one).
    """
    return RaiseOnSignals((signal.SIGINT,), KeyboardInterrupt)


def _report_failure(bar: Any, document: Document, exc: Exception) -> int:
    """Print one line naming the file; an unexpected error (a bug) also gets its type and, with -vv, a traceback."""
    bar.clear()
    if isinstance(exc, ChopError):
        print(f"{PROG}: error: {document.path}: {exc}", file=sys.stderr)
    else:
        logger.debug("traceback for %s", document.path, exc_info=exc)
        print(
            f"{PROG}: error: {document.path}: unexpected {type(exc).__name__}: {exc} "
            "(please report it; -vv shows the traceback)",
            file=sys.stderr,
        )
    return 1


def _run_chunk(args: argparse.Namespace) -> int:
    try:
        target = None if args.dry_run else check_output(args.out, args.files, err=sys.stderr)
        check_cache(args.cache, args.out, args.files)
    except OutputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    documents, failed = read_documents(args.files, err=sys.stderr)
    if args.dry_run:
        return _dry_run(args, documents, failed)
    engine = build_engine(args)
    if hasattr(engine, "observe_corpus"):  # CHOP: every file's name is known before the first is chunked alone
        engine.observe_corpus([d.text for d in documents], metadatas=[d.metadata for d in documents])
    from .._llm.progress import metering
    from .._llm.usage import UsageReport

    usage = UsageReport()
    started = time.perf_counter()
    meter, decisions_bar = run_meter(args, engine, documents)
    try:
        stream = AtomicOutput(target)
    except OutputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with (
            stream as out,
            _progress(len(documents), hidden=decisions_bar is not None) as bar,
            _prompt_interrupt(),
            metering(meter),
        ):
            writer = _Writer(out, documents)
            if engine.llm is None:
                failed += _chunk_sequentially(engine, documents, writer, bar, usage)
            else:
                runs = _chunk_concurrently(engine, documents, writer, bar, usage, engine.max_concurrency)
                failed += asyncio.run(runs)
    except BudgetExceededError as exc:
        return _budget_stop(exc, meter, decisions_bar, target)
    finally:
        if decisions_bar is not None:
            decisions_bar.close(finished=True)  # (a second close after a stop draws nothing more)
    usage.wall_s = time.perf_counter() - started
    print(f"sizes: {size_summary(writer.sizes)}", file=sys.stderr)
    print(f"usage: {usage.summary()}", file=sys.stderr)
    if failed:
        print(f"{PROG}: {failed} file(s) failed; see the messages above", file=sys.stderr)
    return EXIT_FAILED_INPUT if failed else EXIT_OK


def _budget_stop(exc: BudgetExceededError, meter: Any, bar: Any, target: Path | None) -> int:
    """Say what a run stopped by its limit spent; an ``--out`` file was not written (an earlier one stays as it was)."""
    if bar is not None:
        bar.close()
    spent = meter.snapshot()
    print(
        f"usage: calls={spent.calls} cache_hits={spent.cache_hits} prompt_tokens={spent.prompt_tokens} "
        f"completion_tokens={spent.completion_tokens} retries={spent.retries} fallbacks={spent.fallbacks} "
        f"decisions={spent.decisions} wall_s={spent.elapsed_s:.2f} (stopped by the limit)",
        file=sys.stderr,
    )
    kept = (
        "stdout has only the documents finished before it"
        if target is None
        else f"{target} was not written; an earlier one is as it was"
    )
    print(f"{PROG}: error: {exc} ({kept})", file=sys.stderr)
    return EXIT_BUDGET


def _dry_run(args: argparse.Namespace, documents: Sequence[Document], failed: int) -> int:
    """Print the estimate of a run (``--dry-run``); nothing is called or written."""
    engine = build_engine(args)
    estimate = engine.estimate([d.text for d in documents], [d.metadata for d in documents])
    print(f"estimate for {len(documents)} document(s), nothing was called:")
    print(f"  {estimate.summary()}")
    if engine.llm is None:
        print("  (no LLM configured: the offline decider makes no calls; add --llm-model to estimate an LLM run)")
    return EXIT_FAILED_INPUT if failed else EXIT_OK


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``chunk`` command's options (its entry in the command registry, :mod:`.registry`)."""
    parser.description = (
        "Chunk UTF-8 text files with LumberChunker or CHOP and write one JSON object per chunk: "
        + ", ".join(CHUNK_FIELDS)
        + ". Offsets are character offsets into the decoded file. Without --llm-model the offline decider "
        "runs (no network, no key). The usage report goes to stderr."
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files (a BOM is allowed)")
    parser.add_argument("--method", choices=sorted(ENGINES), default="chop", help="chunking method (default: chop)")
    parser.add_argument("--out", metavar="PATH", help="write JSON Lines here (default: stdout)")
    parser.add_argument("--dry-run", action="store_true", help="print the estimated calls and tokens; call nothing")
    add_config_flags(parser)
    llm = parser.add_argument_group("LLM (any OpenAI-compatible endpoint; needs the 'openai' package)")
    llm.add_argument("--llm-base-url", metavar="URL", help="endpoint, e.g. http://localhost:8000/v1")
    llm.add_argument("--llm-model", metavar="NAME", help="model name; without it the offline decider runs")
    llm.add_argument(
        "--llm-api-key-env", metavar="VAR", help="environment variable that holds the API key (default: OPENAI_API_KEY)"
    )
    llm.add_argument("--llm-temperature", type=float, default=0.0, metavar="T", help="sampling temperature (0)")
    limits = parser.add_argument_group("limits (over all files together; at a limit the command stops and exits 3)")
    limits.add_argument(
        "--max-calls",
        type=_positive_int,
        metavar="N",
        help="most LLM calls to start (retries included); no call past it is sent, no --out file is written",
    )
    limits.add_argument(
        "--max-llm-tokens",
        type=_positive_int,
        metavar="N",
        help="most prompt plus completion tokens to spend; a call whose prompt would pass it is not sent",
    )
    cache = llm.add_mutually_exclusive_group()
    cache.add_argument("--cache", metavar="PATH", help=f"SQLite answer cache (default: {default_cache_path()})")
    cache.add_argument("--no-cache", action="store_true", help="do not read or write the answer cache")
    parser.set_defaults(func=_run_chunk)
