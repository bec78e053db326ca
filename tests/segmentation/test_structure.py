"""Issue 12: structure kept by segmentation and LumberChunker's offline chunks (one case per kind, plus properties)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations import LumberChunker
from chop_integrations._text.headings import (
    atx_heading,
    chunk_heading_paths,
    heading_level,
    is_heading_line,
    marked_heading,
)
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.structure import FenceState, ends_with_break, fence_spans, last_visible
from chop_integrations._text.tokens import default_counter

COUNT = default_counter()

BASH_FENCE = (
    "```bash\n"
    "# install the build tools\n"
    "sudo apt-get install build-essential\n"
    "\n"
    "# configure with the defaults\n"
    "./configure --prefix=/usr/local\n"
    "\n"
    "# build and install\n"
    "make && sudo make install\n"
    "```\n"
)


def chunk_texts(text: str, **options: object) -> list[str]:
    chunks = LumberChunker(**options).chunk(text)  # type: ignore[arg-type]
    assert "".join(c.text for c in chunks) == text
    return [c.text for c in chunks]


def test_hash_lines_inside_a_fence_are_no_headings_and_a_fitting_fence_is_never_cut() -> None:
    text = "# Build\n\nRun these commands from the source tree:\n\n" + BASH_FENCE + "\n## Test\n\nRun make check.\n"
    units = split_units(text, max_tokens=550, token_counter=COUNT)
    fence = [u for u in units if u.text.startswith("```")]
    assert len(fence) == 1 and fence[0].text.startswith(BASH_FENCE) and not fence[0].heading
    for size in (60, 120, 550):
        start = text.index("```")
        end = start + len(BASH_FENCE)
        cuts = {c.start for c in LumberChunker(max_tokens=size).chunk(text)}
        assert not any(start < cut < end for cut in cuts), size


def test_a_fence_over_the_maximum_is_cut_at_its_own_line_ends() -> None:
    code = "```python\n" + "".join(f"value_{i} = compute({i}) + offset  # step {i}\n" for i in range(60)) + "```\n"
    units = split_units(code, max_tokens=80, token_counter=COUNT)
    assert len(units) > 1
    assert all(u.text.endswith("\n") for u in units)  # every cut falls at a line end
    assert max(u.tokens for u in units) <= 80


def test_fence_spans_follow_commonmark_closing_rules() -> None:
    text = "a\n````\n```\nstill code\n````\nb\n~~~\nopen to the end"
    spans = fence_spans(text)
    assert [text[s:e] for s, e in spans] == ["````\n```\nstill code\n````\n", "~~~\nopen to the end"]


_FENCE_LINES = st.lists(
    st.sampled_from(["```", "````", "~~~", "~~~~", "```py", "``` x `", "```  ", "  ```", "    ```", "# h", "code", ""]),
    max_size=30,
)


@given(lines=_FENCE_LINES, ending=st.sampled_from(["\n", "\r\n"]))
def test_fence_state_reads_lines_as_fence_spans_reads_the_text(lines: list[str], ending: str) -> None:
    text = "".join(line + ending for line in lines)
    spans = fence_spans(text)
    state, offset = FenceState(), 0
    for line in text.splitlines(keepends=True):
        inside = any(start <= offset < end for start, end in spans)
        assert state.step(line) == inside, (line, text)
        offset += len(line)


def test_a_tilde_underline_is_a_heading_not_a_fence() -> None:
    text = "Latest release\n~~~~~~~~~~~~~~\n\nInstall it.\n\n# not code\n\nb\n~~~\ncode\n~~~\n"
    assert [text[s:e] for s, e in fence_spans(text)] == ["~~~\ncode\n~~~\n"]
    assert heading_level(["Latest release", "~~~~~~~~~~~~~~"]) == 3
    assert heading_level(["Install", "-------"]) == 2


def test_setext_heading_stays_with_its_body() -> None:
    text = (
        "Introduction to the tool and what it does for you.\n\n"
        "Install\n-------\n\nDownload the archive and unpack it in your home folder.\n\n"
        "Usage\n=====\n\nRun the tool with a file name; it prints a report.\n"
    )
    for chunk in chunk_texts(text, max_tokens=30, target_tokens=0, min_tokens=0):
        assert not chunk.strip().endswith(("-------", "=====")), chunk  # no heading cut off from its body
    assert heading_level(["Install", "-------"]) == 2 and heading_level(["Usage", "====="]) == 1


def test_atx_and_numbered_headings_stay_with_their_body() -> None:
    text = (
        "1. Scope\n\nThis licence applies to the software and its documentation.\n\n"
        "2. Grant\n\nYou may copy and modify the software under these terms.\n\n"
        "## Notes\n\nKeep this notice in every copy you make.\n"
    )
    chunks = chunk_texts(text, max_tokens=25, target_tokens=0, min_tokens=0)
    for title in ("1. Scope", "2. Grant", "## Notes"):
        holder = next(c for c in chunks if title in c)
        assert holder.strip() != title, f"{title} is a chunk of its own"
    assert heading_level(["2.1 Grant"]) == 2 and heading_level(["### Notes"]) == 3


def test_atx_headings_follow_commonmark() -> None:
    assert atx_heading("## Install ##") == (2, "Install")
    assert atx_heading("## C#") == (2, "C#")  # a closing run needs a space before it
    assert atx_heading("   ### Deep") == (3, "Deep")
    assert atx_heading("##") == (2, "")
    assert atx_heading("    # code") is None and atx_heading("\t# code") is None  # indented: code
    assert atx_heading("#hashtag") is None and atx_heading("####### seven") is None


@settings(max_examples=300, deadline=None)
@given(
    indent=st.sampled_from(["", " ", "   ", "    ", "\t"]),
    marks=st.integers(min_value=1, max_value=7),
    gap=st.sampled_from(["", " ", "\t", "  "]),
    text=st.text(alphabet="ab #\t", max_size=12),
)
def test_segmentation_and_the_signature_agree_on_atx_headings(indent: str, marks: int, gap: str, text: str) -> None:
    """One definition: an ATX line with a title is a heading for segmentation and for the signature alike."""
    line = f"{indent}{'#' * marks}{gap}{text}"
    atx = atx_heading(line)
    if atx and atx[1]:
        assert is_heading_line(line, None)
    stripped = line.strip()  # the signature reads stripped lines (indented code is dropped before it)
    read = atx_heading(stripped)
    assert (marked_heading(stripped, None, opens_block=True, above="") is not None) == bool(read and read[1])


def test_lists_and_tables_are_not_cut_inside_when_they_fit() -> None:
    items = "".join(f"- item {i}: enable the option number {i} in the settings\n\n" for i in range(6))
    table = "| key | value |\n|-----|-------|\n" + "".join(f"| k{i} | v{i} |\n" for i in range(8))
    text = "Options\n\nThe options are:\n\n" + items + "Reference\n\n" + table + "\nEnd of the reference.\n"
    chunks = LumberChunker(max_tokens=200).chunk(text)
    for block in (items, table):
        start, end = text.index(block), text.index(block) + len(block.rstrip())
        assert not any(start < c.start < end for c in chunks)


def test_sentence_cuts_survive_abbreviations_decimals_and_upper_case() -> None:
    sentence = "Dr. Smith of the U.S. office measured 3.14 units, e.g. in Fig. 2 and No. 7 of the series"
    text = " ".join([sentence + "."] * 3)
    units = split_units(text, max_tokens=COUNT(sentence) + 8, token_counter=COUNT)
    assert [u.text.strip() for u in units] == [sentence + "."] * 3
    text = (
        "THE SOFTWARE IS PROVIDED AS IS AND THE AUTHOR DISCLAIMS ALL WARRANTIES\n"
        "WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF\n"
        "MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE\n"
        "FOR ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES.\n"
    )
    units = split_units(text, max_tokens=40, token_counter=COUNT)
    assert units[0].text.rstrip().endswith("FITNESS.")  # cut at the sentence end, not at a wrapped line


def test_wrapped_upper_case_lines_are_no_headings() -> None:
    text = (
        "THE SOFTWARE IS PROVIDED AS IS AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH\n"
        "REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY\n"
        "AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,\n"
    )
    assert len(split_units(text, max_tokens=550, token_counter=COUNT)) == 1


def test_heading_path_as_markdown_node_parser_writes_it() -> None:
    text = "# Guide\n\nIntro.\n\n## Install\n\nSteps.\n\n### Linux\n\napt.\n\n## Usage\n\nRun.\n"
    units = split_units(text, max_tokens=550, token_counter=COUNT)
    starts = list(range(len(units)))
    paths = dict(zip([u.text.split("\n")[0] for u in units], chunk_heading_paths(units, starts), strict=True))
    assert paths["# Guide"] == "/" and paths["## Install"] == "/Guide/"
    assert paths["### Linux"] == "/Guide/Install/" and paths["## Usage"] == "/Guide/"
    chunks = LumberChunker(max_tokens=8, target_tokens=0, min_tokens=0).chunk(text)
    assert {c.metadata["header_path"] for c in chunks} >= {"/Guide/", "/Guide/Install/"}


def test_breaks_are_not_setext_underlines() -> None:
    assert ends_with_break("Some text.\n\n* * *\n")
    assert not ends_with_break("Title\n---\n")
    assert not ends_with_break("```\n~~~\n")


def test_max_tokens_2000_gives_larger_chunks_than_200() -> None:
    sections = "".join(
        f"## Section {i}\n\n" + " ".join(f"Sentence {j} about topic {i} and its options." for j in range(6)) + "\n\n"
        for i in range(40)
    )
    small = LumberChunker(max_tokens=200).chunk(sections)
    large = LumberChunker(max_tokens=2000).chunk(sections)
    mean = lambda chunks: sum(c.token_count for c in chunks) / len(chunks)  # noqa: E731
    assert mean(large) >= 1.5 * mean(small)


def test_llm_answers_are_real_topic_shifts_that_only_tiny_sections_cross() -> None:
    body = " ".join(f"Sentence {j} of a longer paragraph about the same topic." for j in range(5))
    text = "\n\n".join([body, body, "Short line.", body])
    offline = LumberChunker(max_tokens=400).chunk(text)
    assert len(offline) == 1  # offline: small sections join toward the target (200)
    answers = iter(['{"starts": [2, 3, 4]}'])
    llm = LumberChunker(lambda prompt: next(answers), max_tokens=400, max_concurrency=1).chunk(text)
    # the LLM's cuts before the second and last paragraphs stay; the tiny "Short line." joins the one before
    assert [c.text.startswith(body) for c in llm] == [True, True, True]
    assert "Short line." in llm[1].text


# -- properties -------------------------------------------------------------------------------

BLOCKS = st.sampled_from(
    [
        "# Title\n",
        "## Install\n",
        "Setup\n-----\n",
        "1. Scope\n",
        "Plain paragraph with a sentence. Another one follows here.\n",
        "- list item one\n- list item two\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        BASH_FENCE,
        "Dr. Who met No. 5 at 3.5 p.m. on the U.S. coast.\n",
        "x\n",
        "* * *\n",
    ]
)
DOCS = st.lists(BLOCKS, min_size=1, max_size=30).map("\n".join)


@settings(max_examples=60, deadline=None)
@given(text=DOCS, max_tokens=st.integers(20, 600))
def test_offline_chunks_are_lossless_bounded_fence_safe_and_not_tiny(text: str, max_tokens: int) -> None:
    chunker = LumberChunker(max_tokens=max_tokens)
    chunks = chunker.chunk(text)
    assert "".join(c.text for c in chunks) == text
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert all(c.token_count <= max_tokens for c in chunks)
    cuts = {c.start for c in chunks[1:]}
    for start, end in fence_spans(text):
        if COUNT(text[start:end]) <= max_tokens:
            assert not any(start < cut < end for cut in cuts)
    for left, right in itertools.pairwise(chunks):
        if left.token_count < chunker.settings.min_tokens:  # a small chunk stands alone only when it could not join
            assert left.token_count + right.token_count > max_tokens or COUNT(left.text + right.text) > max_tokens


@pytest.mark.parametrize("max_tokens", [200, 550, 2000])
def test_target_follows_max_tokens(max_tokens: int) -> None:
    chunker = LumberChunker(max_tokens=max_tokens)
    assert (
        0 < chunker.settings.target_tokens < max_tokens and chunker.settings.min_tokens < chunker.settings.target_tokens
    )


def test_an_indented_fence_in_a_list_item_is_not_cut_after_its_indentation() -> None:
    text = "- publish with the token:\n\n  ```bash\n  FLIT_USERNAME=__token__ flit publish\n  ```\n\n  and more.\n"
    units = split_units(text, max_tokens=550, token_counter=COUNT)
    start = text.index("  ```bash")
    end = text.index("  ```\n", start + 3) + len("  ```\n")
    assert not any(start < u.start < end for u in units)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list(" \t\n\u3000\u00a0ab中.")), min_size=1, max_size=600), data=st.data())
def test_last_visible_is_the_last_character_before_a_position_that_is_not_white_space(
    text: str, data: st.DataObject
) -> None:
    pos = data.draw(st.integers(1, len(text)))
    visible = [i for i in range(pos) if not text[i].isspace()]
    assert last_visible(text, pos) == (visible[-1] if visible else 0)
