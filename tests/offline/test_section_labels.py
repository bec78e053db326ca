"""CHOP's section label names the chunk's own section: licence clauses, code comments, inheritance across a clause.

Each rule is read by the whole-document reader (:class:`Headings`) and the stream's (:class:`HeadingStream`),
which must agree, and end to end through CHOP offline in batch and stream.
"""

from __future__ import annotations

import pytest

from chop_bench.eval.headings import gold_headings
from chop_integrations import CHOPChunker, CorpusState
from chop_integrations._offline import OfflineContinuity
from chop_integrations._text.headings import ELLIPSIS, Headings, HeadingStream, markdown_within, short_title
from chop_integrations._types import MAX_FIELD_CHARS

SENTENCE = "The licensee keeps every notice of the original work in each copy it makes, as the terms require.\n"


def _titles(text: str) -> list[str]:
    """The innermost title of every heading, read whole and as a stream (both must agree)."""
    whole = [path[-1] for path in Headings(text).paths]
    stream = HeadingStream(markdown=markdown_within(text))
    for k in range(0, len(text), 37):
        stream.feed(text[k : k + 37])
    stream.finish()
    assert [path[-1] for path in stream.paths] == whole
    return whole


def _pieces(text: str) -> list[str]:
    """``text`` as a stream delivers it: in pieces that end mid-line."""
    return [text[k : k + 50] for k in range(0, len(text), 50)]


def _clause(number: int, title: str) -> str:
    """A licence clause at three columns, its title run into a text that wraps onto lines six columns in."""
    lines = [f"   {number}. {title}. Subject to the terms and conditions of this License, each Contributor"]
    lines += [f"      {SENTENCE.strip()}"] * 6
    return "\n".join(lines) + "\n\n"


def test_a_run_in_clause_title_heads_its_clause_when_its_text_wraps_onto_indented_lines() -> None:
    text = "   TERMS AND CONDITIONS\n\n" + _clause(2, "Grant of Copyright License") + _clause(4, "Redistribution")
    assert _titles(text) == ["TERMS AND CONDITIONS", "2. Grant of Copyright License", "4. Redistribution"]


def test_a_numbered_step_with_a_wrapped_sentence_heads_nothing() -> None:
    text = "1. Remove the cover. Lift the lid gently and pull the handle towards you until it\n    clicks.\n"
    assert "1. Remove the cover" not in _titles(text)


def test_a_comment_in_a_nested_code_example_heads_nothing_however_wide_its_indent() -> None:
    # Twelve columns in and 43 wide: a centered title's shape, but a "#" comment in a reStructuredText example.
    code = "    for i in t:\n            # Description will be displayed on the left\n            t.update()\n"
    text = f"Usage\n=====\n\n{SENTENCE}\n.. code:: python\n\n{code}\nNested bars\n===========\n\n{SENTENCE}"
    assert _titles(text) == ["Usage", "Nested bars"]


def test_a_clause_three_columns_in_starts_a_section_inside_a_chunk() -> None:
    chunk = f"   1. Definitions.\n\n      {SENTENCE}\n   2. Grant of Copyright License.\n\n      {SENTENCE}"
    assert OfflineContinuity.section_inside(chunk)
    assert not OfflineContinuity.section_inside(f"   1. Definitions.\n\n      {SENTENCE}      {SENTENCE}")


@pytest.mark.parametrize("stream", [False, True])
def test_every_chunk_of_a_licence_is_labelled_with_its_own_clause(stream: bool) -> None:
    titles = ["Definitions", "Grant of Copyright License", "Grant of Patent License", "Redistribution"]
    text = "   Example License\n\n" + "".join(_clause(n, t) for n, t in enumerate(titles, 1))
    chunker = CHOPChunker(max_tokens=60)
    documents = [(text, {"source": "example-license.txt"}), (text, {"source": "other-license.txt"})]
    if stream:
        chunks = [c for doc, meta in documents for c in chunker.chunk_stream(_pieces(doc), metadata=meta)]
    else:
        chunks = [c for doc, meta in documents for c in chunker.chunk(doc, metadata=meta)]
    starts = [text.index(f"{n}. {t}") for n, t in enumerate(titles, 1)]
    checked = 0
    for chunk in chunks:
        inside = [n for n, s in enumerate(starts) if s <= chunk.start + len(chunk.text) - len(chunk.text.lstrip())]
        if inside:
            own = titles[inside[-1]]
            assert own in chunk.metadata["chop_nouns"], (chunk.text[:60], chunk.metadata["chop_nouns"])
            checked += 1
    assert checked > len(titles)


