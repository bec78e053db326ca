"""CHOPChunker: inheritance, fresh signatures, documents, prefixes, concurrency, policies, losslessness."""

from __future__ import annotations

import json

import pytest
from chop_fakes import (
    DOC,
    AsyncCountingLLM,
    StubContinuity,
    is_cnm_prompt,
    is_window_prompt,
    never_new,
    paragraphs,
    rule_answer,
)

from chop_integrations._chop.base_chunks import split_offsets
from chop_integrations._chop.chunker import CHOPChunker
from chop_integrations._chop.corpus import CorpusState
from chop_integrations._chop.excerpts import PromptBudget
from chop_integrations._errors import ConfigurationError, LLMAnswerError, LLMCallError
from chop_integrations._types import CNM, render_prefix
from chop_integrations.testing import ScriptedLLM

META = {"source": "manuals/X100.txt", "title": "X100 User Manual"}


def make(llm=None, offline=None, count=None, **options):
    options.setdefault("prefix", "fixed")  # most tests here check the fixed template; adaptive has its own
    return CHOPChunker(llm, chunker=paragraphs, token_counter=count, **(offline or {}), **options)


MODES = ["window", "pair", "separate"]


@pytest.mark.parametrize(("decisions", "calls"), [("window", 1), ("pair", 5), ("separate", 5)])
def test_true_inherits_the_previous_signature(offline, count, decisions, calls):
    llm = ScriptedLLM(default=lambda p: never_new(p).replace('"llm"', '"phone"'))
    chunks = make(llm, offline, count, decisions=decisions).chunk(DOC, metadata=META)
    assert len(chunks) == 5
    assert [c.continues_previous for c in chunks] == [None, True, True, True, True]
    # The caller's name for the document (META's file and title) fills the model slot, whatever the LLM says.
    assert all(c.cnm == CNM(category="phone", nouns=["Battery"], model="X100") for c in chunks)
    assert all(c.prefix == "X100: [phone | Battery | X100] " for c in chunks)
    assert len(llm.prompts) == calls


@pytest.mark.parametrize("decisions", MODES)
def test_false_extracts_a_fresh_signature(offline, count, decisions):
    chunker = make(AsyncCountingLLM(), offline, count, decisions=decisions)
    chunks = chunker.chunk(DOC, metadata=META)
    assert [c.continues_previous for c in chunks] == [None, True, False, True, True]
    assert [c.cnm.nouns for c in chunks] == [["Battery"], ["Battery"], ["Camera"], ["Camera"], ["Camera"]]
    assert chunks[2].cnm is not chunks[1].cnm
    assert chunks[3].cnm is chunks[2].cnm
    assert chunker.last_usage.fallbacks == 0


@pytest.mark.parametrize(("decisions", "calls"), [("window", 2), ("pair", 4), ("separate", 4)])
def test_a_new_document_starts_a_new_signature(offline, count, decisions, calls):
    llm = AsyncCountingLLM(answer=never_new)
    chunker = make(llm, offline, count, decisions=decisions)
    docs = ["Alpha text.\n\nMore alpha.", "Beta text.\n\nMore beta."]
    out = chunker.chunk_many(docs, metadatas=[{"source": "a.txt"}, {"source": "b.txt"}])
    assert [[c.continues_previous for c in d] for d in out] == [[None, True], [None, True]]
    assert out[0][0].cnm.nouns == ["Alpha"] and out[1][0].cnm.nouns == ["Beta"]
    assert out[1][1].cnm is out[1][0].cnm
    assert not any("Beta" in p and "alpha" in p for p in llm.prompts)
    assert chunker.last_usage.calls == calls and chunker.last_usage.documents == 2


def test_without_reset_the_first_chunk_of_a_document_is_judged(offline, count):
    llm = AsyncCountingLLM()
    chunker = make(llm, offline, count, new_document_resets=False, decisions="pair")
    out = chunker.chunk_many(["Alpha.\n\nMore.", "Beta.\n\nMore."], metadatas=[{"source": "a"}, {"source": "b"}])
    assert [[c.continues_previous for c in d] for d in out] == [[None, True], [True, True]]
    assert out[1][1].cnm.nouns == out[0][0].cnm.nouns  # the topic carries on...
    assert out[0][0].cnm.category == "llm" and out[1][1].cnm.category is None  # ...the document's own fields do not
    assert out[1][1].cnm is out[1][0].cnm
    assert any('A is from "a", B from "b"' in p for p in llm.prompts)
    window = make(AsyncCountingLLM(), count=count, new_document_resets=False)
    out = window.chunk_many(["Alpha.\n\nMore.", "Beta.\n\nMore."], metadatas=[{"source": "a"}, {"source": "b"}])
    assert [[c.continues_previous for c in d] for d in out] == [[None, True], [True, True]]
    assert window.last_usage.calls == 1


