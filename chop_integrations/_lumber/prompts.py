"""LumberChunker prompts and the LLM-backed topic-shift decider.

Two prompt styles:

* ``mode="paper"`` reproduces the original code (joaodsmarques/LumberChunker,
  ``Code/LumberChunker-Segmentation.py``) word for word: its instruction text,
  paragraphs labelled ``ID <n>: <text>`` with document-wide IDs, and a free-text
  answer ``Answer: ID <n>``. One shift per call.
* ``mode="default"`` (ours) is built for few tokens and safe answers: window-
  relative numbers (``#1``, ``#2``...), only a short tail of the text before
  the window re-sent as unnumbered context (so ``#1`` may start a new topic),
  ALL topic starts in the window asked for at once, an explicit "no new topic
  here" answer, and a JSON answer validated by pydantic (sent as a
  structured-output schema where the LLM supports it). No prompt depends on an
  earlier answer, so all windows can be asked at once.

:class:`LLMTopicShift` implements the
:class:`~chop_integrations._deciders.TopicShiftDecider` protocol on top of an
:class:`~chop_integrations._llm.runner.LLMRunner`; every decision goes through
:func:`~chop_integrations._llm.policy.adecide` (one corrective retry, then raise or a
counted fallback), and every accepted index lies inside the window, after the
units already judged, so the engine always moves forward.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from .._checks import check_choice
from .._deciders import Window
from .._errors import AnswerParseError
from .._llm.engine import sync_method
from .._llm.parsing import extract_json
from .._llm.policy import Decision, OnLLMError, adecide, check_policy
from .._llm.runner import LLMRunner
from .._llm.usage import UsageReport
from .._text.tokens import TokenCounter

Mode = Literal["default", "paper"]
#: Paper mode: the next group starts at the answer (the paper) or one unit later (the original code).
PaperRestart = Literal["answer", "answer+1"]

#: The original code's instruction, verbatim (its ``system_prompt``).
PAPER_SYSTEM_PROMPT = """You will receive as input an english document with paragraphs identified by 'ID XXXX: <text>'.

Task: Find the first paragraph (not the first one) where the content clearly changes compared to the previous paragraphs.

Output: Return the ID of the paragraph with the content shift as in the exemplified format: 'Answer: ID XXXX'.

