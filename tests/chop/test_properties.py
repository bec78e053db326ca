"""Invariants whatever the LLM answers: lossless chunks, one-line prefixes with balanced delimiters."""

from __future__ import annotations

import json
import re

from chop_fakes import paragraphs
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._chop.chunker import CHOPChunker
from chop_integrations.testing import ScriptedLLM

# The fixed template, its empty fields dropped with their separators: "model: [category | nouns | model] ".
FIXED = re.compile(r"^(?:[^\[\]|:]+: )?\[[^\[\]|\s][^\[\]|]*(?: \| [^\[\]|\s][^\[\]|]*)*\] $|^[^\[\]|:]+: $")
# The adaptive prefix has the same shape, with fewer fields.
ADAPTIVE = FIXED
field = st.one_of(st.none(), st.text(max_size=40), st.integers(), st.lists(st.text(max_size=10), max_size=3))
cnm = st.fixed_dictionaries({"category": field, "nouns": field, "model": field})
answer = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["TRUE", "FALSE", "true", "{}", "[]", "null"]),
    cnm.map(json.dumps),
    st.builds(lambda flag, sig: json.dumps({"continues": flag, "cnm": sig}), st.booleans(), cnm),
    st.lists(st.one_of(st.booleans(), cnm), max_size=6).map(lambda items: json.dumps({"passages": items})),
)
paragraph = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
document = st.lists(paragraph, max_size=6).map("\n\n".join)


@given(
    texts=st.lists(document, min_size=1, max_size=3),
    answers=st.lists(answer, min_size=1, max_size=12),
    decisions=st.sampled_from(["window", "pair", "separate"]),
    resets=st.booleans(),
    prefix=st.sampled_from(["adaptive", "fixed"]),
)
def test_chunks_are_lossless_and_prefixes_safe_whatever_the_llm_answers(texts, answers, decisions, resets, prefix):
    llm = ScriptedLLM(answers, default=lambda prompt: answers[len(prompt) % len(answers)])
    chunker = CHOPChunker(
        llm,
        chunker=paragraphs,
        decisions=decisions,
        new_document_resets=resets,
        prefix=prefix,
        token_counter=lambda text: len(text.split()) + 1,
    )
    out = chunker.chunk_many(texts, metadatas=[{"source": f"d{i}"} for i in range(len(texts))])
    for text, chunks in zip(texts, out, strict=True):
        assert "".join(c.text for c in chunks) == text
        for c in chunks:
            assert text[c.start : c.end] == c.text
            assert c.embed_text == c.prefix + c.text
            assert c.prefix == "" or (FIXED if prefix == "fixed" else ADAPTIVE).match(c.prefix), c.prefix
            assert not re.search(r"\[ *\||\| *\]|\| *\||\[ *\]|^[ :|>]", c.prefix), c.prefix  # no empty field
            assert not any(ch.isspace() and ch != " " for ch in c.prefix)
    # Each chunk needs at most one continuity and one CNM decision, each at most two calls (one corrective retry).
    assert chunker.last_usage.calls <= 2 * 2 * sum(len(c) for c in out)
