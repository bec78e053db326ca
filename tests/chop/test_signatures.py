"""Signatures that are right or empty, and the adaptive prefix (issue 11).

The model slot holds the document's name or nothing: never an id, a hash, a number or a
per-chunk code, never another document's name. Empty fields render no separators. The
adaptive prefix records its choice and remembers the corpus across calls.
"""

from __future__ import annotations

import json
import pickle
import re
import string

import pytest
from chop_fakes import paragraphs
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chop_integrations._checks import doc_context
from chop_integrations._chop.chunker import CHOPChunker
from chop_integrations._chop.corpus import CorpusState
from chop_integrations._chop.prefix import PrefixPolicy
from chop_integrations._deciders import DocContext
from chop_integrations._offline import Lexicon
from chop_integrations._offline.signature import caller_identity, cover_identity, plausible_name
from chop_integrations._text.headings import Headings, heading_title, markdown_within, section_title
from chop_integrations._types import CNM, DEFAULT_PREFIX_TEMPLATE, clean_cnm, render_prefix
from chop_integrations.testing import ScriptedLLM

hashes = st.text("0123456789abcdef", min_size=8, max_size=40).filter(lambda h: any(c.isdigit() for c in h))
numbers = st.integers(min_value=0, max_value=10**12).map(str)
generic_ids = st.builds(
    lambda word, n, sep: f"{word}{sep}{n}",
    st.sampled_from(["doc", "document", "file", "page", "chunk", "id", "item", "scan", "untitled"]),
    st.integers(min_value=0, max_value=9999),
    st.sampled_from(["", "_", "-", " "]),
)
codes = st.builds(
    lambda letters, digits: letters + digits,
    st.text(string.ascii_uppercase, min_size=1, max_size=3),
    st.integers(min_value=1, max_value=9999).map(str),
)
phones = st.builds(
    lambda a, b, c: f"{a}-{b}-{c}", st.integers(1, 99), st.integers(100, 999), st.sampled_from(["ACME", "4567"])
)
dotted = st.builds(  # versions, dates, arXiv ids: "2.3.1", "2023-10-01", "1706.03762v7"
    lambda parts, sep, tail: sep.join(map(str, parts)) + tail,
    st.lists(st.integers(0, 99999), min_size=2, max_size=4),
    st.sampled_from([".", "-"]),
    st.sampled_from(["", "v2", "V13"]),
)
serials = st.one_of(  # record numbers and counters: "PMC7654321", "GSE12345", "chat 001", "Report 0042"
    st.builds(
        lambda letters, n: f"{letters}{n}",
        st.text(string.ascii_letters, min_size=1, max_size=3),
        st.integers(10**4, 10**9),
    ),
    st.builds(
        lambda word, n: f"{word} {n:0{len(str(n)) + 1}d}",
        st.sampled_from(["chat", "Report", "log"]),
        st.integers(1, 999),
    ),
    st.builds(lambda word, n: f"{word} {n}", st.sampled_from(["pubmed", "Case", "ticket"]), st.integers(10**5, 10**10)),
)
junk = st.one_of(hashes, numbers, generic_ids, codes, phones, serials)


@given(value=st.one_of(hashes, numbers, generic_ids, phones, dotted, serials))
def test_ids_hashes_numbers_and_phone_numbers_are_never_names(value: str) -> None:
    assert not plausible_name(value) and not plausible_name(value, code_ok=True)


@given(value=codes)
def test_a_lone_code_is_a_name_only_where_the_caller_or_the_cover_gives_it(value: str) -> None:
    assert not plausible_name(value)  # "E21", "IP68": a per-chunk token


@pytest.mark.parametrize(
    "value", ["E21", "IP68", "3DS", "mh-60", "201cmanagement", "1-800-SAMSUNG", "Smith et al. 2019"]
)
def test_the_readings_found_from_outside_are_refused(value: str) -> None:
    assert not plausible_name(value)


