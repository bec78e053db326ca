"""A document ingested alone gets the name, chunks and prefixes it gets in a batch, through every surface.

The commonest ingestion loop hands a framework one document at a time. The name is the document's own (its
metadata or its title block), so nothing may depend on which other documents share the call: the core, the
LangChain transformer (also reused across calls), the LlamaIndex extractor and its pipeline, and the CLI.
The family here is generic on purpose: versioned release notes with code-named files, whose names only their
first lines give. A slow variant runs the same checks on five of the real manuals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chop_integrations import CNM, CHOPChunker, CorpusState
from chop_integrations import _cli as cli
from tests.support.data import MANUALS


def _release(version: str) -> str:
    title = f"Quillwork {version} release notes"
    return (
        f"{'=' * len(title)}\n{title}\n{'=' * len(title)}\n\n*May 3, 2023*\n\n"
        f"Quillwork {version} fixes several bugs in 4.2.\n\nBugfixes\n========\n\n"
        "* Fixed a crash when exporting a document with an empty title.\n\n"
        "* Fixed the spell checker on words with apostrophes.\n\nUpgrading\n=========\n\n"
        "Run the installer again; settings are kept.\n"
    )


FAMILY = {f"doc_{n:02d}.txt": _release(f"4.2.{n}") for n in range(1, 5)}


def _core(texts: list[str], metadatas: list[dict[str, Any]]) -> list[list[tuple[str, int, int, str, str]]]:
    docs = CHOPChunker(max_tokens=60).chunk_many(texts, metadatas=metadatas)
    return [[(c.text, c.start, c.end, c.prefix, c.metadata["chop_aliases"]) for c in doc] for doc in docs]


def _corpus(folder: Path | None) -> dict[str, str]:
    if folder is None:
        return FAMILY
    if not folder.is_dir():
        pytest.skip(f"the manuals are not at {folder}")
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))[:5]}


@pytest.fixture(params=[None, pytest.param(MANUALS, marks=pytest.mark.slow)], ids=["family", "manuals"])
def corpus(request: pytest.FixtureRequest) -> dict[str, str]:
    return _corpus(request.param)


def test_the_core_alone_equals_the_batch_and_every_document_is_named(corpus: dict[str, str]) -> None:
    names, texts = list(corpus), list(corpus.values())
    batch = _core(texts, [{"source": n} for n in names])
    alone = [_core([t], [{"source": n}])[0] for n, t in zip(names, texts, strict=True)]
    assert alone == batch
    assert all(chunk[3] for doc in batch for chunk in doc)  # every chunk carries its document's name


def test_langchain_transformer_one_document_per_call(corpus: dict[str, str]) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from chop_integrations.langchain import CHOPDocumentTransformer

    docs = [Document(page_content=t, metadata={"source": n}) for n, t in corpus.items()]
    batch = CHOPDocumentTransformer(max_tokens=60).transform_documents(docs)
    reused = CHOPDocumentTransformer(max_tokens=60)
    one_by_one = [d for doc in docs for d in reused.transform_documents([doc])]
    fresh = [d for doc in docs for d in CHOPDocumentTransformer(max_tokens=60).transform_documents([doc])]
    key = [(d.page_content, d.metadata) for d in batch]
    assert [(d.page_content, d.metadata) for d in one_by_one] == key == [(d.page_content, d.metadata) for d in fresh]
    assert all(d.metadata["chop_prefix"] for d in batch)


def test_llama_index_extractor_and_pipeline_one_document_per_run(corpus: dict[str, str]) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.ingestion import IngestionPipeline

    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    def run(documents: list[Any]) -> list[tuple[str, str, str]]:
        pipeline = IngestionPipeline(transformations=[LumberChunkerNodeParser(max_tokens=60), CHOPExtractor()])
        return [
            (n.ref_doc_id or "", n.get_content(), n.metadata["chop_prefix"]) for n in pipeline.run(documents=documents)
        ]

    documents = [Document(text=t, doc_id=n, metadata={"file_name": n}) for n, t in corpus.items()]
    batch = run(documents)
    assert [row for document in documents for row in run([document])] == batch
    assert all(prefix for _, _, prefix in batch)


def test_cli_one_file_per_run(corpus: dict[str, str], tmp_path: Path) -> None:
    files = []
    for name, text in corpus.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(tmp_path / name)

    def run(out: Path, *paths: Path) -> list[dict[str, Any]]:
        assert cli.main(["chunk", "--method", "chop", "--max-tokens", "60", "--out", str(out), *map(str, paths)]) == 0
        return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]

    batch = run(tmp_path / "all.jsonl", *files)
    alone = [row for n, path in enumerate(files) for row in run(tmp_path / f"{n}.jsonl", path)]
    assert [(r["doc"], r["chop_text"], r["embed_text"]) for r in alone] == [
        (r["doc"], r["chop_text"], r["embed_text"]) for r in batch
    ]
    assert all(r["embed_text"] != r["chop_text"] for r in batch)


def test_a_code_named_family_gets_the_names_its_titles_give() -> None:
    chunks = CHOPChunker(max_tokens=60).chunk_many(list(FAMILY.values()), metadatas=[{"source": n} for n in FAMILY])
    assert [doc[0].metadata["chop_model"] for doc in chunks] == [f"Quillwork 4.2.{n}" for n in range(1, 5)]
    assert {doc[0].metadata["chop_model_source"] for doc in chunks} == {"text"}


def test_a_lone_documents_category_is_the_one_difference_and_one_warning_says_what_to_pass(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text, kettle = _release("4.2.1"), {"source": "doc_01.txt", "category": "editor"}
    chunker = CHOPChunker(max_tokens=60)
    with caplog.at_level("WARNING", logger="chop_integrations"):
        chunker.chunk(text, metadata=kettle)
        chunker.chunk(text, metadata=kettle)
        CHOPChunker(max_tokens=60).chunk(text, metadata={"source": "doc_01.txt"})  # no category: nothing to say
        CHOPChunker(max_tokens=60, corpus=CorpusState()).chunk(text, metadata=kettle)  # a state passed: no warning
    assert [r.getMessage().count("corpus=CorpusState()") for r in caplog.records] == [1]
    state = CorpusState()
    state.observe([CNM(category="editor"), CNM(category="viewer")])
    told = CHOPChunker(max_tokens=60, corpus=state).chunk(text, metadata=kettle)
    assert told[0].prefix.startswith("Quillwork 4.2.1: [editor |")
