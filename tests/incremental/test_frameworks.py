"""Incremental re-ingest through the frameworks: LlamaIndex docstore upserts, LangChain's record manager.

After one section of one document is edited, only that document's changed chunks are written and only
the LLM windows around the edit are asked; everything else is skipped by the framework or served by the
persistent answer cache (a SQLite file, as a second process would find it). The adaptive prefix knows the corpus
from an explicit state: the extractor is told every document's name, the engine reads a state saved beside the store.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chop_integrations.testing import SimulatedLLM

from .support import insert_paragraph, manual

SEEDS = (11, 12, 13)
#: ``index()`` options: delete a source's stale chunks when it is indexed again; SHA-256 record keys.
INDEX = {"cleanup": "incremental", "source_id_key": "source", "key_encoder": "sha256"}


def _texts(edited: int | None = None) -> dict[str, str]:
    texts = {f"manual-{seed}.txt": manual(seed, sections=40) for seed in SEEDS}
    if edited is not None:
        name = f"manual-{SEEDS[edited]}.txt"
        texts[name] = insert_paragraph(texts[name])
    return texts


# -- LlamaIndex ---------------------------------------------------------------------------------------


def _li_pipeline(llm: SimulatedLLM, cache: Path, docstore: object, store: object, documents: list[object]) -> object:
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline

    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    extractor = CHOPExtractor(llm=llm, cache=str(cache))
    extractor.observe_corpus(documents)  # every document's name: the upserts pass the extractor the changed ones only
    return IngestionPipeline(
        transformations=[
            LumberChunkerNodeParser(llm=llm, cache=str(cache), max_tokens=200),
            extractor,
            MockEmbedding(embed_dim=8),
        ],
        docstore=docstore,
        vector_store=store,
        docstore_strategy=DocstoreStrategy.UPSERTS,
    )


def _li_documents(texts: dict[str, str]) -> list[object]:
    from llama_index.core import Document

    return [Document(text=text, id_=name, metadata={"file_name": name}) for name, text in texts.items()]


def test_llama_index_upserts_reprocess_only_the_edited_document(tmp_path: Path) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.core.vector_stores import SimpleVectorStore

    llm, cache = SimulatedLLM(0), tmp_path / "answers.sqlite"
    docstore, store = SimpleDocumentStore(), SimpleVectorStore()
    documents = _li_documents(_texts())
    first = _li_pipeline(llm, cache, docstore, store, documents).run(documents=documents)
    full = llm.calls
    owners = dict(store.data.text_id_to_ref_doc_id)
    assert full > 20 and {n.ref_doc_id for n in first} == set(_texts())

    # A new pipeline object (as in a new process): the docstore, vector store and cache file persist.
    documents = _li_documents(_texts(edited=1))
    again = _li_pipeline(llm, cache, docstore, store, documents).run(documents=documents)
    edited = f"manual-{SEEDS[1]}.txt"
    assert {n.ref_doc_id for n in again} == {edited}  # the other documents are not processed at all
    assert 0 < llm.calls - full <= 5  # LumberChunker's windows and CHOP's around the edit (7 by position)
    now = dict(store.data.text_id_to_ref_doc_id)
    assert {k: v for k, v in now.items() if v != edited} == {k: v for k, v in owners.items() if v != edited}
    assert sorted(k for k, v in now.items() if v == edited) == sorted(n.node_id for n in again)
    # the extractor was told the corpus: the lone re-processed document keeps its name
    assert all(n.metadata["chop_prefix"].startswith(f"manual-{SEEDS[1]}") for n in again)

    calls = llm.calls
    assert _li_pipeline(llm, cache, docstore, store, documents).run(documents=documents) == []
    assert llm.calls == calls


# -- LangChain ----------------------------------------------------------------------------------------


def _lc_chunks(llm: SimulatedLLM, cache: Path, texts: dict[str, str]) -> list[object]:
    from langchain_core.documents import Document

    from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter

    splitter = LumberChunkerTextSplitter(llm, cache=str(cache), max_tokens=200)
    chop = CHOPDocumentTransformer(llm, splitter=splitter, cache=str(cache))
    return list(chop.transform_documents([Document(page_content=t, metadata={"source": n}) for n, t in texts.items()]))


def test_langchain_record_manager_writes_only_the_changed_chunks(tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.indexing import InMemoryRecordManager, index
    from langchain_core.vectorstores import InMemoryVectorStore

    llm, cache = SimulatedLLM(0), tmp_path / "answers.sqlite"
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    records = InMemoryRecordManager(namespace="manuals")
    records.create_schema()
    chunks = _lc_chunks(llm, cache, _texts())
    full = llm.calls
    first = index(chunks, records, store, **INDEX)
    assert first["num_added"] == len(chunks) > 30 and full > 20

    changed = _lc_chunks(llm, cache, _texts(edited=1))
    assert 0 < llm.calls - full <= 4  # only the windows around the edit are asked again (6 by position)
    second = index(changed, records, store, **INDEX)
    assert 0 < second["num_added"] <= 8 and second["num_skipped"] >= len(changed) - 8
    assert second["num_added"] + second["num_skipped"] == len(changed)
    assert 0 < second["num_deleted"] <= 8
    assert len(store.store) == len(changed)  # the replaced chunks are gone, nothing is duplicated

    calls = llm.calls
    third = index(_lc_chunks(llm, cache, _texts(edited=1)), records, store, **INDEX)
    assert (third["num_added"], third["num_deleted"], llm.calls) == (0, 0, calls)


# -- the engine, its corpus state saved beside the store ----------------------------------------------


def test_a_saved_corpus_state_keeps_a_reingested_documents_prefixes(tmp_path: Path) -> None:
    from chop_integrations import CHOPChunker, CorpusState

    llm, cache, saved = SimulatedLLM(0), str(tmp_path / "answers.sqlite"), tmp_path / "corpus.json"
    texts = _texts()
    state = CorpusState.load(saved, missing_ok=True)  # the first run: no state yet
    corpus = CHOPChunker(llm, cache=cache, max_tokens=200, corpus=state).chunk_many(
        list(texts.values()), metadatas=[{"source": name} for name in texts]
    )
    state.save(saved)
    full = llm.calls

    # a later process re-ingests the edited document alone, with the state it finds beside the store
    name, edited = f"manual-{SEEDS[1]}.txt", _texts(edited=1)[f"manual-{SEEDS[1]}.txt"]
    again = CHOPChunker(llm, cache=cache, max_tokens=200, corpus=CorpusState.load(saved)).chunk(
        edited, metadata={"source": name}
    )
    assert 0 < llm.calls - full <= 4  # the windows around the edit (the rest from the answer cache)
    assert again[0].prefix.startswith(f"manual-{SEEDS[1]}")
    unchanged = {c.text: c.prefix for c in corpus[1]}
    assert sum(unchanged.get(c.text) == c.prefix for c in again) >= len(again) - 2  # chunks and prefixes as before
    alone = CHOPChunker(llm, cache=cache, max_tokens=200).chunk(edited, metadata={"source": name})
    assert alone[0].prefix.startswith(f"manual-{SEEDS[1]}")  # without the state too: the name is the document's
