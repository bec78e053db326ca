"""The chunking strategies the benchmark compares.

Each strategy maps one document, ``(doc_name, text)``, to a list of pieces
``(start, end, embed_text)``: exact character offsets into ``text`` and the
text that is indexed (``text[start:end]``, with a prefix in front for CHOP and
the oracle). Third-party splitters that do not report offsets are aligned back
onto the source by :func:`align_starts`, so every strategy is scored on exact spans.

Baselines: ``native-500t``, ``recursive-500``, ``cosine`` (LangChain
SemanticChunker), ``chonkie-token``, ``chonkie-recursive``, ``chonkie-semantic``.
Ours: ``lumber`` and ``chop`` (offline deciders), ``lumber-llm`` and ``chop-llm``
(an LLM from the command line). Reference, not a competitor: ``oracle`` (the
gold section chunks with the model name in front).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from typing import Any

from chop_integrations._errors import ConfigurationError, InputError
from chop_integrations._llm.usage import UsageReport
from chop_integrations._text.tokens import get_encoding, share_tiktoken_cache

from .metrics import CUTOFF, ChunkRef
from .retrievers import Embedder

#: One chunk of a document: ``(start, end, embed_text)``.
Piece = tuple[int, int, str]
#: Chunk size (tokens) of the fixed-size baselines.
SIZE = 500
#: A fixed-size baseline at any size: ``recursive-160``, ``native-160t`` (to compare with a method of that mean size).
_FIXED_SIZE = re.compile(r"recursive-([1-9]\d{1,4})|native-([1-9]\d{1,4})t")
#: The single-document offline strategies :func:`build_strategy` knows (what each suite runs by default is
#: ``chop_bench.eval.suites.SUITE_STRATEGIES``; ``+name``/``+header`` variants and ``llamaindex`` are
#: built by ``bench.build_strategies``).
DEFAULT_STRATEGIES: tuple[str, ...] = (
    "native-500t",
    "recursive-500",
    "cosine",
    "chonkie-token",
    "chonkie-recursive",
    "lumber",
    "chop",
)
#: Strategies that run only when asked for, to keep the default run within its time budget on two shared
#: cores: chonkie's SemanticChunker embeds every sentence of the corpus (about 40 000 texts here), and the
#: oracle reference row embeds every section (about 9 000 texts, some 4 minutes on one core).
OPTIONAL_STRATEGIES: tuple[str, ...] = ("oracle", "chonkie-semantic")
#: Strategies that need ``--llm-model``; added to the default run when an LLM is given.
LLM_STRATEGIES: tuple[str, ...] = ("lumber-llm", "chop-llm")


class StrategyUnavailable(Exception):
    """Raised when a strategy cannot run here (an engine not installed, no sections file); the run skips it."""


def corpus_key(docs: Sequence[tuple[str, str]]) -> tuple[tuple[str, int, int], ...]:
    """What identifies a corpus for the per-strategy memos: each document's name, length and text hash."""
    return tuple((name, len(text), hash(text)) for name, text in docs)


def model_name(doc_name: str) -> str:
    """A document's model name from its file stem (``Galaxy_Note_10+`` -> ``Galaxy Note 10+``)."""
    return doc_name.replace("_", " ").strip()


def align_starts(text: str, pieces: Sequence[str]) -> list[int]:
    """Where each of ``pieces`` (consecutive, in order) starts in ``text``, ignoring whitespace changes.

    Splitters such as LangChain's SemanticChunker rejoin sentences with single
    spaces, so their chunks are not substrings of the source. Each piece is
    found by its first words (any whitespace between them), searching forward
    from the previous piece.

    Raises:
        InputError: When a piece cannot be found, which means the splitter
            changed more than whitespace.
    """
    starts: list[int] = []
    cursor = 0
    for piece in pieces:
        words = piece.split()[:8]
        if not words:
            continue
        pattern = re.compile(r"\s+".join(map(re.escape, words)))
        match = pattern.search(text, cursor)
        if match is None:
            raise InputError(f"could not align a chunk starting {piece[:60]!r} at or after offset {cursor}")
        starts.append(match.start())
        cursor = match.start() + 1
    return starts


