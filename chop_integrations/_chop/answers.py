"""What the LLM answers to CHOP's per-chunk and per-pair questions: schemas and tolerant parsers.

Each parser returns the answer, or raises :class:`~chop_integrations.AnswerParseError`
describing what is wrong with it; :func:`chop_integrations._llm.policy.adecide` sends that
description back to the model in its one corrective retry.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .._errors import AnswerParseError
from .._llm.parsing import parse_bool, parse_model
from .._types import CNM

__all__ = ["CNMAnswer", "ContinuityAnswer", "PairAnswer", "parse_cnm", "parse_continuity", "parse_pair"]


class ContinuityAnswer(BaseModel):
    """Structured answer of the continuity question."""

    continues: bool = Field(description="True when B continues A's document and topic; false when a new one starts.")


class CNMAnswer(BaseModel):
    """Structured answer of the CNM question (lenient: a string noun becomes a list)."""

    model_config = ConfigDict(extra="ignore", protected_namespaces=())

    category: str | None = Field(default=None, description="Broad product family, or null.")
    nouns: list[str] = Field(default_factory=list, description="1-2 key nouns for the passage's target or action.")
    model: str | None = Field(default=None, description="Specific model or series name, or null.")

    @field_validator("nouns", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value if v is not None]
        return value

    @field_validator("category", "model", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return " ".join(str(v) for v in value if v is not None) or None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return value

    def to_cnm(self) -> CNM:
        """The sanitised :class:`~chop_integrations.CNM`."""
        return CNM(category=self.category, nouns=self.nouns, model=self.model)


class PairAnswer(BaseModel):
    """Structured answer of the combined question: continuity, plus the CNM when it is false."""

    continues: bool = Field(description="True when B continues A's document and topic.")
    cnm: CNMAnswer | None = Field(default=None, description="B's signature, only when continues is false.")


def parse_continuity(answer: str) -> bool:
    """``{"continues": ...}`` JSON or a bare TRUE/FALSE.

    Raises:
        AnswerParseError: When it is neither (with the TRUE/FALSE parser's description).
    """
    try:
        return parse_model(answer, ContinuityAnswer).continues
    except AnswerParseError:
        return parse_bool(answer)


def parse_cnm(answer: str) -> CNM:
    """A CNM JSON object (fields may be missing or null).

    Raises:
        AnswerParseError: When the answer holds no such object.
    """
    return parse_model(answer, CNMAnswer).to_cnm()


def parse_pair(answer: str) -> tuple[bool, CNM | None]:
    """The combined answer: ``(continues, cnm)``, where ``cnm`` is None when true or when the model left it out.

    A bare TRUE/FALSE is accepted too; a FALSE without a CNM makes the engine ask
    for the CNM separately.

    Raises:
        AnswerParseError: When the answer is neither (with the JSON parser's description).
    """
    try:
        parsed = parse_model(answer, PairAnswer)
    except AnswerParseError as error:
        try:
            return parse_bool(answer), None
        except AnswerParseError:
            raise error from None
    if parsed.continues:
        return True, None
    return False, None if parsed.cnm is None else parsed.cnm.to_cnm()