@settings(max_examples=40, deadline=None)
@given(source=st.one_of(hashes, numbers, generic_ids, phones), answer=junk, mode=st.sampled_from(["window", "pair"]))
def test_a_junk_file_name_or_llm_answer_never_becomes_the_model(source: str, answer: str, mode: str) -> None:
    cnm = {"category": None, "nouns": ["Setup"], "model": answer}

    def reply(prompt: str) -> str:
        if prompt.startswith("Passages [1].."):
            return json.dumps({"passages": [cnm, True, True]})
        return json.dumps({"continues": False, "cnm": cnm}) if '"continues"' in prompt else json.dumps(cnm)

    text = "Plug in the charger.\n\nWait until the lamp turns green.\n\nUnplug it."
    chunker = CHOPChunker(ScriptedLLM(default=reply), chunker=paragraphs, decisions=mode)
    chunks = chunker.chunk(text, metadata={"source": f"{source}.txt"})
    assert all(c.cnm is not None and c.cnm.model is None for c in chunks)
    assert all(answer not in c.prefix for c in chunks)


def test_a_code_the_cover_prints_may_come_from_the_llm() -> None:
    answer = json.dumps({"passages": [{"category": None, "nouns": [], "model": "KX-200"}, True]})
    chunker = CHOPChunker(ScriptedLLM(default=lambda p: answer), chunker=paragraphs)
    chunks = chunker.chunk("KX-200 camera manual.\n\nInsert the battery.", metadata={"source": "a1b2c3d4e5f6.txt"})
    assert {c.cnm.model for c in chunks} == {"KX-200"}


BLANKED_COVER = (
    "                \n\n\nContents\n\nGetting started\n\nAcme A11\n\nAcme A21\n\nSet up your device\n\n"
    "Charge the battery\nYour device is powered by a rechargeable battery.\n"
)


def test_a_table_of_contents_is_not_a_cover() -> None:
    """Regression: with the cover blanked, the first name in the contents was taken as the model."""
    assert cover_identity(BLANKED_COVER) is None
    chunks = CHOPChunker().chunk(BLANKED_COVER, metadata={"source": "doc07.txt"})
    assert all(c.cnm.model is None for c in chunks)


def test_a_title_above_a_document_type_line_is_a_cover() -> None:
    assert cover_identity("ACME\nBreezer X-200\nOwner's Guide\n\nSafety\nRead this first.") == "Breezer X-200"
    assert cover_identity("# Widget Toolkit\n\nA library for widgets.") == "Widget Toolkit"
    assert cover_identity("# Introduction\n\nThis guide explains.") is None
    assert cover_identity("# C# Toolkit #\n\nBindings.") == "C# Toolkit"  # CommonMark: a closing run follows a space
    assert cover_identity("## Widget Toolkit\n\nA second-level heading names a part.") is None


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"title": "Acme_X-200_User_Manual"}, "Acme X-200"),
        ({"file_name": "Acme X-200 manual.pdf"}, "Acme X-200"),
        ({"file_path": "/data/manuals/Vortex_Pro_9.txt"}, "Vortex Pro 9"),
        ({"source": "README.md"}, None),
        ({"source": "0a1b2c3d4e5f6a7b.txt"}, None),
        ({"title": "doc01", "file_name": "Acme_Q7.txt"}, "Acme Q7"),
        ({"model": "E21"}, "E21"),  # the caller's explicit model is taken as given
    ],
)
def test_the_callers_name_for_the_document(metadata: dict[str, str], expected: str | None) -> None:
    assert caller_identity(doc_context("text", metadata, 0)) == expected


def test_nothing_is_inherited_across_documents() -> None:
    texts = ["Acme X-200\nUser Manual\n\nSetup\nPlug it in.", "Plug it in.\n\nThen wait for the lamp."]
    for resets in (True, False):
        out = CHOPChunker(new_document_resets=resets, prefix="fixed").chunk_many(texts)
        assert {c.cnm.model for c in out[0]} == {"Acme X-200"}
        assert {c.cnm.model for c in out[1]} == {None}
        assert all("X-200" not in c.prefix for c in out[1])