def test_prefix_goes_only_into_embed_text(offline, count):
    chunks = make(AsyncCountingLLM(), offline, count).chunk(DOC, metadata=META)
    assert "".join(c.text for c in chunks) == DOC
    for c in chunks:
        assert DOC[c.start : c.end] == c.text
        assert c.prefix and c.prefix not in c.text
        assert c.embed_text == c.prefix + c.text
        assert c.metadata["chop_prefix"] == c.prefix
        assert c.metadata["chop_category"] == "llm" and c.metadata["chop_model"] == "X100"
        assert c.metadata["chop_nouns"] == ", ".join(c.cnm.nouns)
        assert c.metadata["chop_continues"] is bool(c.continues_previous)  # False on a first chunk
        assert c.metadata["title"] == META["title"]


@pytest.mark.parametrize(("decisions", "calls"), [("window", 6), ("pair", 12)])
async def test_first_round_calls_really_run_concurrently(offline, count, decisions, calls):
    text = "\n\n".join(f"Paragraph {i} text." for i in range(12))
    llm = AsyncCountingLLM()
    budget = PromptBudget(window_chunks=2)
    chunker = make(llm, offline, count, max_concurrency=4, decisions=decisions, budget=budget)
    chunks = await chunker.achunk(text)
    assert len(chunks) == 12
    assert llm.max_in_flight == 4  # bounded, and more than one at a time
    assert chunker.last_usage.calls == calls


@pytest.mark.parametrize(("decisions", "expected"), [("window", 1), ("pair", 5), ("separate", 6)])
def test_combined_modes_save_the_cnm_call_of_each_false_pair(offline, count, decisions, expected):
    llm = AsyncCountingLLM()
    chunker = make(llm, offline, count, decisions=decisions)
    chunks = chunker.chunk(DOC, metadata=META)
    assert chunker.last_usage.calls == expected == len(llm.prompts)
    assert [c.cnm.nouns for c in chunks] == [["Battery"], ["Battery"], ["Camera"], ["Camera"], ["Camera"]]


def test_a_false_without_cnm_in_combined_modes_asks_for_it(offline, count):
    llm = AsyncCountingLLM(answer=lambda p: rule_answer(p) if is_cnm_prompt(p) else "FALSE")
    chunker = make(llm, offline, count, decisions="pair")
    chunks = chunker.chunk("One.\n\nTwo.", metadata=META)
    assert [c.cnm.nouns for c in chunks] == [["One"], ["Two"]]
    assert chunker.last_usage.calls == 3
    window = AsyncCountingLLM(
        answer=lambda p: '{"passages": [false, false]}' if is_window_prompt(p) else rule_answer(p)
    )
    chunker = make(window, offline, count)
    chunks = chunker.chunk("One.\n\nTwo.", metadata=META)
    assert [c.cnm.nouns for c in chunks] == [["One"], ["Two"]]
    assert [c.continues_previous for c in chunks] == [None, False]
    assert chunker.last_usage.calls == 3


def test_a_window_answer_of_the_wrong_length_gets_a_corrective_retry(offline, count):
    llm = ScriptedLLM(['{"passages": [true]}', rule_answer], default=rule_answer)
    chunker = make(llm, offline, count)
    chunks = chunker.chunk(DOC)
    assert [c.continues_previous for c in chunks] == [None, True, False, True, True]
    assert "expected 5 answers" in llm.prompts[1]
    assert (chunker.last_usage.calls, chunker.last_usage.retries, chunker.last_usage.fallbacks) == (2, 1, 0)


@pytest.mark.parametrize(("decisions", "position"), [("window", 0), ("pair", 6), ("separate", 6)])
def test_raise_policy_names_document_and_position(offline, count, decisions, position):
    llm = ScriptedLLM(default=lambda p: rule_answer(p) if is_cnm_prompt(p) else "maybe?")
    chunker = make(llm, offline, count, on_llm_error="raise", decisions=decisions)
    with pytest.raises(LLMAnswerError) as info:
        chunker.chunk("One.\n\nTwo.", metadata=META)
    assert info.value.document == META["source"] and info.value.position == position
    assert info.value.task == "continuity"


