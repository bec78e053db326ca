"""What one call remembers of the texts it read, so a text that comes back is read once.

Documents of one collection share much of their text: the manuals of one product family repeat whole
sections from model to model, web pages their navigation, contracts their clauses; a long run of one
character is cut into pieces that read the same. LumberChunker counts every unit and reads every
text's headings, so a text that comes back is read again.
One call (``chunk``, ``chunk_many``, ``chunk_stream``) keeps, bounded in size and dropped with the call
(nothing is kept from one call to the next):

* the token count of each text up to :data:`MEMO_TEXT_CHARS` it counted, and the guesses it gave a
  search for the largest piece that fits (:class:`MemoCounter`, :func:`run_counter`);
* the outline's heading offsets of each text it segmented (a :class:`TextMemo` that
  :func:`~chop_integrations._text.segmentation.units_of` takes as ``memo``).

Counts and cuts are those of the text itself, so the chunks are the same.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .document_counts import LINE_ADDITIVE, SUM_CHARS, LineCounts
from .tokens import TiktokenCounter, TokenCounter

__all__ = ["MEMO_BUDGET_CHARS", "MEMO_TEXT_CHARS", "MemoCounter", "TextMemo", "run_counter"]

#: The longest text whose count is kept: units, and the windows a search for the largest piece that fits
#: counts (a long run of one character is cut into pieces that read the same, each found by the same counts).
MEMO_TEXT_CHARS = 1 << 17
#: The most characters of kept texts in one memo; past it the memo starts again empty (memory stays bounded).
MEMO_BUDGET_CHARS = 1 << 22


class TextMemo:
    """Values kept by a key made of text, up to :data:`MEMO_BUDGET_CHARS` characters of keys."""

    def __init__(self) -> None:
        self._values: dict[Hashable, Any] = {}
        self._held = 0  # characters of the kept keys

    def get(self, key: Hashable) -> Any:
        """The value kept for ``key``, or ``None``."""
        return self._values.get(key)

    def put(self, key: Hashable, value: Any, chars: int) -> None:
        """Keep ``value`` for ``key`` (``chars`` long); a memo that would pass its budget starts again empty."""
        if self._held + chars > MEMO_BUDGET_CHARS:
            self._values.clear()
            self._held = 0
        self._values[key] = value
        self._held += chars


class MemoCounter(TiktokenCounter):
    """A :class:`~chop_integrations._text.tokens.TiktokenCounter` that keeps the counts of the short texts it saw.

    The guesses it gives a search for the largest piece that fits (``head_end``) are kept alike. It is a
    tiktoken counter in every other way (its name, its equality, the searches it guides, the sums at line
    starts), so code that asks what counter it has sees the same answer.

    Args:
        encoding_name: A tiktoken encoding name.
    """

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        super().__init__(encoding_name)
        self._memo = TextMemo()
        self._lines: LineCounts | None = None  # made by the first read_lines

    def read_lines(self, text: str) -> None:
        """Count the lines of ``text`` (a document, or the part of one being segmented) with one encoding.

        Later counts of texts made of its lines sum theirs (:class:`~._text.document_counts.LineCounts`);
        nothing happens for an encoding that is not additive at line starts.
        """
        if self._lines is None and self.encoding_name in LINE_ADDITIVE:
            self._lines = LineCounts(self.encoding_name)
        if self._lines is not None:
            self._lines.add(text)

    def __call__(self, text: str) -> int:
        """The number of tokens in ``text`` (see :meth:`TiktokenCounter.__call__`), kept for short texts."""
        if len(text) > MEMO_TEXT_CHARS:
            return super().__call__(text)
        if self._lines is not None and len(text) <= SUM_CHARS:
            return self._lines.count(text, self._kept)
        return self._kept(text)

    def _kept(self, text: str) -> int:
        """The count of ``text`` from the memo, or encoded and kept."""
        tokens: int | None = self._memo.get(text)
        if tokens is None:
            tokens = super().__call__(text)
            self._memo.put(text, tokens, len(text))
        return tokens

    def span(self, text: str, start: int, end: int) -> int:
        """The tokens of ``text[start:end]``, without encoding where it can.

        A subtraction where ``text`` is the string :meth:`read_lines` read last and ``end`` is a clean joint
        of it (:meth:`~chop_integrations._text.document_counts.LineCounts.span`); else the slice is counted.
        """
        tokens = self._lines.span(text, start, end, self._kept) if self._lines is not None else None
        return self(text[start:end]) if tokens is None else tokens

    def head_end(self, text: str, tokens: int) -> tuple[int, int] | None:
        """:meth:`TiktokenCounter.head_end`, kept for short texts as the counts are."""
        if len(text) > MEMO_TEXT_CHARS:
            return super().head_end(text, tokens)
        key = (text, tokens)
        found: tuple[int, int] | None = self._memo.get(key)
        if found is None:
            found = super().head_end(text, tokens)
            if found is not None:
                self._memo.put(key, found, len(text))
        return found

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._memo = TextMemo()
        self._lines = None


def run_counter(count: TokenCounter) -> TokenCounter:
    """The counter for one run: a fresh :class:`MemoCounter` for a tiktoken counter, any other counter as it is."""
    if type(count) is TiktokenCounter:
        return MemoCounter(count.encoding_name)
    return count
