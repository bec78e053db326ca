"""One parity test over the surfaces: LangChain, LlamaIndex, the command line and Ray give an engine's own chunks.

For each engine in the registry and several sample configs, the same texts go through each surface and come out
as the same chunks (text and exact offsets; the embedded text where the surface writes it) as the engine's
``chunk``. Each case skips on its own when its framework is missing (``pytest.importorskip`` per case), so a
LangChain-only install still checks LangChain. The config fields reach the engine through each surface by the same
name (:data:`tests.support.config_samples.SAMPLES`: a field without a sample fails here). The last tests add an
engine the way a contributor would, one module and its config, and find it on every surface, no other file touched.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chop_integrations import CHOPConfig, LumberConfig
from chop_integrations._cli.options import NOT_ON_COMMAND_LINE, flag
from chop_integrations._engines import ENGINES, SHIPPED, build_engine
from tests.support.config_samples import SAMPLES

SURFACES = ("langchain", "llama_index", "cli", "ray")
#: The module each surface needs (the command line needs nothing beyond the package).
NEEDS: dict[str, tuple[str, ...]] = {
    "langchain": ("langchain_text_splitters",),
    "llama_index": ("llama_index.core",),
    "cli": (),
    "ray": ("ray", "pyarrow"),
}

_SECTION = (
    "{title}\n\nMount the {model} on a solid wall at least {n} cm above the floor and keep its vents free. "
    "Clean the air filter every {w} weeks: wash it in lukewarm water and let it dry in the shade before you "
    "put it back. Error E{e} means the outdoor sensor failed; switch the unit off and call the service.\n\n"
)
#: Three short manuals, each several chunks long at the sample sizes.
TEXTS = [
    f"{model} Owner's Manual\n\n"
    + "".join(
        _SECTION.format(title=title, model=model, n=90 + i, w=2 + i % 3, e=i)
        for i, title in enumerate(["Installation", "Cleaning the filter", "Error codes", "Warranty", "Safety"])
    )
    for model in ("Nimbus AC-12", "Cirrus HP-7", "Stratus X-300")
]
NAMES = ["nimbus.txt", "cirrus.txt", "stratus.txt"]

#: Engine configs the chunks are compared under: several per engine, not one.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("lumber", {}),
    ("lumber", {"max_tokens": 60, "token_counter": "words"}),
    ("lumber", {"mode": "paper", "theta": 120, "max_tokens": 90}),
    ("chop", {"prefix": "fixed"}),
    ("chop", {"prefix": "{category} | {model}", "max_tokens": 70, "decisions": "pair"}),
]

Row = tuple[str, int, int, str | None]  # text, start, end, embedded text (None where the surface has none)


def _needs(surface: str) -> None:
    for module in NEEDS[surface]:
        pytest.importorskip(module)


# -- each surface: the chunks of TEXTS, per document --------------------------------------------------------


def _langchain(engine: str, options: dict[str, Any], tmp_path: Path) -> list[list[Row]]:
    from chop_integrations.langchain import LumberChunkerTextSplitter

    splitter = LumberChunkerTextSplitter(chunker=build_engine(engine, **options), add_start_index=True)
    rows: list[list[Row]] = [[] for _ in TEXTS]
    for doc in splitter.create_documents(TEXTS, [{"source": n, "i": i} for i, n in enumerate(NAMES)]):
        start = doc.metadata["start_index"]
        rows[doc.metadata["i"]].append((doc.page_content, start, start + len(doc.page_content), None))
    return rows


def _llama_index(engine: str, options: dict[str, Any], tmp_path: Path) -> list[list[Row]]:
    from llama_index.core import Document

    from chop_integrations.llama_index import LumberChunkerNodeParser

    parser = LumberChunkerNodeParser(chunker=build_engine(engine, **options), include_metadata=False)
    documents = [Document(text=t, metadata={"source": n}, id_=n) for t, n in zip(TEXTS, NAMES, strict=True)]
    rows: list[list[Row]] = [[] for _ in TEXTS]
    for node in parser.get_nodes_from_documents(documents):
        rows[NAMES.index(node.ref_doc_id)].append((node.text, node.start_char_idx, node.end_char_idx, None))
    return rows


def _flags(options: dict[str, Any]) -> list[str]:
    """The command-line flags that give ``options`` (a bool field: its flag or its negation)."""
    argv: list[str] = []
    for name, value in options.items():
        argv += (
            [flag(name) if value else "--no-" + flag(name)[2:]] if isinstance(value, bool) else [flag(name), str(value)]
        )
    return argv


def _cli(engine: str, options: dict[str, Any], tmp_path: Path) -> list[list[Row]]:
    from chop_integrations import _cli as cli

    files = []
    for text, name in zip(TEXTS, NAMES, strict=True):
        files.append(tmp_path / name)
        files[-1].write_text(text, encoding="utf-8")
    argv = ["chunk", "--method", engine, "--out", str(tmp_path / "out.jsonl"), *_flags(options)]
    assert cli.main([*argv, *map(str, files)]) == 0
    rows: list[list[Row]] = [[] for _ in TEXTS]
    for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        rows[NAMES.index(Path(record["path"]).name)].append(
            (record["chop_text"], record["start"], record["end"], record["embed_text"])
        )
    return rows


def _ray(engine: str, options: dict[str, Any], tmp_path: Path) -> list[list[Row]]:
    import pyarrow as pa

    from chop_integrations.ray import ChunkBatches

    table = ChunkBatches(engine, **options)(pa.table({"id": NAMES, "text": TEXTS, "source": NAMES}))
    rows: list[list[Row]] = [[] for _ in TEXTS]
    for row in table.sort_by([("chop_document", "ascending"), ("chop_index", "ascending")]).to_pylist():
        rows[NAMES.index(row["chop_document"])].append((row["chop_text"], row["start"], row["end"], row["embed_text"]))
    return rows


RUN: dict[str, Callable[[str, dict[str, Any], Path], list[list[Row]]]] = {
    "langchain": _langchain,
    "llama_index": _llama_index,
    "cli": _cli,
    "ray": _ray,
}


def _reference(engine: str, options: dict[str, Any]) -> list[list[Row]]:
    """The engine's own chunks, one document at a time (as the command line reads its files)."""
    built = build_engine(engine, **options)
    chunked = [built.chunk(t, metadata={"source": n}) for t, n in zip(TEXTS, NAMES, strict=True)]
    return [[(c.text, c.start, c.end, c.embed_text) for c in chunks] for chunks in chunked]