def test_raise_policy_on_a_failing_call(offline, count):
    llm = ScriptedLLM(default=PermissionError("no key"))
    chunker = make(llm, offline, count, on_llm_error="raise", decisions="separate")
    with pytest.raises(LLMCallError) as info:
        chunker.chunk("Only one chunk.", metadata={"source": "doc-7"})
    assert info.value.document == "doc-7" and info.value.position == 0 and info.value.task == "cnm"


@pytest.mark.parametrize(("decisions", "decided"), [("window", 1), ("pair", 5), ("separate", 6)])
def test_fallback_is_counted_and_uses_the_offline_deciders(offline, count, caplog, decisions, decided):
    chunker = make(ScriptedLLM(default="not json at all"), offline, count, decisions=decisions)
    chunks = chunker.chunk(DOC, metadata={**META, "model": "X100"})
    usage = chunker.last_usage
    assert (usage.fallbacks, usage.calls, usage.retries) == (decided, 2 * decided, decided)
    assert [c.continues_previous for c in chunks] == [None, True, False, True, True]
    assert all(c.cnm.category == "offline" and c.cnm.model == "X100" for c in chunks)
    assert sum("offline decider" in r.getMessage() for r in caplog.records) == decided


def test_offline_path_makes_no_calls_and_passes_the_last_signature(offline, count):
    chunker = make(None, offline, count)
    chunks = chunker.chunk(DOC, metadata=META)
    assert [c.continues_previous for c in chunks] == [None, True, False, True, True]
    assert chunker.last_usage.calls == 0 and chunker.last_usage.chunks == 5
    extractor = offline["offline_extractor"]
    assert extractor.previous == [None, CNM(category="offline", nouns=["Battery"])]  # the decider's own, raw
    assert chunks[0].cnm == CNM(category="offline", nouns=["Battery"], model="X100")


@pytest.mark.parametrize("decisions", MODES)
def test_deterministic_for_a_given_llm(offline, count, decisions):
    def run():
        chunker = make(AsyncCountingLLM(), offline, count, max_concurrency=3, decisions=decisions)
        return [c.to_dict() for c in chunker.chunk(DOC)]

    assert run() == run()


def test_a_splitter_that_drops_whitespace_still_gives_lossless_chunks(offline, count):
    text = "  \n\nFirst para.\n\n\n  Second para.  \n\nThird.\n\n\n"
    chunks = make(None, offline, count).chunk(text)
    assert "".join(c.text for c in chunks) == text
    second, third = text.index("Second"), text.index("Third")
    assert [(c.start, c.end) for c in chunks] == [(0, second), (second, third), (third, len(text))]


def test_split_offsets_handles_overlap_and_changed_whitespace():
    text = "aaa bbb ccc ddd eee"
    assert split_offsets(text, ["aaa bbb ccc", "ccc ddd eee"]) == [(0, 8), (8, 19)]
    assert split_offsets("one  two\nthree four", ["one two", "three four"]) == [(0, 9), (9, 19)]
    assert split_offsets("", []) == [] and split_offsets("   ", []) == [(0, 3)]
    with pytest.raises(ConfigurationError, match="not in the document"):
        split_offsets("abc", ["xyz"])


def test_annotate_groups_by_source_and_keeps_offsets(offline, count):
    texts = ["Alpha one.", "Alpha two.", "# Beta one.", "Gamma one."]
    metas = [
        {"source": "a", "start_index": 0},
        {"source": "a", "start_index": 11},
        {"source": "b"},
        {"source": "c", "model": "G7"},
    ]
    llm = AsyncCountingLLM(answer=never_new)
    chunker = make(llm, offline, count)
    chunks = chunker.annotate(texts, metadatas=metas)
    assert [c.continues_previous for c in chunks] == [None, True, None, None]
    assert [(c.start, c.end) for c in chunks] == [(0, 10), (11, 21), (0, 11), (0, 10)]
    assert [c.cnm.nouns for c in chunks] == [["Alpha"], ["Alpha"], ["Beta"], ["Gamma"]]
    assert chunker.last_usage.documents == 3 and chunker.last_usage.calls == 3
    assert any('model "G7"' in p for p in llm.prompts)


