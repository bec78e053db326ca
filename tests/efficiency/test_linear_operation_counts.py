"""Linear time, checked by operation counts rather than the clock.

The hot scanning functions of segmentation are wrapped with a meter that adds up the characters each
call covers: ``last_visible`` (how far it read back), the splitters of an over-long block, the token
counts of spans, the blocks cut into units and the texts the stream segments. A linear engine covers a
document eight times as large (every run of white space or punctuation eight times as long, eight times
the words) with at most about eight times the characters; one that scans a run again at every line of
it covers sixty-four times as many.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._text import pieces, segmentation
from chop_integrations._text import stream as text_stream

#: Every white-space character a run is made of, and the punctuation runs.
WHITESPACE = " \t\r\n\f\v\u00a0\u3000"
PUNCTUATION = ".!?,;:\u2026\u3002-|#*`~/"
WORDS = ("pump", "valve", "Filter", "the", "\u6c34\u6cf5", "r\u00e9sum\u00e9", "e.g.", "3,5", "http://x.org/a")
#: How much larger the second document is, and how much more work it may take (a little slack for rounding).
SCALE, ALLOWED = 8, 8.5
#: The stream looks for a cut again once the buffer grew by a quarter (geometric, so linear in all): a document
#: eight times as large may take one look more, over a buffer a quarter larger.
STREAM_ALLOWED = ALLOWED * 1.25
METHODS = ("lumber", "chop", "stream-lumber", "stream-chop")


class Meter:
    """Counts the characters the hot scanning functions cover, while :meth:`installed` is active."""

    def __init__(self) -> None:
        self.chars = 0

    def spans(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap ``function(text, start, end, ...)``: it covers ``end - start`` characters."""

        @functools.wraps(function)
        def metered(text: str, start: int, end: int, *args: Any, **kwargs: Any) -> Any:
            self.chars += max(0, end - start)
            return function(text, start, end, *args, **kwargs)

        return metered

    def whole(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap ``function(text, ...)``: it covers the whole text."""

        @functools.wraps(function)
        def metered(text: str, *args: Any, **kwargs: Any) -> Any:
            self.chars += len(text)
            return function(text, *args, **kwargs)

        return metered

    def back(self, function: Callable[[str, int], int]) -> Callable[[str, int], int]:
        """Wrap ``last_visible(text, pos)``: it reads back from ``pos`` to what it returns."""

        @functools.wraps(function)
        def metered(text: str, pos: int) -> int:
            found = function(text, pos)
            self.chars += pos - found
            return found

        return metered

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Put the meter around every hot function where its callers look it up."""
        monkeypatch.setattr(pieces, "_last_visible", self.back(pieces._last_visible))
        monkeypatch.setattr(segmentation, "last_visible", self.back(segmentation.last_visible))
        monkeypatch.setattr(pieces, "fitting_count", self.spans(pieces.fitting_count))
        monkeypatch.setattr(pieces, "span_count", self.spans(pieces.span_count))
        monkeypatch.setattr(segmentation, "bounded_units", self.spans(segmentation.bounded_units))
        for name in ("_PROSE", "_BLOCK"):
            levels = [(self.spans(split), strength) for split, strength in getattr(pieces, name)]
            monkeypatch.setattr(pieces, name, levels)
        monkeypatch.setattr(text_stream, "units_of", self.whole(text_stream.units_of))
        monkeypatch.setattr(text_stream, "paragraph_gaps", self.whole(text_stream.paragraph_gaps))


def _pieces(text: str, size: int = 997) -> Iterator[str]:
    return (text[i : i + size] for i in range(0, len(text), size))


def run(method: str, text: str, counter: str | None = None) -> list[Any]:
    """Chunks of ``text`` by one of :data:`METHODS` (small chunks, so every size is many of them)."""
    options = {"max_tokens": 24, "token_counter": counter}
    engine: Any = LumberChunker(**options) if method.endswith("lumber") else CHOPChunker(**options)
    if method.startswith("stream"):
        return list(engine.chunk_stream(_pieces(text)))
    return list(engine.chunk(text))


def allowed(method: str) -> float:
    """How many times the work of a document a document :data:`SCALE` times as large may take."""
    return STREAM_ALLOWED if method.startswith("stream") else ALLOWED


def work(monkeypatch: pytest.MonkeyPatch, method: str, text: str, counter: str | None = None) -> int:
    """Characters the hot functions covered while ``method`` chunked ``text`` (``counter``: the token counter)."""
    with monkeypatch.context() as patch:
        meter = Meter()
        meter.install(patch)
        chunks = run(method, text, counter)
    assert "".join(c.text for c in chunks) == text
    return meter.chars


@pytest.mark.parametrize("method", METHODS)
def test_lines_of_white_space_alone_cost_linear_work(monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    small, large = "\t\n" * 2_000, "\t\n" * (2_000 * SCALE)
    assert work(monkeypatch, method, large) <= allowed(method) * work(monkeypatch, method, small)


@pytest.mark.parametrize("method", METHODS)
def test_a_run_of_white_space_between_ideographs_is_read_back_once(
    monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    def document(n: int) -> str:
        return "\u6c34\u6cf5" + "\t\n" * n + "\u6c34\u6cf5\u6c34\u6cf5。" + " \n" * n + "pump"

    large, small = document(2_000 * SCALE), document(2_000)
    assert work(monkeypatch, method, large) <= allowed(method) * work(monkeypatch, method, small)


#: One piece of a generated document: ("space", characters, length), ("mark", character, length), ("words", n).
segment = st.one_of(
    st.tuples(st.just("space"), st.sampled_from([*WHITESPACE, *(c + "\n" for c in WHITESPACE)]), st.integers(200, 600)),
    st.tuples(st.just("mark"), st.sampled_from(PUNCTUATION), st.integers(200, 600)),
    st.tuples(st.just("words"), st.integers(40, 120), st.integers(0, 2**16)),
)


def build(segments: list[tuple[Any, ...]], scale: int) -> str:
    """The document of ``segments`` with every run and every stretch of words ``scale`` times as long."""
    out: list[str] = []
    for kind, what, size in segments:
        if kind == "words":
            out.append(" ".join(WORDS[(size + i) % len(WORDS)] for i in range(what * scale)) + " ")
        else:
            out.append(what * (size * scale))
    return "".join(out)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments=st.lists(segment, min_size=2, max_size=6), method=st.sampled_from(METHODS))
def test_work_grows_linearly_over_runs_of_every_white_space_and_punctuation(
    monkeypatch: pytest.MonkeyPatch, segments: list[tuple[Any, ...]], method: str
) -> None:
    # one token per character: every run is over the limit at both sizes, so both are cut the same deep
    small = work(monkeypatch, method, build(segments, 1), "chars")
    large = work(monkeypatch, method, build(segments, SCALE), "chars")
    assert large <= allowed(method) * small + 64 * SCALE