def _same(got: list[list[Row]], want: list[list[Row]]) -> None:
    assert [len(d) for d in got] == [len(d) for d in want]
    for doc, (rows, expected) in enumerate(zip(got, want, strict=True)):
        for row, exp in zip(rows, expected, strict=True):
            assert row[:3] == exp[:3], (doc, row[:3], exp[:3])
            assert row[3] is None or row[3] == exp[3], (doc, row[3], exp[3])
        assert "".join(r[0] for r in rows) == TEXTS[doc]  # and no text lost


CASES = [(s, e, o) for s in SURFACES for e, o in CONFIGS]


@pytest.mark.parametrize(
    ("surface", "engine", "options"), CASES, ids=[f"{s}-{e}-{i}" for i, (s, e, _) in enumerate(CASES)]
)
def test_each_surface_gives_the_engines_own_chunks(
    surface: str, engine: str, options: dict[str, Any], tmp_path: Path
) -> None:
    _needs(surface)
    want = _reference(engine, options)
    assert sum(len(d) for d in want) > len(TEXTS)  # several chunks per document: the comparison means something
    _same(RUN[surface](engine, options, tmp_path), want)


# -- the config fields reach the engine through each surface ---------------------------------------------


def _through(surface: str, engine: str, options: dict[str, Any]) -> Any:
    """The engine a surface builds from ``options`` (config fields by name)."""
    if surface == "langchain":
        from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter

        return (
            LumberChunkerTextSplitter(**options).chunker
            if engine == "lumber"
            else CHOPDocumentTransformer(**options).chop
        )
    if surface == "llama_index":
        from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

        return (LumberChunkerNodeParser if engine == "lumber" else CHOPExtractor)(**options)._engine()
    if surface == "ray":
        from chop_integrations.ray import ChunkBatches

        return ChunkBatches(engine, defer_prefix=True, **options).engine
    from chop_integrations._cli import build_engine as from_args
    from chop_integrations._cli import build_parser

    argv = ["chunk", "--method", engine, *_flags(options)]
    return from_args(build_parser([*argv, "x.txt"]).parse_args([*argv, "x.txt"]))


