"""What the framework wrappers make of a reply that is no usable answer: one rule for every wrapper.

A provider's reply can fail two ways. It can be no chat completion at all (no
choices, an HTML page from a gateway): the wrappers raise :class:`LLMResponseError`,
which the runner treats as a failed call. Or it can be a completion without a valid
object for a structured question: the wrappers raise :class:`LLMAnswerError`, which
the engines' corrective retry answers. The LangChain and LlamaIndex wrappers share
these helpers so both draw the line in the same place.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from pydantic import BaseModel

from .._errors import AnswerParseError, LLMAnswerError
from .parsing import parse_model
from .protocol import MALFORMED_REPLY, looks_malformed, malformed_reply

SchemaT = TypeVar("SchemaT", bound=BaseModel)

#: What a structured call raises when the model answered without a valid object (parser and
#: pydantic validation errors, a missing tool call); transport errors are none of these.
NO_OBJECT = (ValueError, KeyError, IndexError, TypeError, AttributeError)


@contextmanager
def malformed_replies(model_id: str) -> Iterator[None]:
    """Turn a client's error on a reply that was no chat completion into an :class:`LLMResponseError`.

    Works around sync and async calls alike. A ``ValueError`` that does not look like
    a malformed reply (see :func:`~chop_integrations._llm.protocol.looks_malformed`) passes unchanged.

    Raises:
        LLMResponseError: When the reply was no chat completion.
    """
    try:
        yield
    except (*MALFORMED_REPLY, ValueError) as exc:
        if isinstance(exc, ValueError) and not looks_malformed(exc):
            raise
        raise malformed_reply(exc, model_id) from exc


def no_object(exc: BaseException, schema: type[BaseModel], model_id: str) -> Exception:
    """The error for a structured call that failed with ``exc`` (one of :data:`NO_OBJECT`).

    A malformed reply stays an :class:`LLMResponseError`; anything else becomes an
    :class:`LLMAnswerError`, so the engines send their corrective retry.
    """
    if looks_malformed(exc):
        return malformed_reply(exc, model_id)
    return LLMAnswerError(f"no valid {schema.__name__} object in the answer: {type(exc).__name__}: {str(exc)[:300]}")


def parse_json_answer(answer: str, schema: type[SchemaT]) -> SchemaT:
    """Validate the first JSON object in a text answer against ``schema`` (the core's tolerant parser).

    Raises:
        LLMAnswerError: When the answer holds no JSON object valid for ``schema``.
    """
    try:
        return parse_model(answer, schema)
    except AnswerParseError as error:
        raise LLMAnswerError(f"{error.problem} (answer: {answer[:200]!r})") from error
