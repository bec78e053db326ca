"""A :class:`~chop_integrations.QueryReader` as ``SelfQueryRetriever``'s query constructor: offline, no LLM.

LangChain's ``SelfQueryRetriever`` asks an LLM chain for a ``StructuredQuery`` (the search text and a metadata
filter) and translates the filter for its store. :func:`chop_query_constructor` builds the same
``StructuredQuery`` out of the question with the reader: ``chop_model == <the model it names>``, or no filter.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.structured_query import StructuredQuery

from .._errors import InputError
from .._query import QueryReader, QueryReading
from ._filters import model_directive

__all__ = ["chop_query_constructor"]


def chop_query_constructor(reader: QueryReader) -> Runnable[Any, StructuredQuery]:
    """A runnable from ``{"query": question}`` (or the question itself) to a ``StructuredQuery``.

    Its filter is ``Comparison(eq, "chop_model", <model>)`` when ``reader`` reads a model in the question (an
    ``Operation(and, ...)`` with ``chop_category`` when categories are read too), else ``None``; its query is the
    question as it is. Pass it as ``SelfQueryRetriever(query_constructor=..., vectorstore=store,
    structured_query_translator=<the store's translator>)``.

    Raises:
        InputError: (when invoked) the input is neither a string nor a mapping with a string ``"query"``.
    """

    def build(inputs: Any) -> StructuredQuery:
        question = _question(inputs)
        return _structured(question, reader.read(question))

    async def abuild(inputs: Any) -> StructuredQuery:
        question = _question(inputs)
        return _structured(question, await reader.aread(question))

    return RunnableLambda(build, afunc=abuild, name="chop_query_constructor")


def _question(inputs: Any) -> str:
    question = inputs.get("query") if isinstance(inputs, dict) else inputs
    if not isinstance(question, str):
        raise InputError(f"the query constructor takes a question or {{'query': question}}, got {inputs!r:.80}")
    return question


def _structured(question: str, reading: QueryReading) -> StructuredQuery:
    conditions = reading.metadata_filter()
    return StructuredQuery(query=question, filter=model_directive(conditions) if conditions else None, limit=None)