def test_offline_annotate(offline, count):
    chunks = make(None, offline, count).annotate(["x", "# y"], metadatas=[{"source": "s"}, {"source": "s"}])
    assert [c.continues_previous for c in chunks] == [None, False]


def test_estimate_matches_a_run_whose_answers_agree_with_the_offline_decider(offline, count):
    for decisions in MODES:
        chunker = make(AsyncCountingLLM(), offline, count, decisions=decisions)
        estimate = chunker.estimate([DOC, "Other.\n\n# Part"], [META, {"source": "o"}])
        chunker.chunk_many([DOC, "Other.\n\n# Part"], metadatas=[META, {"source": "o"}])
        actual = chunker.last_usage
        assert estimate.estimated and not actual.estimated
        assert estimate.calls == actual.calls
        if decisions != "separate":
            assert estimate.prompt_tokens == actual.prompt_tokens
        else:  # the CNM prompts of FALSE pairs show the document's signature, which only the run knows
            assert abs(estimate.prompt_tokens - actual.prompt_tokens) <= 0.1 * actual.prompt_tokens
        assert (estimate.documents, estimate.chunks, estimate.document_tokens) == (2, 7, actual.document_tokens)


def test_cache_makes_a_repeated_run_free(offline, count):
    from chop_integrations._llm.cache import InMemoryCache

    cache = InMemoryCache()
    first = make(AsyncCountingLLM(), offline, count, cache=cache)
    prefixes = [c.prefix for c in first.chunk(DOC)]
    second = make(AsyncCountingLLM(), offline, count, cache=cache)
    assert [c.prefix for c in second.chunk(DOC)] == prefixes
    assert second.last_usage.calls == 0 and second.last_usage.cache_hits == first.last_usage.calls


def test_sync_entry_points_work_inside_a_running_loop(offline, count):
    async def inside() -> int:
        return len(make(AsyncCountingLLM(), offline, count).chunk(DOC))

    import asyncio

    assert asyncio.run(inside()) == 5


def test_render_prefix_strips_template_delimiters_from_values():
    cnm = CNM(category="cam(era)", nouns=["a <b>"], model='X "1"')
    out = render_prefix(cnm, "({category}) <{nouns}> {model}: ")
    assert out == '(cam era) <a b> X "1: '
    assert out.count("(") == 1 and out.count(")") == 1 and out.count("<") == 1 and out.count(">") == 1
    assert render_prefix(CNM(), "[{category}] ") == "" and render_prefix(None) == ""


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"prefix": "{brand} "}, "may use only"),
        ({"prefix": "{category"}, "not a valid"),
        ({"on_llm_error": "ignore"}, "on_llm_error"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"chunker": 42}, "chunker must be"),
        ({"max_tokens": 100, "chunker": paragraphs}, "max_tokens applies only"),
        ({"timeout": -1}, "timeout"),
        ({"decisions": "batch"}, "decisions must be"),
    ],
)
def test_bad_options_fail_with_a_clear_message(options, match):
    options = {"chunker": paragraphs, **options}
    if "max_tokens" not in options:
        options.setdefault("offline_continuity", StubContinuity())
    with pytest.raises(ConfigurationError, match=match):
        CHOPChunker(None, **options)


def test_non_string_answers_never_crash(offline, count):
    llm = ScriptedLLM(default=lambda p: json.dumps({"continues": "perhaps", "cnm": 3}))
    chunks = make(llm, offline, count).chunk("A.\n\nB.")
    assert all(c.cnm is not None for c in chunks)


def test_default_base_chunker_places_boundaries_offline():
    from chop_integrations._lumber.chunker import LumberChunker

    text = "\n\n".join(f"Section {i}\nSome text about topic {i} that goes on for a while." for i in range(30))
    llm = ScriptedLLM(default=lambda p: rule_answer(p) if is_window_prompt(p) or is_cnm_prompt(p) else "garbage")
    chunker = CHOPChunker(llm, max_tokens=60)
    assert isinstance(chunker.chunker, LumberChunker) and chunker.chunker.llm is None
    chunks = chunker.chunk(text, metadata={"source": "s.txt"})
    assert "".join(c.text for c in chunks) == text
    assert chunker.chunker.last_usage.calls == 0 and chunker.last_usage.calls > 0
    assert chunker.last_usage.fallbacks == 0  # only CHOP's prompts were sent, and they got valid answers


