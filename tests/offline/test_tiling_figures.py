"""The lexical tiling's figures: words, cosine, mean and spread, the same as their plain definitions give."""

from __future__ import annotations

import itertools
import math
import pickle
import re
import statistics
import sys
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._deciders import DocContext, Window
from chop_integrations._offline import OfflineTopicShift
from chop_integrations._offline._stats import mean_and_pstdev
from chop_integrations._offline._text import STOPWORDS, cosine, words
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter

_PLAIN_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['\u2019-](?=[^\W_]))*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _plain_words(text: str) -> list[str]:
    """Words as the tiling's first version found them: the lookahead pattern, each token's CJK characters read alone."""
    if not _CJK.search(text):
        return [t for t in _PLAIN_WORD.findall(text.lower()) if len(t) > 1 and t not in STOPWORDS]
    out: list[str] = []
    for match in _PLAIN_WORD.finditer(text):
        token = match.group().lower()
        if _CJK.search(token):
            chars = [c for c in token if _CJK.match(c)]
            out.extend(a + b for a, b in itertools.pairwise(chars)) if len(chars) > 1 else out.extend(chars)
        elif len(token) > 1 and token not in STOPWORDS:
            out.append(token)
    return out


def _plain_cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


_PARTS = ["wi", "Fi", "9", "_", "-", "'", "\u2019", "--", " ", "\n", "é", "İ", "the", "数据", "库", "カナ", "x", "。"]


@given(st.lists(st.sampled_from(_PARTS), max_size=30))
def test_words_are_those_of_the_lookahead_pattern(parts: list[str]) -> None:
    text = "".join(parts)
    assert words(text) == _plain_words(text)  # (with CJK and without: the two ways words reads a text)
    latin = "".join(part for part in parts if not _CJK.search(part))
    assert words(latin) == _plain_words(latin)


@given(
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(1, 9)),
    st.dictionaries(st.sampled_from("abcdxyz"), st.integers(1, 9)),
)
def test_cosine_is_the_plain_cosine(a: dict[str, int], b: dict[str, int]) -> None:
    assert cosine(Counter(a), Counter(b)) == _plain_cosine(Counter(a), Counter(b))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="statistics rounds pstdev correctly from Python 3.11 on")
@given(
    st.lists(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150), min_size=1, max_size=40
    )
)
def test_mean_and_pstdev_are_those_of_statistics(values: list[float]) -> None:
    assert mean_and_pstdev(values) == (statistics.mean(values), statistics.pstdev(values))


def test_mean_and_pstdev_of_depth_like_scores() -> None:
    values = [0.0, 0.1, 0.30000000000000004, 1 / 3, 0.7, 0.0, 2.0]
    mean, spread = mean_and_pstdev(values)
    assert mean == pytest.approx(sum(values) / len(values))
    assert spread == pytest.approx(math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)))


_STORY = (
    "The ship left the harbour at dawn. Sailors hauled ropes and the captain watched the sails fill. "
    "Gulls followed the ship past the lighthouse.\n\n"
    * 4
    + "In the valley the farmers brought in the wheat. Barns filled with grain and the mill turned all day. "
    "Children carried bread to the fields.\n\n" * 4
)


def test_the_decider_cuts_the_same_with_its_kept_words_and_pickles_without_them() -> None:
    units = split_units(_STORY, max_tokens=40, token_counter=default_counter())
    window = Window(units=units, first_index=0, doc=DocContext(doc_id="d", text=_STORY, metadata={}), is_last=True)
    decider = OfflineTopicShift(min_chunk_tokens=20)
    first = decider.choose(window)
    assert first and decider.choose(window) == first  # the second time from the kept words
    restored = pickle.loads(pickle.dumps(decider))
    assert restored._bags == {} and restored.choose(window) == first