def test_category_needs_strong_evidence() -> None:
    lexicon = Lexicon()
    readme = "The engine API lets applications use hardware. Build the engine; the fuel of the library is speed. " * 20
    chat = "I slept badly, then 10k steps and a workout. Did you sleep? Exercise helps. Watch this! " * 20
    assert lexicon.categorize(names="openssl README", cover="", body=readme) is None
    assert lexicon.categorize(names="chat log", cover="", body=chat) is None
    manual = "Charge your phone. Your phone shows the time. Hold your phone upright. " * 10
    assert lexicon.categorize(names="", cover="", body=manual) == "smartphone"
    assert lexicon.categorize(names="Acme tablet guide", cover="", body="Turn it on.") == "tablet"


fields = st.one_of(st.none(), st.text(max_size=12))


@given(category=fields, nouns=st.lists(st.text(max_size=12), max_size=2), model=fields)
@example(category=None, nouns=[], model="0>")  # rendered "0>: [0>] " before the model lost its ">"
@example(category="a > b", nouns=[">"], model=" > ")
@example(category=None, nouns=["0--0"], model=None)  # a value's own "--" was taken for an empty field's separators
def test_an_empty_field_never_renders_a_separator(category: str | None, nouns: list[str], model: str | None) -> None:
    cnm = CNM(category=category, nouns=nouns, model=model)
    for template in (DEFAULT_PREFIX_TEMPLATE, "[{category} | {nouns} | {model}] ", "{model} - {category} - {nouns}: "):
        prefix = render_prefix(cnm, template)
        assert not re.search(r"\[\s*[|\]]|\|\s*[|\]]|^[\s:|\-]|\[\s*\]", prefix), (template, prefix)
        if "-" not in "".join([category or "", model or "", *nouns]):  # a value's own "--" is no empty field
            assert not re.search(r"-\s*-", prefix), (template, prefix)
        if cnm.is_empty():
            assert prefix == ""
    policy = PrefixPolicy()
    choice = policy.choose(
        [CNM(model="A"), CNM(model="B"), CNM(category="x"), CNM(category="y")], [cnm, CNM(nouns=["s"])]
    )
    prefix = policy.render(cnm, choice)
    assert not re.search(r"^[\s>:]|>\s*>|>\s*:", prefix), prefix


@given(category=fields, nouns=st.lists(st.text(max_size=12), max_size=2), model=fields)
def test_a_signature_of_clean_values_is_the_one_model_construct_builds(
    category: str | None, nouns: list[str], model: str | None
) -> None:
    valid = CNM(category=category, nouns=nouns, model=model)  # values as the validators leave them
    fields_set = set(valid.model_fields_set)
    built = clean_cnm(valid.category, list(valid.nouns), valid.model, fields_set)
    expected = CNM.model_construct(fields_set, category=valid.category, nouns=list(valid.nouns), model=valid.model)
    assert built == expected == valid
    assert vars(built) == vars(expected)
    assert built.model_fields_set is fields_set
    assert (built.model_extra, built.__pydantic_private__) == (expected.model_extra, expected.__pydantic_private__)
    assert pickle.loads(pickle.dumps(built)) == valid
    assert built.model_dump() == valid.model_dump() and render_prefix(built) == render_prefix(valid)


def doc(model: str) -> dict[str, str]:
    return {"source": f"{model.replace(' ', '_')}.txt"}


MANUAL = "Setup\nPlug the charger in.\n\nCleaning\nWipe the lens with a dry cloth.\n"


def test_adaptive_drops_what_does_not_separate_and_records_why() -> None:
    chunker = CHOPChunker(chunker=paragraphs)
    one = chunker.chunk(MANUAL, metadata=doc("Acme X-200"))
    assert chunker.last_usage.prefix_choice == "adaptive: model, nouns (category dropped: no categories found)"
    assert [c.prefix for c in one] == ["Acme X-200: [Setup | Acme X-200] ", "Acme X-200: [Cleaning | Acme X-200] "]
    nameless = CHOPChunker(chunker=paragraphs)
    unnamed = nameless.chunk(MANUAL)
    assert "model dropped: no document names found" in nameless.last_usage.prefix_choice
    assert all(c.prefix == "" for c in unnamed)  # no name to print, so no section either
    fresh = CHOPChunker(chunker=paragraphs)
    both = fresh.chunk_many([MANUAL, MANUAL], metadatas=[doc("Acme X-200"), doc("Acme X-300")])
    assert fresh.last_usage.prefix_choice.startswith("adaptive: model, nouns")
    assert all(c.prefix.startswith("Acme X-300") for c in both[1])
    assert [c.prefix for c in both[1]] == ["Acme X-300: [Setup | Acme X-300] ", "Acme X-300: [Cleaning | Acme X-300] "]


