"""Tolerant parsing of LLM answers.

Models answer in many shapes: strict JSON, JSON inside a Markdown code fence,
JSON buried in chatter ("Sure! Here it is: {...} Hope this helps"), or a bare
word such as ``TRUE``. The functions here turn any of these into a value.
Where nothing usable is found, :func:`extract_json` returns ``None`` and
:func:`parse_model` and :func:`parse_bool` raise
:class:`~chop_integrations.AnswerParseError` with a short description of
the problem, which the failure policy sends back to the model as its one
corrective retry. No other exception escapes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .._errors import AnswerParseError

ModelT = TypeVar("ModelT", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()
_TRUE_WORDS = frozenset({"true", "yes", "y", "1", "continue", "continues", "same"})
_FALSE_WORDS = frozenset({"false", "no", "n", "0", "new", "different"})
_WORD = re.compile(r"[A-Za-z]+|[01]")
#: Most opening brackets tried as the start of a JSON value (bounds the work on pathological answers).
_MAX_STARTS = 64
#: Most JSON values read from one answer (bounds the work on pathological nesting).
_MAX_NODES = 10_000
#: Longest answer text quoted back in a problem description.
_QUOTE_CHARS = 120


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _first_balanced(text: str) -> tuple[bool, Any]:
    """Decode the first JSON object or array that starts somewhere in ``text``.

    ``raw_decode`` reads one value and ignores what follows, so trailing chatter
    (or a second object) does not matter.
    """
    tried = 0
    for index, char in enumerate(text):
        if char not in "{[":
            continue
        tried += 1
        if tried > _MAX_STARTS:
            break
        try:
            value, _ = _DECODER.raw_decode(text, index)
        except (ValueError, RecursionError):
            continue
        return True, value
    return False, None


def extract_json(text: Any) -> Any | None:
    """Find the JSON value in an LLM answer.

    Tries, in order: the whole (stripped) answer as strict JSON, the content of
    each Markdown code fence, and the first balanced ``{...}`` or ``[...]``
    anywhere in the text (trailing text is ignored).

    Args:
        text: The answer; anything that is not a string gives ``None``.

    Returns:
        The decoded value, or ``None`` when the answer holds no JSON (a JSON
        ``null`` also gives ``None``).
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip().lstrip("\ufeff")
    if not stripped:
        return None
    ok, value = _loads(stripped)
    if ok:
        return value
    for match in _FENCE.finditer(stripped):
        body = match.group(1).strip()
        ok, value = _loads(body)
        if ok:
            return value
        ok, value = _first_balanced(body)
        if ok:
            return value
    ok, value = _first_balanced(stripped)
    return value if ok else None


def _quote(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 3] + "..."


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(p) for p in item.get("loc", ())) or "answer"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts)


def parse_model(text: Any, schema: type[ModelT]) -> ModelT:
    """Parse an answer into an instance of a pydantic ``schema``.

    Args:
        text: The LLM's answer.
        schema: The pydantic model the answer must validate against.

    Returns:
        The validated instance.

    Raises:
        AnswerParseError: With a short description of what was wrong (suitable for the
            corrective retry); a misbehaving validator of ``schema`` is reported the same way.
    """
    value = extract_json(text)
    if value is None:
        raise AnswerParseError(
            f"no JSON object found in the answer; reply with one JSON object matching {schema.__name__}"
        )
    try:
        return schema.model_validate(value)
    except ValidationError as error:
        raise AnswerParseError(f"the JSON does not match {schema.__name__}: {_describe(error)}") from error
    except Exception as error:  # a validator of the schema itself misbehaving must not crash a run
        problem = f"the JSON could not be validated: {type(error).__name__}: {_quote(str(error))}"
        raise AnswerParseError(problem) from error


def _walk(value: Any, *, every_list: bool = True) -> Iterator[Any]:
    """The scalars inside a JSON value, in document order, found without recursion.

    An answer can nest JSON thousands deep; reading it with an explicit stack (and at most
    :data:`_MAX_NODES` values) keeps any shape from exhausting the interpreter's stack.

    Args:
        value: The JSON value.
        every_list: False to enter only a list that holds exactly one value (``[true]``).
    """
    stack: list[Any] = [value]
    seen = 0
    while stack and seen < _MAX_NODES:
        item = stack.pop()
        seen += 1
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            if every_list or len(item) == 1:
                stack.extend(reversed(item))
        else:
            yield item


def _bool_from_json(value: Any) -> bool | None:
    """The first yes/no inside a JSON value: a boolean or a yes/no word, read depth first without recursion.

    Objects are read value by value; a list only when it holds exactly one value (``[true]``).
    """
    for item in _walk(value, every_list=False):
        if isinstance(item, bool):
            return item
        if isinstance(item, str):
            found = _bool_from_word(item.strip().lower())
            if found is not None:
                return found
    return None


def _json_strings(value: Any) -> list[str]:
    return [item for item in _walk(value) if isinstance(item, str)]


def _bool_from_word(word: str) -> bool | None:
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    return None


def parse_bool(text: Any) -> bool:
    """Parse a yes/no answer.

    Accepts ``TRUE``/``FALSE``, ``yes``/``no`` (any case, with punctuation or
    Markdown around them), JSON booleans, and JSON objects such as
    ``{"continues": true}`` or ``{"answer": "FALSE"}``. When the answer's words
    contain both a true and a false word, the first one decides only if it opens
    the answer; otherwise the answer is ambiguous.

    Returns:
        The boolean.

    Raises:
        AnswerParseError: With a short description of what was wrong.
    """
    if not isinstance(text, str):
        raise AnswerParseError("the answer is not text; reply with TRUE or FALSE")
    value = extract_json(text)
    if value is not None:
        found = _bool_from_json(value)
        if found is not None:
            return found
        if isinstance(value, (dict, list)):  # read the JSON's values only: a key such as "continues" is no answer
            text = " ".join(_json_strings(value))
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        raise AnswerParseError(f"expected TRUE or FALSE, got {_quote(text)!r}")
    first = _bool_from_word(words[0])
    if first is not None:
        return first
    hits = {_bool_from_word(w) for w in words if w in ("true", "false", "yes", "no")}
    if len(hits) == 1:
        return hits.pop()  # type: ignore[return-value]
    if not hits:
        raise AnswerParseError(f"expected TRUE or FALSE, got {_quote(text)!r}")
    raise AnswerParseError(f"the answer is ambiguous (both TRUE and FALSE): {_quote(text)!r}")