def tile(text: str, starts: Sequence[int]) -> list[Piece]:
    """Pieces that run from each start to the next (the first from 0, the last to the end)."""
    bounds = [*sorted({0, *starts[1:]}), len(text)]
    return [(a, b, text[a:b]) for a, b in itertools.pairwise(bounds) if text[a:b].strip()]


class Strategy:
    """Base class: a named way to chunk a document.

    Attributes:
        name: The strategy's name on the command line and in the table.
        description: One line for the report.
        reference: True for rows that are references (the oracle), not competitors.
        cache_id: When set, the harness caches this strategy's chunks on disk
            under this identity (slow strategies); bump it when the strategy changes.
        usage: The LLM usage report of the last run (LLM strategies only).
        loads_tiktoken: True for a strategy whose library loads tiktoken itself: building it
            points ``TIKTOKEN_CACHE_DIR`` at the package's local file (offline).
    """

    name = ""
    description = ""
    reference = False
    cache_id: str | None = None
    loads_tiktoken = False

    def __init__(self) -> None:
        self.usage: UsageReport | None = None
        if self.loads_tiktoken:
            share_tiktoken_cache()

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Chunk one document."""
        raise NotImplementedError

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        """Chunk every document (one by one, with a progress bar)."""
        from tqdm.auto import tqdm

        return [self(name, text) for name, text in tqdm(docs, desc=self.name, disable=not progress, leave=False)]

    def rank(self, retriever: Any, queries: Sequence[str], refs: Sequence[ChunkRef]) -> list[list[ChunkRef]]:
        """The top 10 chunks per query as the retriever ranks them (:mod:`.query_strategies` filter or widen them)."""
        return [[refs[i] for i in ids] for ids in retriever.search(queries, k=CUTOFF)]

    def pool(self, refs: Sequence[ChunkRef]) -> Sequence[ChunkRef]:
        """What the ideal ranking of nDCG is drawn from: the chunks, or what :meth:`rank` returns in their place."""
        return refs


class NativeTokens(Strategy):
    """Fixed windows of ``size`` cl100k tokens (500: the seed's baseline), no overlap."""

    def __init__(self, size: int = SIZE) -> None:
        super().__init__()
        self.size, self.name, self.description = size, f"native-{size}t", f"tiktoken cl100k, {size}-token windows"

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Cut at every ``size``-th token, at the character where that token begins."""
        encoding = get_encoding("cl100k_base")
        tokens = encoding.encode(text, disallowed_special=())
        decoded, offsets = encoding.decode_with_offsets(tokens)
        if decoded != text:
            raise InputError(f"{doc_name}: tiktoken did not round-trip the text; offsets would be wrong")
        return tile(text, [offsets[i] for i in range(0, len(tokens), self.size)])


class Recursive(Strategy):
    """LangChain's RecursiveCharacterTextSplitter, ``size`` cl100k tokens (500 by default), no overlap."""

    loads_tiktoken = True

    def __init__(self, size: int = SIZE) -> None:
        super().__init__()
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        self.name, self.description = f"recursive-{size}", f"LangChain RecursiveCharacterTextSplitter, {size} tokens"
        self._splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=size, chunk_overlap=0, add_start_index=True
        )

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Split, then read each chunk's offset from ``start_index``."""
        pieces = []
        for doc in self._splitter.create_documents([text]):
            start = int(doc.metadata["start_index"])
            end = start + len(doc.page_content)
            if start < 0 or text[start:end] != doc.page_content:
                raise InputError(f"{doc_name}: RecursiveCharacterTextSplitter returned a chunk off its start_index")
            pieces.append((start, end, doc.page_content))
        return pieces