def test_a_heading_that_repeats_the_name_is_no_section() -> None:
    body = "It sends HTTP requests for you and handles connections and encodings."
    docs = [f"# {n}\n\n{body}\n\n## Install\n\nRun pip install {n.lower()} to get it.\n" for n in ("Requests", "HTTPX")]
    sources = [{"source": "requests_README.md"}, {"source": "httpx_README.md"}]
    chunks = CHOPChunker().chunk_many(docs, metadatas=sources)
    assert [[c.prefix for c in doc] for doc in chunks] == [
        ["Requests: [Requests] ", "Requests: [Install | Requests] "],  # was "Requests: [Requests | Requests] "
        ["HTTPX: [HTTPX] ", "HTTPX: [Install | HTTPX] "],
    ]


def test_adaptive_prints_no_section_for_a_document_without_a_name() -> None:
    x200, x300, unnamed = CHOPChunker(chunker=paragraphs).chunk_many(
        [MANUAL, MANUAL, MANUAL], metadatas=[doc("Acme X-200"), doc("Acme X-300"), {}]
    )
    assert [c.prefix for c in x200] == ["Acme X-200: [Setup | Acme X-200] ", "Acme X-200: [Cleaning | Acme X-200] "]
    assert x300[0].prefix.startswith("Acme X-300")
    assert [c.prefix for c in unnamed] == ["", ""]  # "[Setup] " alone would look like every other manual's chunk


def test_adaptive_remembers_the_corpus_across_calls_in_its_state() -> None:
    chunker = CHOPChunker(chunker=paragraphs, corpus=CorpusState())
    kettle = {**doc("Acme X-200"), "category": "kettle"}
    first = chunker.chunk(MANUAL, metadata=kettle)
    second = chunker.chunk(MANUAL, metadata={**doc("Acme X-300"), "category": "toaster"})
    assert all(c.prefix.startswith("Acme X-200: [Setup") or "Cleaning" in c.prefix for c in first)  # the name alone
    assert all("kettle" not in c.prefix for c in first)  # one category when it came: not printed
    assert all("toaster" in c.prefix for c in second)  # a second category: it separates
    assert all("kettle" in c.prefix for c in chunker.chunk(MANUAL, metadata=kettle))
    chunker.corpus = CorpusState()  # a new corpus
    assert all("kettle" not in c.prefix for c in chunker.chunk(MANUAL, metadata=kettle))


@pytest.mark.parametrize("title", ["E.G.", "Acme [X-200]", "Acme X-200"])
def test_one_document_chunked_twice_is_still_one_document(title: str) -> None:
    # The memory holds names as signatures hold them ("E.G." -> "E.G"); a raw name keyed otherwise counted as a
    # second document, so the second run cut the same text at section size, as if its name were printed.
    text = "# E.G.\n\n* * *\n\nThe.\n\nSetup\n\nPlug it in now.\n\nCleaning\n\nWipe it with a cloth.\n"
    state = CorpusState()
    chunker = CHOPChunker(corpus=state)
    first = chunker.chunk(text, metadata={"title": title})
    again = chunker.chunk(text, metadata={"title": title})
    assert [(c.text, c.prefix) for c in again] == [(c.text, c.prefix) for c in first]
    assert chunker.settings.policy.carries_name([title], state) == [True] and len(state.names()) == 1


def test_fixed_and_template_prefixes_ignore_the_corpus() -> None:
    chunker = CHOPChunker(prefix="{model}: ")
    chunks = chunker.chunk(MANUAL, metadata=doc("Acme X-200"))
    assert all(c.prefix == "Acme X-200: " for c in chunks)
    assert chunker.last_usage.prefix_choice == "template: model"