def test_gold_reads_an_underlined_numbered_title_without_its_underline() -> None:
    text = f"A. HISTORY OF THE SOFTWARE\n==========================\n\n{SENTENCE}\n8. Litigation\n-------------\n\n"
    assert [h.title for h in gold_headings(text + SENTENCE)] == ["A. HISTORY OF THE SOFTWARE", "8. Litigation"]


def test_a_run_in_clause_under_a_marked_title_is_its_section() -> None:
    clause = "  {}. {}. A Work made available under this licence may be protected by copyright\n     {}\n"
    text = f"CC0 1.0 Universal\n=================\n\n{SENTENCE}\n"
    text += clause.format(1, "Copyright and Related Rights", SENTENCE) + "\n" + clause.format(2, "Waiver", SENTENCE)
    text += f"\n  3. Install the package. Then run it with the options you need for\n     {SENTENCE}"
    assert Headings(text).paths == [
        ("CC0 1.0 Universal",),
        ("CC0 1.0 Universal", "1. Copyright and Related Rights"),
        ("CC0 1.0 Universal", "2. Waiver"),
    ]
    assert _titles(text) == ["CC0 1.0 Universal", "1. Copyright and Related Rights", "2. Waiver"]


def test_a_numbered_title_wrapped_onto_a_short_last_line_is_one_title() -> None:
    body = f"    {SENTENCE}"
    text = (
        f"1.1.4. Die root-shell\n\n{body}\n1.1.5. Systemadministrations-Werkzeuge mit grafischer Oberfläche\n(GUI)\n\n"
    )
    wrapped = "1.1.5. Systemadministrations-Werkzeuge mit grafischer Oberfläche (GUI)"
    assert _titles(text + body) == ["1.1.4. Die root-shell", wrapped]
    # a sentence's wrapped tail is no part of a title
    assert not [
        t for t in _titles(f"2. Open the menu and choose the option labelled\nNetwork.\n\n{body}") if "Network" in t
    ]


def test_a_title_too_long_for_a_field_is_cut_at_a_word_with_an_ellipsis() -> None:
    title = "Usage when not using Python threads: Restricting Controlled Library Thread Pool Sizes"
    short = short_title(title)
    assert len(short) <= MAX_FIELD_CHARS and short.endswith(f"Library Thread{ELLIPSIS}")
    assert short_title("Install") == "Install"
    assert short_title("控" * 100) == "控" * (MAX_FIELD_CHARS - 1) + ELLIPSIS  # no space: cut at the limit
    text = f"# Controls\n\n{SENTENCE}\n## {title}\n\n{SENTENCE}" * 2
    chunks = CHOPChunker(max_tokens=40).chunk(text, metadata={"source": "readme.md"})
    assert f"Library Thread{ELLIPSIS}" in chunks[-1].metadata["chop_nouns"]  # not cut by the field's cap mid-word


def test_the_prefix_prints_the_numbered_chapter_above_a_sub_heading_every_chapter_repeats() -> None:
    chapters = [("1. Install", "Examples"), ("2. Usage", "Examples"), ("3. Tuning", "3.1. Threads")]
    text = "".join(f"## {c}\n\n{SENTENCE}\n### {s}\n\n{SENTENCE * 3}\n" for c, s in chapters)
    runs = CHOPChunker(max_tokens=60).chunk_many(
        [text, text], metadatas=[{"source": "alpha.md"}, {"source": "beta.md"}]
    )
    prefixes = {c.prefix for chunks in runs for c in chunks}
    assert "alpha: [1. Install > Examples | alpha] " in prefixes
    assert "alpha: [2. Usage > Examples | alpha] " in prefixes
    assert "alpha: [3.1. Threads | alpha] " in prefixes  # a numbered sub-heading tells itself apart


def test_a_clause_title_ending_its_line_over_an_indented_list_is_its_section() -> None:
    text = f"CC0 1.0 Universal\n=================\n\n{SENTENCE}\n"
    text += f"  3. Public License Fallback. Should any part of the Waiver for any reason be judged\n     {SENTENCE}\n"
    text += f"  4. Limitations and Disclaimers.\n     1. {SENTENCE}     2. {SENTENCE}\n"
    text += f"  5. Install the package.\n     {SENTENCE}"  # a step, not in title case
    assert _titles(text) == ["CC0 1.0 Universal", "3. Public License Fallback", "4. Limitations and Disclaimers."]