def test_llm_boundaries_share_the_llm_and_its_usage_is_merged():
    from chop_integrations._lumber.chunker import LumberChunker

    text = "\n\n".join(f"Section {i}\nSome text about topic {i} that goes on for a while." for i in range(30))
    llm = ScriptedLLM(default=lambda p: rule_answer(p) if is_window_prompt(p) or is_cnm_prompt(p) else "garbage")
    chunker = CHOPChunker(llm, max_tokens=60, llm_boundaries=True)
    assert isinstance(chunker.chunker, LumberChunker) and chunker.chunker.llm is chunker.llm
    names = [{"source": "Acme Kettle.txt"}, {"source": "Zenith Toaster.txt"}]  # named: the section chunker runs
    per_doc = chunker.chunk_many([text, text], metadatas=names)
    chunks = [c for doc in per_doc for c in doc]
    assert all("".join(c.text for c in doc) == text for doc in per_doc) and all(c.token_count <= 60 for c in chunks)
    lumber = chunker.chunker.last_usage
    usage = chunker.last_usage
    assert lumber.calls > 0 and usage.calls > lumber.calls
    assert usage.fallbacks == lumber.fallbacks > 0  # the lumber prompts got garbage; CHOP's got valid answers
    assert usage.documents == 2 and usage.chunks == len(chunks)


def _starts(chunks):
    return [c.start for c in chunks]


def test_builtin_chunker_keeps_sections_when_the_prefix_carries_the_documents_name():
    from chop_integrations._lumber.chunker import LumberChunker

    text = "\n\n".join(f"Step {i}\nTurn the dial {i} notches and wait." for i in range(40))
    names = [{"source": "Acme Kettle.txt"}, {"source": "Zenith Toaster.txt"}]
    chop = CHOPChunker().chunk_many([text, text], metadatas=names)
    sections = LumberChunker(target_tokens=0, min_tokens=0).chunk(text)
    joined = LumberChunker().chunk(text)
    assert len(sections) > len(joined)  # the text is one where joining makes a difference
    assert [_starts(doc) for doc in chop] == [_starts(sections)] * 2
    assert all(c.prefix.startswith(("Acme Kettle", "Zenith Toaster")) for doc in chop for c in doc)


def test_builtin_chunker_uses_lumberchunkers_sizes_when_no_name_is_printed():
    from chop_integrations._lumber.chunker import LumberChunker

    text = "\n\n".join(f"Step {i}\nTurn the dial {i} notches and wait." for i in range(40))
    joined = _starts(LumberChunker().chunk(text))
    sections = _starts(LumberChunker(target_tokens=0, min_tokens=0).chunk(text))
    chunker = CHOPChunker(corpus=CorpusState())  # one corpus across the calls
    assert _starts(chunker.chunk(text)) == joined  # no name at all
    hashed = [{"source": "3f9a0c17d2e4b6a8.txt"}, {"source": "9b1e7d0c44aa2f63.txt"}]
    assert [_starts(d) for d in CHOPChunker().chunk_many([text, text], metadatas=hashed)] == [joined, joined]
    # a named document's chunks carry its name and are sections, alone as in a batch, with or without a corpus
    alone = CHOPChunker().chunk(text, metadata={"source": "Acme Kettle.txt"})
    assert _starts(alone) == _starts(chunker.chunk(text, metadata={"source": "Acme Kettle.txt"})) == sections
    assert alone[0].prefix.startswith("Acme Kettle")


def test_fixed_prefix_keeps_sections_for_every_document():
    from chop_integrations._lumber.chunker import LumberChunker

    text = "\n\n".join(f"Step {i}\nTurn the dial {i} notches and wait." for i in range(40))
    assert _starts(CHOPChunker(prefix="fixed").chunk(text)) == _starts(
        LumberChunker(target_tokens=0, min_tokens=0).chunk(text)
    )


def test_offline_default_signs_every_chunk_with_the_documents_model():
    text = "Acme RX-200 User Manual\n\nGetting started\n\nCharge the battery.\n\nCamera\n\nTake a picture."
    chunks = CHOPChunker(prefix="fixed").chunk(text, metadata={"source": "Acme_RX-200.txt"})
    assert "".join(c.text for c in chunks) == text
    assert all(c.cnm is not None and c.cnm.model and "RX-200" in c.cnm.model for c in chunks)
    assert all(c.prefix.startswith(c.cnm.model + ": [") and c.embed_text.endswith(c.text) for c in chunks)