def test_deterministic() -> None:
    texts = [MANUAL, "Acme Q7\nUser Manual\n\n" + MANUAL]
    runs = [[c.to_dict() for d in CHOPChunker(chunker=paragraphs).chunk_many(texts) for c in d] for _ in range(2)]
    assert runs[0] == runs[1]


def test_heading_path_is_section_then_subsection() -> None:
    text = "Getting started\n\nSet up your device\n\nCharge the battery\nPlug it in and wait.\nMore text here.\n"
    headings = Headings(text)
    start = text.index("More text")
    assert headings.path(start, len(text)) == ["Set up your device", "Charge the battery"]
    assert headings.path(0, len(text), depth=3) == ["Getting started", "Set up your device", "Charge the battery"]


def test_a_heading_is_its_words_not_its_markup() -> None:
    assert heading_title("Thread-pool Controls [![Build](https://ci/x.svg)](https://ci) [![cov](a.svg)](b)") == (
        "Thread-pool Controls"
    )
    assert heading_title('<h1 align="center">') == ""
    assert heading_title("See [the guide](https://example.org/guide) first") == "See the guide first"
    assert heading_title("Connect <device name> to https://example.org/setup") == "Connect <device name> to"
    assert heading_title("== History ==") == "History" and heading_title("**Install**") == "Install"
    assert heading_title("x**2 and y**2") == "x**2 and y**2"  # emphasis inside a line is left as it is
    readme = '<h1 align="center">\n<img src="logo.svg">\n</h1>\n\n# Tool [![ci](b.svg)](c)\n\n## Install\n\nRun it.\n'
    assert Headings(readme).paths == [("Tool",), ("Tool", "Install")]
    plain = '<h1 align="center">\n\nInstall\n\nRun pip install tool to get it.\n'
    assert Headings(plain).paths == [("Install",)]


def test_a_comment_in_fenced_code_heads_no_section() -> None:
    readme = (
        "# Tool\n\n## Usage\n\n```python\n# 1. Load a model\nmodel = load()\n```\n\n"
        "More usage text.\n\n## Install\n\nRun it.\n"
    )
    headings = Headings(readme)
    assert headings.paths == [("Tool",), ("Tool", "Usage"), ("Tool", "Install")]
    assert headings.path(readme.index("More usage"), len(readme)) == ["Tool", "Usage"]
    script = "Install\n\n~~~sh\n# fetch it first\npip install tool\n~~~\n\nThen run the tool on a file.\n"
    assert not markdown_within(script)  # its only "#" line is code: plain headings are read instead
    assert Headings(script).paths == [("Install",)]


def test_underlined_headings_rank_by_first_use_and_tilde_underlines_are_no_fences() -> None:
    body = "Some words of body text that explain the section."
    rst = (
        f"=====\nTool\n=====\n\n{body}\n\nInstall\n-------\n\n{body}\n\nFrom PyPI\n~~~~~~~~~\n\n{body}\n\n"
        f"    # indented code, no heading\n\nUsage\n-----\n\n{body}\n"
    )
    assert markdown_within(rst)
    assert Headings(rst).paths == [("Tool",), ("Tool", "Install"), ("Tool", "Install", "From PyPI"), ("Tool", "Usage")]
    fenced = f"Example\n\n~~~\n# code\n~~~\n\nPlain\n~~~\n\n{body}\n"  # three "~" open a code block
    assert not markdown_within(fenced)


def test_numbered_subsections_continue_a_numbered_article() -> None:
    body = "means each individual or legal entity that creates or contributes to the Software."
    licence = (
        f"Public License\n==============\n\n1. Definitions\n--------------\n\n1.1. Contributor\n    {body}\n\n"
        f"1.2. Contribution\n    {body}\n\n2. License Grants\n-----------------\n\n2.1. Grants\n    {body}\n\n"
        f"Notes\n-----\n\n3.1. Not a subsection\n    {body}\n"
    )
    assert Headings(licence).paths == [
        ("Public License",),
        ("Public License", "1. Definitions"),
        ("Public License", "1. Definitions", "1.1. Contributor"),
        ("Public License", "1. Definitions", "1.2. Contribution"),
        ("Public License", "2. License Grants"),
        ("Public License", "2. License Grants", "2.1. Grants"),
        ("Public License", "Notes"),  # "3.1." continues no numbered article here
    ]
    readme = f"# Tool\n\n## Install\n\n1. Clone the repository\n{body}\n"  # a numbered list under no number
    assert Headings(readme).paths == [("Tool",), ("Tool", "Install")]


