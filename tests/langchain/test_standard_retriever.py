"""LangChain's standard retriever tests (``langchain-tests``) on ``CHOPRetriever``.

Every combination of a store (``InMemoryVectorStore``, Qdrant in memory, an ephemeral Chroma), a question
(naming a model the store holds, none, a model the store lacks) and a mode (``filter``, ``boost``) is
one subclass of :class:`~langchain_tests.integration_tests.RetrieversIntegrationTests`, which runs its
standard tests on it unchanged: ``k`` in the constructor and at ``invoke``, documents from
``invoke`` and ``ainvoke``, no standard test overridden. The stores hold the synthetic Nimbus manuals
(:mod:`tests.langchain.lc_manuals`), five chunks per model, so a named model alone fills ``k=3``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import VectorStore
from langchain_tests.integration_tests import RetrieversIntegrationTests

from chop_integrations.langchain import CHOPRetriever
from tests.langchain.lc_manuals import STORE_KINDS, open_store
from tests.support.manuals import QUESTIONS

MODES = ("filter", "boost")
#: The stores of this module by kind, opened once for all its classes.
_STORES: dict[str, VectorStore] = {}


@pytest.fixture(scope="module", autouse=True)
def _stores() -> Iterator[None]:
    with ExitStack() as stack:
        _STORES.update({kind: stack.enter_context(open_store(kind)) for kind in STORE_KINDS})
        yield
        _STORES.clear()


class _CHOPRetrieverStandard(RetrieversIntegrationTests):
    """The standard tests on one store, question and mode (set by the subclasses below)."""

    store: str
    question: str
    mode: str

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return CHOPRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"vectorstore": _STORES[self.store], "mode": self.mode}

    @property
    def retriever_query_example(self) -> str:
        return self.question


for _store in STORE_KINDS:
    for _case, _question in QUESTIONS.items():
        for _mode in MODES:
            _name = f"TestCHOPRetriever_{_store}_{_case}_{_mode}"
            globals()[_name] = type(
                _name, (_CHOPRetrieverStandard,), {"store": _store, "question": _question, "mode": _mode}
            )