def test_a_clause_title_over_an_indented_list_opens_its_chunks_section_in_plain_text() -> None:
    text = f"  3. Public License Fallback.\n\n     {SENTENCE}\n  4. Limitations and Disclaimers.\n"
    text += f"     1. {SENTENCE}     2. {SENTENCE}"
    assert _titles(text) == ["3. Public License Fallback.", "4. Limitations and Disclaimers."]
    assert OfflineContinuity.opens_section(text[text.index("  4.") :])
    assert "1. Remove the cover." not in _titles(f"1. Remove the cover.\n     {SENTENCE}")


def test_a_line_after_a_blank_is_no_wrapped_tail_of_the_title_above() -> None:
    # the whole-document reader and the stream agree: a blank line (here a lone CR) ends the title's block
    for gap in ("\n\n", "\n\r"):
        assert _titles(f"1. Grant Of. Subject toHEAD{gap}HEAD\n") == ["1. Grant Of. Subject toHEAD", "HEAD"]


@pytest.mark.parametrize("stream", [False, True])
def test_the_prefix_prints_the_parent_of_a_sub_heading_whose_title_came_before_under_another(stream: bool) -> None:
    # A README's unnumbered sections: "Examples" heads a part of "Usage" and of "API"; "Requirements" one of
    # "Install" alone. The title alone names two sections of the document, so the later one prints its parent.
    sections = [("Install", "Requirements"), ("Usage", "Examples"), ("API", "Examples")]
    text = "# Tool\n\n" + "".join(f"## {p}\n\n{SENTENCE}\n### {s}\n\n{SENTENCE * 3}\n" for p, s in sections)
    documents = [(text, {"source": "alpha.md"}), (text, {"source": "beta.md"})]
    chunker = CHOPChunker(max_tokens=60, corpus=CorpusState(model=["alpha", "beta"]))  # both names are printed
    if stream:
        runs = [list(chunker.chunk_stream(_pieces(doc), metadata=meta)) for doc, meta in documents]
    else:
        runs = chunker.chunk_many([doc for doc, _ in documents], metadatas=[meta for _, meta in documents])
    usage, api = text.index("### Examples"), text.rindex("### Examples")
    for name, chunks in zip(("alpha", "beta"), runs, strict=True):
        labels = {c.prefix for c in chunks if usage <= c.start < api} | {c.prefix for c in chunks if c.start >= api}
        assert f"{name}: [Examples | {name}] " in labels  # the first section with the title keeps it alone
        assert f"{name}: [API > Examples | {name}] " in labels  # the later one under another parent prints it
        assert f"{name}: [Usage > Examples | {name}] " not in labels
        assert f"{name}: [Requirements | {name}] " in {c.prefix for c in chunks}  # a title the document has once


def test_a_title_once_in_each_of_two_documents_prints_no_parent_even_when_their_names_spell_alike() -> None:
    # "Kettle K1" and "Kettle K1+" share their letters and digits (a spelling key), not their sections.
    texts = [f"## {p}\n\n{SENTENCE}\n### Examples\n\n{SENTENCE * 3}\n" for p in ("Usage", "API")]
    names = [{"title": "Kettle K1"}, {"title": "Kettle K1+"}]
    runs = CHOPChunker(max_tokens=60).chunk_many(texts, metadatas=names)
    labels = {c.prefix for chunks in runs for c in chunks if c.text.lstrip().startswith("### Examples")}
    assert labels == {"Kettle K1: [Examples | Kettle K1] ", "Kettle K1+: [Examples | Kettle K1+] "}


def test_two_documents_with_one_name_each_judge_their_own_repeats() -> None:
    # Two versions of one README in one run: the second has "Examples" only under "API", the first title it has.
    # It keeps the title alone, as it does chunked alone or streamed (the first document's "Usage" is not its own).
    texts = [f"## {p}\n\n{SENTENCE}\n### Examples\n\n{SENTENCE * 3}\n" for p in ("Usage", "API")]
    metadatas = [{"title": "Tool"}, {"title": "Tool"}]
    chunker = CHOPChunker(max_tokens=60, corpus=CorpusState(model=["Tool", "Other"]))  # the name is printed
    runs = chunker.chunk_many(texts, metadatas=metadatas)
    labels = [{c.prefix for c in chunks if c.text.lstrip().startswith("### Examples")} for chunks in runs]
    assert labels == [{"Tool: [Examples | Tool] "}, {"Tool: [Examples | Tool] "}]
    streamed = list(chunker.chunk_stream(_pieces(texts[1]), metadata=metadatas[1]))
    assert [c.prefix for c in streamed] == [c.prefix for c in runs[1]]