def test_documents_get_their_own_context() -> None:
    context = DocContext(doc_id="d", text="x", metadata={"file_name": "Acme_X-200.pdf"})
    assert caller_identity(context) == "Acme X-200"


def test_annotate_of_split_pieces_does_not_glue_a_piece_onto_the_next_heading():
    # Splitters (LangChain's, LlamaIndex's SentenceSplitter) strip the blank line between pieces; gluing the
    # pieces back with "" made "tray." + "2. Toner" one line, read as a heading ("Load paper into the tray.2. Toner").
    pieces = [
        "Model X90 Printer User Manual\n\n1. Paper tray\n\nLoad paper into the tray.",
        "2. Toner\n\nReplace the toner when low.",
        "3. Cleaning\n\nWipe the rollers.",
    ]
    for metadatas in (
        [{"source": "x"}] * 3,  # no offsets
        [{"source": "x", "start_index": s} for s in (0, 73, 112)],  # offsets of the original, gaps stripped
    ):
        chunks = CHOPChunker(prefix="fixed").annotate(pieces, metadatas=metadatas)
        assert [c.cnm.nouns[-1] for c in chunks] == ["1. Paper tray", "2. Toner", "3. Cleaning"]


def test_annotate_of_lossless_pieces_reads_the_original_text():
    text = "Model X90 Printer User Manual\n\n1. Paper tray\n\nLoad paper.\n\n2. Toner\n\nReplace the toner."
    cut = text.index("2. Toner")
    pieces, starts = [text[:cut], text[cut:]], [0, cut]
    metadatas = [{"source": "x", "start_index": s} for s in starts]
    chunks = CHOPChunker(prefix="fixed").annotate(pieces, metadatas=metadatas)
    whole = CHOPChunker(prefix="fixed", chunker=lambda t: pieces).chunk(text, metadata={"source": "x"})
    assert [c.cnm for c in chunks] == [c.cnm for c in whole]


def test_annotate_finds_a_repeated_piece_after_the_previous_one_not_inside_it():
    # The same sentence under two headings; the splitter cut right after the second heading. Searching from the
    # previous piece's start (or from 0 when it sat at its own offset) found "Unplug the printer." inside the
    # previous piece, under "Setup", instead of after it.
    from chop_integrations._chop.plan import group_given
    from chop_integrations._offline.cnm import OfflineCNMExtractor

    pieces = ["# Setup\n\nUnplug the printer.\n\n# Cleaning\n\n", "Unplug the printer."]
    items = [DocContext(doc_id="x", text=t, metadata={"source": "x"}) for t in pieces]
    (doc,), (chunks,) = group_given(items, source_key="source", count=len)
    extractor = OfflineCNMExtractor()
    assert [extractor.extract(chunk, doc, None).nouns for chunk in chunks] == [["Setup"], ["Cleaning"]]


def test_a_wrapped_line_heads_no_section_unless_it_opens_a_numbered_clause() -> None:
    wrapped = "The precise terms and conditions for copying, distribution and"
    assert section_title(wrapped, "modification follow.") == ""  # a sentence running on
    clause = "3. Grant of Patent License. Subject to the terms and conditions of"
    assert section_title(clause, "this License, each Contributor hereby grants") == "3. Grant of Patent License"
    year = "2019 Acme Electronics America, Inc. Acme, Acme Phone and Acme Tab are trademarks"
    assert section_title(year, "Other marks are the property of their owners.") == ""  # a year is no clause number
    body = "means each individual or legal entity that creates or contributes."
    assert section_title("1.1. Contributor", body, hanging=True) == "1.1. Contributor"
    link = "support.example.com/en-us/article/set-up-an-email-account-on-your-phone-or-tablet."
    assert section_title("Add an account", link) == "Add an account"  # a link, not prose running on
    assert section_title("Charge the battery", "Your device is powered by a battery.") == "Charge the battery"
