"""Long runs of white space are counted in pieces under LONG_RUN characters: linear, not n log n.

tiktoken's time per character grows with the piece it encodes, and a run of white space is one piece; a
10 MB run cost 1.4 times the time per MB of a 1 MB one. Checked by the sizes counted at once, not the clock.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chop_integrations._text import long_runs as runs_module
from chop_integrations._text.long_runs import LONG_RUN, count_in_halves, long_runs
from chop_integrations._text.tokens import TiktokenCounter, get_encoding

WHITESPACE = " \t\r\n\x0b\x0c\xa0\u3000\x1c\u2028"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.tuples(st.sampled_from([*WHITESPACE, "x", "\u4e2d"]), st.integers(1, 300)), max_size=8))
def test_the_long_runs_are_every_run_of_white_space_that_long(
    parts: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(runs_module, "LONG_RUN", 64)
        text = "".join(char * n for char, n in parts)
        expected = [(m.start(), m.end()) for m in re.finditer(r"\s+", text) if m.end() - m.start() >= 64]
        assert runs_module.long_runs(text) == expected


def test_a_long_run_is_counted_in_pieces_each_character_once() -> None:
    seen: list[int] = []

    def count(piece: str) -> int:
        seen.append(len(piece))
        return len(piece)

    for size, run in ((LONG_RUN, "\u00a0"), (3 * LONG_RUN, " "), (10 * LONG_RUN, "\t\n")):
        text = "lead. " + run * (size // len(run)) + " tail."
        seen.clear()
        assert count_in_halves(count, text) == len(text)
        assert max(seen) <= LONG_RUN and sum(seen) == len(text)  # no piece over the bound, nothing counted twice


def test_the_counter_never_encodes_a_long_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TiktokenCounter()
    sizes: list[int] = []
    ids, core = counter._ids, counter._encoding._core_bpe

    def spy_ids(text: str) -> list[int]:
        sizes.append(len(text))
        return ids(text)

    class SpyCore:
        def encode(self, text: str, allowed: object) -> list[int]:
            sizes.append(len(text))
            return core.encode(text, allowed)

    monkeypatch.setattr(counter, "_ids", spy_ids)
    monkeypatch.setattr(counter._encoding, "_core_bpe", SpyCore())
    text = "lead. " + "\u00a0" * (2 * LONG_RUN + 1000) + " tail."
    total = counter(text)
    assert max(sizes) <= LONG_RUN
    assert total > 0


def test_a_text_without_a_long_run_is_counted_as_one_encoding() -> None:
    text = ("The pump moves water.\n\n" + " " * 1000 + "\u00a0" * 1000 + "x ") * 200
    assert long_runs(text) == []
    assert TiktokenCounter()(text) == len(get_encoding().encode(text, disallowed_special=()))
