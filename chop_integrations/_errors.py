"""The exceptions the package raises.

Hierarchy::

    ChopError                      base of everything raised on purpose
    ├── ConfigurationError         (also a ValueError) a bad argument or setting
    ├── InputError                 (also a ValueError) a document that cannot be read
    ├── AnswerParseError           (also a ValueError) one LLM answer cannot be used (caught by the failure policy)
    ├── BudgetExceededError        a run reached its limit of LLM calls or tokens (max_calls, max_llm_tokens)
    └── LLMError                   an LLM call or answer failed under on_llm_error="raise"
        ├── LLMCallError           the call itself failed (after retries): network, rate limit, 5xx
        │   ├── LLMTimeoutError    the call did not answer within the per-call timeout
        │   └── LLMResponseError   the provider's reply was no chat completion (no choices, HTML body)
        └── LLMAnswerError         the answer could not be parsed or validated, even after the retry
"""

from __future__ import annotations


class ChopError(Exception):
    """Base class of every exception this package raises on purpose."""


class ConfigurationError(ChopError, ValueError):
    """Raised when an argument or setting is invalid; the message says how to fix it."""


class InputError(ChopError, ValueError):
    """Raised when a document cannot be read (missing, binary, not decodable)."""


class AnswerParseError(ChopError, ValueError):
    """Raised by an answer parser when an LLM answer cannot be used.

    The failure policy (:func:`chop_integrations._llm.policy.adecide`) catches it, counts an
    invalid answer and sends :attr:`problem` back to the model in its one corrective retry;
    if the retry fails too, the policy raises :class:`LLMAnswerError` or falls back. It only
    reaches a caller who calls a parser directly.

    Attributes:
        problem: What was wrong with the answer, phrased for the model (quoted in the retry prompt).
    """

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class BudgetExceededError(ChopError):
    """Raised when a run reached its limit of LLM calls or tokens (``max_calls``, ``max_llm_tokens``).

    No call past the limit was started; the run's usage report (``last_usage``) holds what was spent.
    Never caught by the failure policy: ``on_llm_error="fallback"`` does not turn it into offline answers.

    Attributes:
        progress: The run's counts when it stopped (a :class:`~chop_integrations.Progress`), if known.
        reason: Which limit stopped it, in words.
    """

    def __init__(self, message: str, *, progress: object = None, reason: str = "") -> None:
        super().__init__(message)
        self.progress = progress
        self.reason = reason or message


class LLMError(ChopError):
    """Raised under ``on_llm_error="raise"`` when an LLM decision could not be made.

    Attributes:
        document: The document's identifier (its ``source`` metadata or index), if known.
        position: Character offset in the document where the decision was needed, if known.
        task: Which decision failed: ``"topic_shift"``, ``"continuity"`` or ``"cnm"``.
        answer: The model's raw answer, where there was one (quoted back in the corrective retry).
    """

    def __init__(
        self,
        message: str,
        *,
        document: str | None = None,
        position: int | None = None,
        task: str | None = None,
        answer: str | None = None,
    ) -> None:
        where = []
        if document is not None:
            where.append(f"document {document!r}")
        if position is not None:
            where.append(f"offset {position}")
        if task is not None:
            where.append(f"task {task}")
        full = f"{message} ({', '.join(where)})" if where else message
        super().__init__(full)
        self.document = document
        self.position = position
        self.task = task
        self.answer = answer
        self.message = message


class LLMCallError(LLMError):
    """Raised when the LLM call itself failed after all retries."""


class LLMTimeoutError(LLMCallError):
    """Raised when the LLM did not answer within the per-call timeout."""


class LLMResponseError(LLMCallError):
    """Raised when the provider's reply was not a usable chat completion (no choices, an HTML body...).

    Not retried: a gateway page or an empty completion is not a transient network error.
    """


class LLMAnswerError(LLMError):
    """Raised when the LLM's answer could not be parsed or validated, even after one corrective retry."""
