"""A tiktoken counter that remembers the counts of one run, so a text that repeats is encoded once.

Documents of one collection share much of their text: the manuals of one product family repeat whole
sections from model to model, web pages their navigation, contracts their clauses. A batch run
(:meth:`~chop_integrations.LumberChunker.chunk_many`) counts every unit, so a paragraph that comes back
in the next document is encoded again. :func:`run_counter` gives such a run its own counter that keeps
the count of each short text it saw (a unit, a sentence), bounded in size, and is dropped with the run:
nothing is kept from one call to the next. The counts are tiktoken's own, so the chunks are the same.
"""

from __future__ import annotations

from .tokens import TiktokenCounter, TokenCounter

__all__ = ["MEMO_BUDGET_CHARS", "MEMO_TEXT_CHARS", "MemoCounter", "run_counter"]

#: The longest text whose count is kept (a unit of a few hundred tokens; a longer text is rarely seen twice).
MEMO_TEXT_CHARS = 1 << 14
#: The most characters of kept texts; past it the memo starts again empty (memory stays bounded).
MEMO_BUDGET_CHARS = 1 << 22


class MemoCounter(TiktokenCounter):
    """A :class:`~chop_integrations._text.tokens.TiktokenCounter` that keeps the counts of the texts it saw.

    It is a tiktoken counter in every other way (its name, its equality, the searches it guides, the sums
    at line starts), so code that asks what counter it has sees the same answer.

    Args:
        encoding_name: A tiktoken encoding name.
    """

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        super().__init__(encoding_name)
        self._memo: dict[str, int] = {}
        self._held = 0  # characters of the kept texts

    def __call__(self, text: str) -> int:
        """The number of tokens in ``text`` (see :meth:`TiktokenCounter.__call__`), kept for short texts."""
        if len(text) > MEMO_TEXT_CHARS:
            return super().__call__(text)
        tokens = self._memo.get(text)
        if tokens is None:
            tokens = super().__call__(text)
            if self._held + len(text) > MEMO_BUDGET_CHARS:
                self._memo.clear()
                self._held = 0
            self._memo[text] = tokens
            self._held += len(text)
        return tokens

    def __setstate__(self, state: dict[str, object]) -> None:
        super().__setstate__(state)  # type: ignore[arg-type]
        self._memo, self._held = {}, 0


def run_counter(count: TokenCounter) -> TokenCounter:
    """The counter for one run: a fresh :class:`MemoCounter` for a tiktoken counter, any other counter as it is."""
    if type(count) is TiktokenCounter:
        return MemoCounter(count.encoding_name)
    return count