#: Fields a surface honours itself rather than handing to the engine, or cannot take.
OWN: dict[str, set[str]] = {
    "langchain": {"source_key"},  # the CHOP adapters group documents by it and give the engine their own key
    "llama_index": {"source_key"},
    "ray": {"new_document_resets"},  # False is refused under Ray (batches have no order across actors)
    "cli": set(NOT_ON_COMMAND_LINE),  # objects: the CLI-specific flags are tested in tests/cli
}
FIELD_CASES = [(s, e.name, n) for s in SURFACES for e in SHIPPED for n in e.config_class.model_fields]


def test_every_config_field_has_a_sample() -> None:
    fields = set(LumberConfig.model_fields) | set(CHOPConfig.model_fields)
    assert fields == set(SAMPLES), "add a non-default sample value for each new config field"
    for config in (LumberConfig, CHOPConfig):
        for name, info in config.model_fields.items():
            assert SAMPLES[name]() != info.default, name


@pytest.mark.parametrize(("surface", "engine", "name"), FIELD_CASES, ids=[f"{s}-{e}.{n}" for s, e, n in FIELD_CASES])
def test_each_field_reaches_the_engine_through_each_surface(surface: str, engine: str, name: str) -> None:
    _needs(surface)
    if name in OWN[surface]:
        return
    value = SAMPLES[name]()
    if surface == "cli" and not isinstance(value, (bool, int, float, str)):
        value = {"token_counter": "words"}.get(name, value)
    held = getattr(_through(surface, engine, {name: value}).config, name)
    assert held is value or held == value, (held, value)


# -- a new engine: one module and its config ---------------------------------------------------------------

FIXED_ENGINE = '''
"""A fixed-size engine: a chunk every ``size`` characters (the whole of a new engine: this module)."""

from pydantic import Field

from chop_integrations._checks import chunk_metadata
from chop_integrations._llm.engine import Engine
from chop_integrations._llm.options import EngineConfig
from chop_integrations._types import Chunk


class FixedConfig(EngineConfig):
    size: int = Field(100, description="Characters per chunk.")


class FixedEngine(Engine):
    name = "fixed"
    config_class = FixedConfig

    async def _achunk_docs(self, docs):
        size = self.config.size
        return [
            [
                Chunk(doc.text[at : at + size], at, min(at + size, len(doc.text)), 0, chunk_metadata(doc, i, at))
                for i, at in enumerate(range(0, len(doc.text), size))
            ]
            for doc in docs
        ]
'''


@pytest.fixture
def fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    """The fixed-size engine, its module written and imported as a contributor's would be; gone afterwards."""
    (tmp_path / "fixed_engine.py").write_text(FIXED_ENGINE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("fixed_engine")
    yield module.FixedEngine
    ENGINES.pop("fixed", None)
    sys.modules.pop("fixed_engine", None)


def test_a_new_engine_is_in_the_registry_and_the_command_lines_flags(
    fixed: type, capsys: pytest.CaptureFixture[str]
) -> None:
    from chop_integrations import _cli as cli

    assert ENGINES["fixed"] is fixed and build_engine("fixed", size=7).config.size == 7
    assert cli.main(["chunk", "--help"]) == 0
    shown = capsys.readouterr().out
    assert "fixed" in shown and "--size" in shown and "Characters per chunk" in shown


@pytest.mark.parametrize("surface", SURFACES)
def test_a_new_engine_appears_on_every_surface(fixed: type, surface: str, tmp_path: Path) -> None:
    _needs(surface)
    want = _reference("fixed", {"size": 90})
    assert [len(d) for d in want] == [-(-len(t) // 90) for t in TEXTS]
    _same(RUN[surface]("fixed", {"size": 90}, tmp_path), want)


def test_a_new_engine_is_built_by_ray_by_name(fixed: type) -> None:
    pytest.importorskip("ray")
    from chop_integrations.ray import build_engine as ray_engine

    assert isinstance(ray_engine("fixed", size=11), fixed) and ray_engine("fixed", size=11).config.size == 11
