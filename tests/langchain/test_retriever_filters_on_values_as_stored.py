"""A model value is filtered on exactly as the store holds it, spaces around it included.

The catalog read back from the store is what the reader matches against and what the filter is built
from; a value normalised on the way (stripped) names no chunk in the store, and ``mode="filter"`` then
returns nothing at all.
"""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

from chop_integrations import SignatureCatalog
from chop_integrations.langchain import CHOPRetriever, catalog_from_vectorstore


def test_a_model_value_with_spaces_around_it_still_filters_its_chunks() -> None:
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents(
        [Document(f"step {n}", metadata={"chop_model": " Pad 7 "}) for n in range(3)]
        + [Document("other", metadata={"chop_model": "Pad 8"})]
    )
    assert set(catalog_from_vectorstore(store).models) == {" Pad 7 ", "Pad 8"}
    found = CHOPRetriever(vectorstore=store, k=3).invoke("How do I reset my Pad 7 today?")
    assert [d.metadata["chop_model"] for d in found] == [" Pad 7 "] * 3


def test_a_blank_value_is_still_not_a_model() -> None:
    assert SignatureCatalog.from_metadata([{"chop_model": "  "}, {"chop_model": ""}]).models == {}