Additional Considerations: Avoid very long groups of paragraphs. Aim for a good balance between identifying content shifts and keeping groups manageable."""  # noqa: E501

#: Our compact instruction; ``{lo}``, ``{hi}`` and ``{max_tokens}`` are filled per window.
DEFAULT_INSTRUCTION = (
    "Split the text into topical sections. Paragraphs are numbered #N. List the paragraphs "
    "(#{lo} to #{hi}) where a new topic starts; sections should stay under about {max_tokens} tokens.\n"
    'Reply with JSON only: {{"starts": [numbers]}}, or {{"starts": []}} if no new topic starts here.\n'
)
#: Heading of the re-sent tail of the text before the window (default mode). It does not say
#: that #1 continues it: the first numbered paragraph may start a new topic.
CONTEXT_HEADING = "Context (the text just before, not numbered):\n"
TEXT_HEADING = "Text:\n"

_PAPER_ANSWER = re.compile(r"Answer:\s*ID\s*(\d+)", re.IGNORECASE)
_ANY_ID = re.compile(r"\bID\s*:?\s*(\d+)", re.IGNORECASE)
#: Longest paragraph ID read from an answer; a longer one names no paragraph.
_MAX_ID_DIGITS = 12


class TopicShifts(BaseModel):
    """The default prompt's answer: the numbers of the paragraphs where a new topic starts."""

    starts: list[int] = Field(
        default_factory=list,
        description="Numbers of the paragraphs where a new topic starts; empty when the topic does not change.",
    )

    @field_validator("starts", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            return [value]
        return value


@dataclass(frozen=True)
class LumberWindow(Window):
    """A window that also says how many of its leading units were shown in an earlier prompt.

    Attributes:
        seen: Units ``units[:seen]`` are judged elsewhere: in default mode they
            are the text before the window (judged by the previous window), of
            which the prompt re-sends only a short tail as context; in paper
            mode they open the current group and were shown in an earlier
            prompt (restart at answer+1), so the prompt leaves them out.
    """

    seen: int = 0


def seen_units(window: Window) -> int:
    """How many leading units of ``window`` were judged before (0 for a plain :class:`Window`)."""
    return max(0, min(int(getattr(window, "seen", 0)), len(window.units)))


# -- prompt rendering -------------------------------------------------------------------------


def paper_prompt(window: Window) -> str:
    """The original prompt: instruction, a newline, ``Document:``, then one ``ID <n>: <text>`` line per unit.

    IDs are document-wide unit indexes, as in the original, and only the units
    not shown before (``units[seen:]``) are listed.
    """
    seen = seen_units(window)
    lines = (f"ID {window.first_index + i}: {unit.text.strip()}" for i, unit in enumerate(window.units) if i >= seen)
    return PAPER_SYSTEM_PROMPT + "\nDocument:\n" + "\n".join(lines)


def context_tail(text: str, budget: int, count: Any) -> str:
    """The longest suffix of ``text`` with at most ``budget`` tokens, starting at a word boundary."""
    text = text.strip()
    if budget <= 0 or not text:
        return ""
    if count(text) <= budget:
        return text
    lo, hi = 0, min(len(text), budget * 8)
    while lo < hi:  # largest suffix length whose token count fits
        mid = (lo + hi + 1) // 2
        if count(text[-mid:]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    tail = text[-lo:] if lo else ""
    cut = tail.find(" ")
    if 0 <= cut < len(tail) // 3:
        tail = tail[cut + 1 :]
    return "..." + tail


def default_numbering(window: Window) -> tuple[int, int, int]:
    """``(base, lo, hi)``: prompt number ``j`` is window index ``base + j - 1``; valid numbers are ``lo..hi``."""
    seen = seen_units(window)
    shown = len(window.units) - seen
    return seen, (1 if seen else 2), shown


def default_prompt(window: Window, *, max_tokens: int, context_tokens: int, count: Any) -> str:
    """Our compact prompt for ``window`` (see the module docstring)."""
    base, lo, hi = default_numbering(window)
    parts = [DEFAULT_INSTRUCTION.format(lo=lo, hi=hi, max_tokens=max_tokens)]
    if base:
        open_text = "".join(unit.text for unit in window.units[:base])  # units are contiguous
        tail = context_tail(open_text, context_tokens, count)
        if tail:
            parts.append(CONTEXT_HEADING + tail + "\n")
    body = "\n".join(f"#{j} {unit.text.strip()}" for j, unit in enumerate(window.units[base:], start=1))
    parts.append(TEXT_HEADING + body)
    return "".join(parts)


# -- answer parsing ---------------------------------------------------------------------------


def valid_range(window: Window, mode: Mode) -> range:
    """Window-relative indexes an answer may name.

    Default mode: any numbered unit, ``#1`` included when context comes before
    it (only the document's very first unit can never start a new chunk).
    Paper mode: a unit after the first one shown.
    """
    seen = seen_units(window)
    first = seen + 1 if mode == "paper" else max(1, seen)
    return range(first, len(window.units))


def parse_paper(answer: str, window: Window) -> list[int]:
    """Parse ``Answer: ID <n>`` (or, failing that, the first ``ID <n>``) into one window index.

    Raises:
        AnswerParseError: When no allowed ID is named.
    """
    match = _PAPER_ANSWER.search(answer or "") or _ANY_ID.search(answer or "")
    if match is None:
        raise AnswerParseError("no paragraph ID found; answer exactly as 'Answer: ID XXXX'")
    allowed = valid_range(window, "paper")
    digits = match.group(1).lstrip("0") or "0"
    # More digits than any window could number: never converted (int() refuses past 4,300 digits).
    index = int(digits) - window.first_index if len(digits) <= _MAX_ID_DIGITS else -1
    if index not in allowed:
        lo, hi = window.first_index + allowed.start, window.first_index + allowed.stop - 1
        name = f"name one ID from ID {lo} to ID {hi} as 'Answer: ID XXXX'"
        shown = match.group(1) if len(digits) <= _MAX_ID_DIGITS else f"{digits[:_MAX_ID_DIGITS]}... ({len(digits)})"
        raise AnswerParseError(f"ID {shown} is not allowed; {name}")
    return [index]


def parse_default(answer: str, window: Window) -> list[int]:
    """Parse the JSON answer of the default prompt into sorted window indexes.

    Raises:
        AnswerParseError: When the answer holds no valid list of numbers inside the window.
    """
    value = extract_json(answer)
    if isinstance(value, list):
        value = {"starts": value}
    if not isinstance(value, dict):
        raise AnswerParseError('no JSON object found; reply with {"starts": [numbers]} or {"starts": []}')
    try:
        numbers = TopicShifts.model_validate(value).starts
    except Exception as error:
        raise AnswerParseError('"starts" must be a list of paragraph numbers, e.g. {"starts": [3, 7]}') from error
    base, lo, hi = default_numbering(window)
    wrong = sorted({n for n in numbers if not lo <= n <= hi and not (n == 1 and base == 0)})
    if wrong:
        raise AnswerParseError(f"paragraph numbers {wrong} are outside #{lo} to #{hi}")
    return sorted({base + n - 1 for n in numbers if n >= lo})


# -- the decider ------------------------------------------------------------------------------


class LLMTopicShift:
    """A :class:`~chop_integrations._deciders.TopicShiftDecider` that asks an LLM.

    Args:
        runner: Calls the LLM (cache, retries, timeout, usage).
        mode: ``"default"`` (all topic starts, JSON) or ``"paper"`` (the original prompt, first shift only).
        on_llm_error: ``"raise"`` or ``"fallback"`` once the corrective retry failed too.
        fallback: The offline decider asked instead under ``"fallback"``.
        max_tokens: The chunk size named in the default prompt.
        context_tokens: Tokens of the text before the window re-sent as context (default prompt).

    Raises:
        ConfigurationError: On an unknown mode or policy.
    """

    def __init__(
        self,
        runner: LLMRunner,
        *,
        mode: Mode = "default",
        on_llm_error: OnLLMError = "fallback",
        fallback: Any,
        max_tokens: int = 550,
        context_tokens: int = 64,
    ) -> None:
        check_choice("mode", mode, Mode)
        self.runner = runner
        self.mode: Mode = mode
        self.on_llm_error = check_policy(on_llm_error)
        self.fallback = fallback
        self.max_tokens = max_tokens
        self.context_tokens = context_tokens

    def prompt(self, window: Window) -> str | None:
        """The prompt for ``window``, or ``None`` when no answer could be valid (nothing to ask)."""
        return build_prompt(
            window,
            mode=self.mode,
            max_tokens=self.max_tokens,
            context_tokens=self.context_tokens,
            count=self.runner.count_tokens,
        )

    async def achoose(self, window: Window) -> list[int]:
        """Ask the LLM where new chunks begin in ``window`` (see the protocol)."""
        decision = self._decision(window)
        return [] if decision is None else await adecide(decision, self.runner, self.on_llm_error)

    def _decision(self, window: Window) -> Decision[list[int]] | None:
        prompt = self.prompt(window)
        if prompt is None:
            return None
        parse = parse_paper if self.mode == "paper" else parse_default
        seen = seen_units(window)
        return Decision(
            prompt=prompt,
            parse=lambda answer: parse(answer, window),
            fallback=lambda: self.offline_choice(window),
            task="topic_shift",
            document=window.doc.doc_id,
            position=window.units[min(seen, len(window.units) - 1)].start,
            schema=None if self.mode == "paper" else TopicShifts,
        )

    def offline_choice(self, window: Window) -> list[int]:
        """The fallback decider's answer, kept inside the valid range (first shift only in paper mode)."""
        return offline_choice(self.fallback, window, self.mode)


def build_prompt(window: Window, *, mode: Mode, max_tokens: int, context_tokens: int, count: Any) -> str | None:
    """The prompt for ``window`` in ``mode``, or ``None`` when no answer could be valid (nothing to ask)."""
    if not valid_range(window, mode):
        return None
    if mode == "paper":
        return paper_prompt(window)
    return default_prompt(window, max_tokens=max_tokens, context_tokens=context_tokens, count=count)


def clean_shifts(shifts: Any, window: Window, mode: Mode) -> list[int]:
    """Keep a decider's answer inside the valid range, sorted and unique (first shift only in paper mode)."""
    allowed = valid_range(window, mode)
    try:
        kept = sorted({i for i in shifts if isinstance(i, int) and not isinstance(i, bool) and i in allowed})
    except TypeError:
        kept = []
    return kept[:1] if mode == "paper" else kept


def offline_choice(decider: Any, window: Window, mode: Mode) -> list[int]:
    """Ask an offline decider (sync or async: :func:`~chop_integrations._llm.engine.sync_method`), clean its answer."""
    return clean_shifts(sync_method(decider, "achoose")(window), window, mode)


class CleanedDecider:
    """The offline decider with its answers kept valid for the mode (first shift only in paper mode).

    Synchronous: the offline run asks it in turn; an async run wraps it in
    :class:`~chop_integrations._deciders.Synchronous`.
    """

    def __init__(self, decider: Any, mode: Mode) -> None:
        self.choose_raw = sync_method(decider, "achoose")
        self.mode: Mode = mode

    def choose(self, window: Window) -> list[int]:
        """The wrapped decider's answer, cleaned."""
        return clean_shifts(self.choose_raw(window), window, self.mode)


class EstimatingDecider:
    """A dry run's decider: answers as the offline decider does and counts the prompt an LLM would be sent.

    In paper mode the answer is the group's last offline boundary (the model is asked to avoid tiny groups),
    which comes close to the original's measured amplification of about 1.45.
    """

    def __init__(
        self,
        offline: Any,
        *,
        mode: Mode,
        usage: UsageReport,
        max_tokens: int,
        context_tokens: int,
        count: TokenCounter,
    ) -> None:
        self.offline = offline
        self.mode: Mode = mode
        self.usage = usage
        self.max_tokens = max_tokens
        self.context_tokens = context_tokens
        self.count = count

    def choose(self, window: Window) -> list[int]:
        """The offline answer; the prompt it stands for is counted in the usage report."""
        shifts = offline_choice(self.offline, window, "default")
        if self.mode == "paper":
            shifts = clean_shifts(shifts[-1:], window, "paper")
        prompt = build_prompt(
            window, mode=self.mode, max_tokens=self.max_tokens, context_tokens=self.context_tokens, count=self.count
        )
        if prompt is not None:
            self.usage.add(calls=1, prompt_tokens=self.count(prompt), completion_tokens=len(shifts) * 2 + 6)
        return shifts
