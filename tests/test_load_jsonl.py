"""The CLI's JSON lines, loaded, give the retrievers what the Python ingestion gives.

``chop-integrations chunk`` writes chunk records with the keys every output shares (``chop_document``,
``chop_index``, ``chop_text``, ``chop_model``...); ``load_jsonl`` turns them into LangChain documents and
LlamaIndex nodes. Loaded into ``InMemoryVectorStore`` with a deterministic embedding, the CLI's chunks give
``CHOPRetriever`` the very results the same files chunked through ``CHOPDocumentTransformer(chunk=True)`` give.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from chop_integrations import _cli as cli
from chop_integrations._chop.records import RECORD_KEYS
from chop_integrations._errors import InputError
from chop_integrations.langchain import CHOPDocumentTransformer, CHOPRetriever, load_jsonl
from tests.support.hashing_embeddings import HashingEmbeddings

SAMPLES = Path(cli.__file__).resolve().parents[1] / "_demo" / "samples"
QUESTIONS = [
    "What does error code E3 mean on the FV-225B?",
    "How long is the compressor warranty of the FV-225B?",
    "How often should I clean the air filter of the FV-310B?",
    "How do I install the FV-410X?",
    "What does error code E3 mean?",  # names no model: the plain search
]


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "chunks.jsonl"
    files = sorted(SAMPLES.glob("*.txt"))
    assert len(files) == 3
    assert cli.main(["chunk", "--method", "chop", "--out", str(out), *map(str, files)]) == 0
    return out


def _python() -> list[Document]:
    files = sorted(SAMPLES.glob("*.txt"))
    docs = [Document(page_content=f.read_text(encoding="utf-8"), metadata={"source": str(f)}) for f in files]
    return list(CHOPDocumentTransformer(chunk=True, add_start_index=True).transform_documents(docs))


def _seen(docs: list[Document]) -> list[tuple[str, str, str, int, int]]:
    m = [d.metadata for d in docs]
    return [
        (d.page_content, x["chop_text"], x["chop_model"], x["chop_index"], x["start_index"])
        for d, x in zip(docs, m, strict=True)
    ]


def test_the_cli_lines_carry_the_shared_record_keys(jsonl: Path) -> None:
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert all(set(RECORD_KEYS) <= set(record) for record in records)
    assert all(r["embed_text"] == r["chop_prefix"] + r["chop_text"] for r in records)
    for doc in {r["chop_document"] for r in records}:
        assert [r["chop_index"] for r in records if r["chop_document"] == doc] == list(
            range(sum(r["chop_document"] == doc for r in records))
        )


def test_loaded_documents_are_the_python_ingestion_s(jsonl: Path) -> None:
    loaded, python = load_jsonl(jsonl), _python()
    assert _seen(loaded) == _seen(python)
    # chop_document is each path's own key (the file's name, a hash of the source).
    signature = [k for k in RECORD_KEYS if k.startswith("chop_") and k != "chop_document"]
    assert [{k: d.metadata.get(k) for k in signature} for d in loaded] == [
        {k: d.metadata.get(k) for k in signature} for d in python
    ]
    plain = load_jsonl(jsonl, prefix_page_content=False)
    assert [d.page_content for d in plain] == [d.metadata["chop_text"] for d in loaded]


@pytest.mark.parametrize("mode", ["filter", "boost"])
def test_the_retriever_gives_the_same_results_over_both(jsonl: Path, mode: str) -> None:
    results = []
    for docs in (load_jsonl(jsonl), _python()):
        store = InMemoryVectorStore(HashingEmbeddings())
        store.add_documents(docs)
        retriever = CHOPRetriever(vectorstore=store, mode=mode, search_kwargs={"k": 3})
        results.append([[(d.page_content, d.metadata["chop_model"]) for d in retriever.invoke(q)] for q in QUESTIONS])
    assert results[0] == results[1]
    assert all(len(hits) == 3 for hits in results[0])
    if mode == "filter":
        assert {model for _, model in results[0][0]} == {"Frostvale FV-225B"}
        assert {model for _, model in results[0][2]} == {"Frostvale FV-310B"}


def test_llama_index_nodes_from_the_lines_serve_its_retriever(jsonl: Path) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import MetadataMode, NodeRelationship

    from chop_integrations.llama_index import CHOPRetriever as LlamaRetriever
    from chop_integrations.llama_index import load_jsonl as load_nodes
    from tests.llama_index.li_query_support import HashingEmbedding

    nodes, records = load_nodes(jsonl), load_jsonl(jsonl)
    assert [n.text for n in nodes] == [d.metadata["chop_text"] for d in records]
    assert all(
        n.get_content(MetadataMode.EMBED).startswith(f"chop_prefix: {n.metadata['chop_prefix'].strip()}") for n in nodes
    )
    assert "chop_document" not in nodes[0].get_content(MetadataMode.LLM)
    assert nodes[1].relationships[NodeRelationship.PREVIOUS].node_id == nodes[0].node_id
    index = VectorStoreIndex(nodes, embed_model=HashingEmbedding())
    hits = LlamaRetriever(index, similarity_top_k=3).retrieve(QUESTIONS[0])
    assert len(hits) == 3 and {h.node.metadata["chop_model"] for h in hits} == {"Frostvale FV-225B"}


def test_a_bad_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc": "a", "text": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: the record has no chop_document"):
        load_jsonl(bad)
    bad.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(InputError, match="a chunk record is a JSON object"):
        load_jsonl(bad)
    bad.write_text("{nope\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a JSON line"):
        load_jsonl(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_jsonl(tmp_path / "missing.jsonl")


@pytest.mark.parametrize(
    ("name", "model", "source"),
    [("SM-G973F_UM_EU_Eng.txt", "Samsung Galaxy S10", "text"), ("galaxy-s10-user-manual.txt", "Galaxy S10", "file")],
)
def test_the_cli_names_a_document_as_the_transformer_does(tmp_path: Path, name: str, model: str, source: str) -> None:
    """A file's stem is not a title: the CLI reads the name where the adapters do (the cover, a readable file name)."""
    text = "Samsung Galaxy S10\nUser Manual\n\nGetting started\n\nCharge the battery before first use.\n"
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "chunks.jsonl"
    assert cli.main(["chunk", "--method", "chop", "--out", str(out), str(path)]) == 0
    python = CHOPDocumentTransformer(chunk=True).transform_documents(
        [Document(page_content=text, metadata={"source": str(path)})]
    )
    for docs in (load_jsonl(out), python):
        assert {(d.metadata["chop_model"], d.metadata["chop_model_source"]) for d in docs} == {(model, source)}
