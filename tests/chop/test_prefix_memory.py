"""What the adaptive prefix knows of the corpus: nothing but the call's own documents, unless told."""

from __future__ import annotations

import pytest

from chop_integrations import CHOPChunker, ConfigurationError, CorpusState
from chop_integrations._types import CNM

TEXT = "\n\n".join(f"Step {i}\nTurn the dial {i} notches and wait." for i in range(30))
NAMES = [{"source": f"{name}.txt"} for name in ("Acme Kettle", "Zenith Toaster", "Orbit Blender")]


def _spans(chunks: list[object]) -> list[tuple[int, int, str]]:
    return [(c.start, c.end, c.prefix) for c in chunks]  # type: ignore[attr-defined]


def test_a_chunker_remembers_nothing_across_its_own_calls() -> None:
    chunker = CHOPChunker()
    alone = _spans(chunker.chunk(TEXT, metadata=NAMES[1]))
    chunker.chunk_many([TEXT] * 3, metadatas=NAMES)  # three names in this call
    assert _spans(chunker.chunk(TEXT, metadata=NAMES[1])) == alone
    assert alone[0][2].startswith("Zenith Toaster")  # one name in the call: printed all the same
    assert chunker.corpus is None


def test_observing_the_corpus_first_makes_one_at_a_time_equal_to_the_batch() -> None:
    batch = CHOPChunker().chunk_many([TEXT] * 3, metadatas=NAMES)
    chunker = CHOPChunker()
    chunker.observe_corpus([TEXT] * 3, metadatas=NAMES)
    assert chunker.last_usage is None or chunker.last_usage.calls == 0
    assert chunker.corpus == CorpusState(model=["acme kettle", "orbit blender", "zenith toaster"])
    one_by_one = [chunker.chunk(TEXT, metadata=meta) for meta in NAMES]
    assert [_spans(doc) for doc in one_by_one] == [_spans(doc) for doc in batch]
    unobserved = CHOPChunker().chunk(TEXT, metadata=NAMES[0])
    assert [c.prefix for c in unobserved] == [c.prefix for c in batch[0]]  # names need no observing


def test_a_fixed_prefix_leaves_the_state_alone() -> None:
    state = CorpusState()
    CHOPChunker(prefix="fixed", corpus=state).chunk_many([TEXT] * 3, metadatas=NAMES)
    assert state == CorpusState()


def test_a_state_keeps_a_bounded_number_of_case_folded_values() -> None:
    state = CorpusState(model=["A", "a", ""], category=["Kettle"])
    assert state.observe([CNM(model=f"m{i}") for i in range(500)] + [None]) == {"model": 64, "category": 1}
    assert {"a", "m0"} <= state.names() and state.to_dict()["category"] == ["kettle"]


def test_the_corpus_option_takes_a_state_only() -> None:
    with pytest.raises(ConfigurationError, match="CorpusState"):
        CHOPChunker(corpus={"model": ["a", "b"]})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prefix", "hint"),
    [("adaptve", " (did you mean 'adaptive'?)"), ("Fixd", " (did you mean 'fixed'?)"), ("manual: ", ""), ("", "")],
)
def test_a_str_without_a_placeholder_is_refused_naming_the_choices(prefix: str, hint: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        CHOPChunker(prefix=prefix)
    assert str(caught.value) == (
        "prefix must be 'adaptive', 'fixed' or a template with at least one of {category}, {nouns}, {model}; "
        f"got {prefix!r}{hint}"
    )


def test_an_unknown_placeholder_is_refused() -> None:
    with pytest.raises(ConfigurationError, match=r"only \{category\}, \{nouns\} and \{model\}; got \['modle'\]"):
        CHOPChunker(prefix="{modle}: ")


@pytest.mark.parametrize("prefix", ["[{nouns}] ", "{model}: ", "{{literal}} {category} "])
def test_a_template_with_a_placeholder_is_taken_as_it_is(prefix: str) -> None:
    assert CHOPChunker(prefix=prefix).settings.policy.template == prefix