def _langchain_embeddings(embedder: Embedder) -> Any:
    """A LangChain ``Embeddings`` over the cached MiniLM (sentences recurring across manuals embed once)."""
    from langchain_core.embeddings import Embeddings

    class CachedMiniLM(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder.encode(texts, desc="cosine: sentences").tolist()  # type: ignore[no-any-return]

        def embed_query(self, text: str) -> list[float]:
            return embedder.encode([text], desc="cosine: query")[0].tolist()  # type: ignore[no-any-return]

    return CachedMiniLM()


class Cosine(Strategy):
    """LangChain SemanticChunker (percentile breakpoints) with the benchmark's MiniLM."""

    name = "cosine"
    description = "LangChain SemanticChunker, percentile breakpoints, all-MiniLM-L6-v2"
    cache_id = "cosine/langchain-semantic-percentile/v1"

    def __init__(self, embedder: Embedder) -> None:
        super().__init__()
        from langchain_experimental.text_splitter import SemanticChunker

        self._splitter = SemanticChunker(_langchain_embeddings(embedder), breakpoint_threshold_type="percentile")

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Split, then align the rejoined chunks back onto the source."""
        return tile(text, align_starts(text, self._splitter.split_text(text)))


class Chonkie(Strategy):
    """One of chonkie's chunkers; chonkie reports exact ``start_index``/``end_index``."""

    def __init__(self, name: str, description: str, factory: Callable[[], Any], cache_id: str | None = None) -> None:
        super().__init__()
        self.name, self.description, self.cache_id = name, description, cache_id
        self._chunker = factory()

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Chunk and check each chunk's text against its offsets."""
        pieces = []
        for chunk in self._chunker.chunk(text):
            start, end = int(chunk.start_index), int(chunk.end_index)
            if text[start:end] != chunk.text:
                raise InputError(f"{doc_name}: {self.name} returned a chunk whose text does not match its offsets")
            if chunk.text.strip():
                pieces.append((start, end, chunk.text))
        return pieces


def _chonkie_token() -> Any:
    from chonkie import TokenChunker

    return TokenChunker(tokenizer=get_encoding("cl100k_base"), chunk_size=SIZE, chunk_overlap=0)


def _chonkie_recursive() -> Any:
    from chonkie import RecursiveChunker

    return RecursiveChunker(tokenizer=get_encoding("cl100k_base"), chunk_size=SIZE)


def _chonkie_semantic(embedder: Embedder) -> Any:
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    class _Cached(SentenceTransformerEmbeddings):  # type: ignore[misc]
        def embed(self, text: str) -> Any:
            return embedder.encode([text], desc="chonkie-semantic: sentences")[0]

        def embed_batch(self, texts: list[str]) -> Any:
            return list(embedder.encode(texts, desc="chonkie-semantic: sentences"))

    return SemanticChunker(embedding_model=_Cached(embedder.model), chunk_size=SIZE)


def _engine(kind: str) -> Any:
    """The LumberChunker or CHOPChunker class, or :class:`StrategyUnavailable` until it lands."""
    class_name = {"lumber": "LumberChunker", "chop": "CHOPChunker"}[kind.removesuffix("-chunks")]
    try:
        return getattr(__import__("chop_integrations", fromlist=[class_name]), class_name)
    except (ImportError, AttributeError) as err:
        raise StrategyUnavailable(f"chop_integrations has no {class_name} ({err})") from err


class Engine(Strategy):
    """LumberChunker or CHOPChunker from this package, offline or with an LLM.

    ``chop-chunks`` is CHOP's own chunks with nothing in front: the base its fair
    baselines (``chop-chunks+name``, ``chop-chunks+header-ours``) put a name or a
    heading path on, so CHOP's prefix is compared on exactly the same chunks.
    """

    def __init__(self, kind: str, *, llm: Any = None, max_concurrency: int = 8) -> None:
        super().__init__()
        self.kind, self.llm = kind, llm
        self.name = kind if llm is None else f"{kind}-llm"
        who = "offline decider" if llm is None else f"LLM {getattr(llm, 'model_id', llm)}"
        self.description = {
            "lumber": "LumberChunker",
            "chop": "CHOPChunker (embeds prefix + text)",
            "chop-chunks": "CHOPChunker's chunks, text only (no prefix)",
        }[kind] + f", {who}"
        self._chunker = _engine(kind)(llm=llm, max_concurrency=max_concurrency)
        self._text_only = kind.endswith("-chunks")
        self.chunks: dict[Any, list[list[Any]]] = {}  # per corpus_key: the engine's chunks, for the query strategies

    @staticmethod
    def metadata(doc_name: str) -> dict[str, str]:
        """The metadata every engine gets: ``source`` = the file name, exactly what the ``+name`` baselines show."""
        return {"source": f"{doc_name}.txt"}

    def _pieces(self, chunks: Sequence[Any]) -> list[Piece]:
        return [(int(c.start), int(c.end), str(c.text if self._text_only else c.embed_text)) for c in chunks]

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """Chunk one document and add its usage to :attr:`usage`."""
        chunks = self._chunker.chunk(text, metadata=self.metadata(doc_name))
        self._add_usage()
        return self._pieces(chunks)

    def chunk_corpus(self, docs: Sequence[tuple[str, str]], *, progress: bool = True) -> list[list[Piece]]:
        """The whole corpus in one ``chunk_many`` call, as a folder ingest delivers it.

        LangChain's ``transform_documents`` and a LlamaIndex pipeline run hand over every document at
        once, so CHOP's adaptive prefix sees the corpus it serves (fed one document at a time, the first
        document's chunks would go out before a second name shows the model is worth printing).
        """
        self.usage = UsageReport()
        results = self._chunker.chunk_many([t for _, t in docs], metadatas=[self.metadata(n) for n, _ in docs])
        self.chunks[corpus_key(docs)] = results
        self._add_usage()
        return [self._pieces(chunks) for chunks in results]

    def _add_usage(self) -> None:
        last = getattr(self._chunker, "last_usage", None)
        if last is None:
            return
        if self.usage is None:
            self.usage = UsageReport()
        # Counters read field by field: dataclasses.asdict would try to deep-copy the report's lock.
        counts = {f.name: getattr(last, f.name) for f in fields(last) if not f.name.startswith("_")}
        self.usage.add(**{k: v for k, v in counts.items() if k != "estimated"})


class Oracle(Strategy):
    """Reference row: the gold sections as chunks, each with its model name in front."""

    name = "oracle"
    description = "reference: sections.jsonl spans with the model name in front (not a competitor)"
    reference = True

    def __init__(self, sections: Mapping[str, Sequence[tuple[int, int]]] | None) -> None:
        super().__init__()
        if not sections:
            raise StrategyUnavailable("oracle needs the corpus's sections.jsonl")
        self._sections = sections

    def __call__(self, doc_name: str, text: str) -> list[Piece]:
        """One piece per non-empty section of the document."""
        spans = self._sections.get(doc_name)
        if spans is None:
            raise StrategyUnavailable(f"oracle: sections.jsonl has no sections for {doc_name!r}")
        prefix = f"{model_name(doc_name)}: "
        return [(s, e, prefix + text[s:e]) for s, e in spans if text[s:e].strip()]


def build_strategy(
    name: str,
    *,
    embedder: Embedder,
    sections: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    llm: Any = None,
    max_concurrency: int = 8,
) -> Strategy:
    """A strategy by name.

    Raises:
        ConfigurationError: For an unknown name, or an ``-llm`` strategy with no LLM.
        StrategyUnavailable: When the strategy cannot run here (the run skips it).
    """
    if sized := _FIXED_SIZE.fullmatch(name):
        return Recursive(int(sized[1])) if sized[1] else NativeTokens(int(sized[2]))
    if name == "cosine":
        return Cosine(embedder)
    if name == "chonkie-token":
        return Chonkie(name, "chonkie TokenChunker, cl100k, 500 tokens", _chonkie_token)
    if name == "chonkie-recursive":
        return Chonkie(name, "chonkie RecursiveChunker, cl100k, 500 tokens", _chonkie_recursive)
    if name == "chonkie-semantic":
        return Chonkie(
            name,
            "chonkie SemanticChunker, all-MiniLM-L6-v2, 500 tokens",
            lambda: _chonkie_semantic(embedder),
            cache_id="chonkie-semantic/minilm-500/v1",
        )
    if name in {"lumber", "chop", "chop-chunks"}:
        return Engine(name, llm=None, max_concurrency=max_concurrency)
    if name in LLM_STRATEGIES:
        if llm is None:
            raise ConfigurationError(f"strategy {name!r} needs an LLM: pass --llm-model (and --llm-base-url)")
        return Engine(name.removesuffix("-llm"), llm=llm, max_concurrency=max_concurrency)
    if name == "oracle":
        return Oracle(sections)
    known = ", ".join(DEFAULT_STRATEGIES + OPTIONAL_STRATEGIES + LLM_STRATEGIES + ("recursive-N", "native-Nt"))
    raise ConfigurationError(
        f"unknown strategy {name!r}: choose from {known}, llamaindex, or any of them +name, +header, +header-ours"
    )
