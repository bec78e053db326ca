"""``chop-integrations bench-structure``: whether chunks keep a document's structure (headings, words, sections).

For a document set (``general``, ``general-heldout``, ``multilingual``, ``multilingual-heldout``) it chunks every
document with LumberChunker and CHOP offline (or with ``--llm simulated``, a model that names topic starts at random,
and ``--mode paper`` for LumberChunker), at the default size and at ``--max-tokens 100`` (``--sizes``), and
counts, against the benchmark's own ground-truth headings (:func:`~chop_bench.eval.headings.gold_headings`, never the
package's heading reader):

* ``stranded``: headings left at a chunk's end, away from their body: the heading starts in a chunk and the first
  non-space character after it (its body, or a sub-heading) lies in a later chunk; share of the headings that have
  a body at all;
* ``word_cuts``: boundaries between chunks with a letter or digit on both sides (inside a word), ideographs aside,
  unless forced;
* ``cjk_cuts``: boundaries between two CJK ideographs (next to each other, or either side of the one line break
  of a wrapped line: Chinese plain text wraps inside words) where the text from the start of the unit (the
  paragraph, or the chunk when it started later) to the cut holds punctuation (``。，；：、！？`` or
  ``. , ; : ! ?``), so the cut had a better place; these two are the issue's "cuts inside a word or between two
  ideographs where the unit had punctuation";
* ``forced``: the other cuts inside a word or between two ideographs, those with no better place: inside a run of
  letters and digits that fills the whole chunk before the cut (a hex string longer than the limit; a URL cut at
  its ``/`` is no cut inside a word), or between two ideographs with no punctuation from the unit's start;
* for CHOP, ``label_right``: of the chunks inside a section (a gold heading above the chunk's first character, or
  the chunk opens with one), the share whose section label, read from the chunk's ``chop_nouns`` metadata
  (the heading path), names the chunk's own section: its nearest gold heading at or above its start. Both are
  split at ``, > / | ;`` and compared part by part without numbering (``2.1.6.``, ``Kapitel 2.``, ``第 2 章``),
  case, spacing, emoji codes, link targets or the brackets a prefix cannot hold (``[Unreleased]`` is
  ``Unreleased``); the own title's parts must appear in a row among the label's (:func:`label_names`). A title
  too long for a signature field may be cut short: a label part that ends with an ellipsis (``…``) names the
  title when, with the parts before it, it spells the title's start up to a word's end and keeps at least
  :data:`SHORT_LABEL_CHARS` characters of it (the reader sees which section it is, as a table of contents shows
  a long title).

Run ``chop-integrations bench-structure --set multilingual`` (a minute on two cores) or
``chop-bench bench-structure --set general-heldout --json structure.json``.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chop_integrations._checks import MAX_INT_OPTION
from chop_integrations._errors import ConfigurationError

from .command import output_file, write_output
from .eval.headings import Heading, clean_heading, gold_headings

__all__ = ["SETS", "Span", "add_arguments", "bad_cuts", "label_names", "load_set", "measure", "stranded"]

SETS = ("general", "general-heldout", "multilingual", "multilingual-heldout")
METHODS = ("lumber", "chop")
#: The chunk metadata key that holds CHOP's section label (the heading path, comma-joined).
LABEL_KEY = "chop_nouns"
_IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_PUNCTUATION = re.compile(r"[。，；：、！？,;:!?]|\.(?=\s)")
_NUMBER = re.compile(
    r"^(?:(?:kapitel|chapter|anhang|appendix|附录)\s+)?(?:\d{1,3}(?:\.\d{1,3})*\.?|[a-z](?:\.\d{1,3})*\.)\s+"
    r"|^第\s*\d+\s*章\s*"
)
_SEPARATORS = re.compile(r"\s*[,>/|;]\s*")
#: Markup no reader sees as words: GitHub's emoji codes (``:point_right:``) and reStructuredText's link targets
#: (`` `Hg issue 152 <https://...>`_ `` reads ``Hg issue 152``).
_EMOJI = re.compile(r"(?<!\S):[a-z0-9_+-]+:(?!\S)")
_RST_LINK = re.compile(r"`([^`<]*?)\s*<[^<>`]*>`__?")
_EXAMPLES = 5
#: The fewest characters of a title a label cut short with an ellipsis must keep to name it.
SHORT_LABEL_CHARS = 40
_ELLIPSIS = "\u2026"


@dataclass(frozen=True)
class Span:
    """One chunk as the measures see it: its offsets and CHOP's section label (``None`` where CHOP did not run)."""

    start: int
    end: int
    label: str | None = None


_TEXT = re.compile(r"\S")


def _body(text: str, heading: Heading) -> int | None:
    """Offset of the first non-space character after ``heading``; ``None`` when only space follows."""
    match = _TEXT.search(text, heading.body_start)
    return match.start() if match else None


def _chunk_at(starts: Sequence[int], offset: int) -> int:
    """Index of the chunk holding ``offset``: the last of the sorted chunk ``starts`` at or before it."""
    return max(bisect.bisect_right(starts, offset) - 1, 0)


def stranded(text: str, headings: Sequence[Heading], spans: Sequence[Span]) -> list[Heading]:
    """The headings whose text starts in one chunk while their body starts in a later one.

    A heading starts at its first character that is not white space: the indentation before an indented heading
    (``   5. Submission of Contributions.``) may end the chunk before it, as a paragraph gap does, and leaves no
    heading text behind.
    """
    out = []
    starts = [span.start for span in spans]
    for heading in headings:
        body = _body(text, heading)
        first = _TEXT.search(text, heading.start)
        if body is not None and first and _chunk_at(starts, body) > _chunk_at(starts, first.start()):
            out.append(heading)
    return out


def _around(text: str, cut: int) -> tuple[str, str, bool]:
    """The characters either side of ``cut`` and whether only a wrapped line's break (one newline) lies between.

    Chinese plain text is wrapped at a fixed width, so a line may break between two characters of one word.
    """
    left, right = cut, cut
    while left > 0 and text[left - 1].isspace():
        left -= 1
    while right < len(text) and text[right].isspace():
        right += 1
    between = text[left:right]
    wrapped = between.count("\n") == 1 if between else True
    return (text[left - 1] if left > 0 else ""), (text[right] if right < len(text) else ""), wrapped


def _word_start(text: str, cut: int) -> int:
    """Where the run of letters and digits (ideographs aside) that ends at ``cut`` starts."""
    start = cut
    while start > 0 and text[start - 1].isalnum() and not _IDEOGRAPH.match(text[start - 1]):
        start -= 1
    return start


def bad_cuts(text: str, spans: Sequence[Span]) -> tuple[list[int], list[int], list[int]]:
    """``(cuts inside a word, between two ideographs with punctuation before them in the unit, forced)``: offsets.

    A cut inside a word is forced when the letters and digits around it run back to the start of the chunk before
    it (that chunk holds nothing but part of one over-long word); one between two ideographs when the unit up to
    it holds no punctuation.
    """
    words: list[int] = []
    ideographs: list[int] = []
    forced: list[int] = []
    for previous, span in itertools.pairwise(spans):
        cut = span.start
        if cut <= 0 or cut >= len(text):
            continue
        left, right = text[cut - 1], text[cut]
        before, after, wrapped = _around(text, cut)
        if wrapped and _IDEOGRAPH.match(before) and _IDEOGRAPH.match(after):
            unit_start = max(text.rfind("\n\n", 0, cut) + 2, previous.start)
            (ideographs if _PUNCTUATION.search(text, unit_start, cut) else forced).append(cut)
        elif left.isalnum() and right.isalnum() and not (_IDEOGRAPH.match(left) or _IDEOGRAPH.match(right)):
            (forced if _word_start(text, cut) <= previous.start else words).append(cut)
    return words, ideographs, forced


def _parts(text: str) -> list[str]:
    """A title or label as its parts (split at ``, > / | ;``), each without numbering, case or extra spaces."""
    parts = []
    text = _RST_LINK.sub(r"\1", _EMOJI.sub(" ", text.replace("\xa0", " ")))
    for part in _SEPARATORS.split(clean_heading(text).casefold().replace("[", "").replace("]", "")):
        part = re.sub(r"\s+", " ", part).strip(" .:'`")  # (a label loses the quotes at its ends)
        bare = _NUMBER.sub("", part).strip(" .:")
        parts.append(bare if any(c.isalpha() for c in bare) else part)
    return parts


def label_names(label: str, title: str) -> bool:
    """Whether a section label names the section ``title``: the title's parts appear in a row among the label's.

    ``"Paketabhängigkeiten, Debian-Paketmanagement"`` names ``"2.1.6. Paketabhängigkeiten"``; ``"Kapitel 2"``
    does not; a version above a sub-heading (``"Stabilized APIs | Version 1.63.0"``) names either; so does a title
    cut short at a word with an ellipsis, once it keeps :data:`SHORT_LABEL_CHARS` characters.
    """
    want, got = _parts(title), _parts(label)
    if not any(want):
        return False
    if any(got[i : i + len(want)] == want for i in range(len(got) - len(want) + 1)):
        return True
    return any(
        _spells_start(got[i : j + 1], want)
        for j, part in enumerate(got)
        if part.endswith(_ELLIPSIS)
        for i in range(j + 1)
    )


def _spells_start(parts: list[str], want: list[str]) -> bool:
    """Whether label ``parts`` (the last cut short with an ellipsis) spell the start of the title's parts ``want``.

    The start must end at a word's end (a CJK title, with no spaces, may be cut anywhere) and keep at least
    :data:`SHORT_LABEL_CHARS` characters.
    """
    stem = " , ".join([*parts[:-1], parts[-1].removesuffix(_ELLIPSIS).rstrip()])
    whole = " , ".join(want)
    if len(stem) < SHORT_LABEL_CHARS or len(stem) >= len(whole) or not whole.startswith(stem):
        return False
    after = whole[len(stem)]
    return not after.isalnum() or bool(_IDEOGRAPH.match(after))


def own_section(text: str, headings: Sequence[Heading], span: Span) -> Heading | None:
    """The chunk's own section: its nearest heading at or above its first non-space character."""
    match = re.compile(r"\S").search(text, span.start, span.end)
    first = match.start() if match else span.start
    own = None
    for heading in headings:
        if heading.start > first:
            break
        own = heading
    return own


def _show(text: str, cut: int, width: int) -> str:
    r"""``width`` characters either side of ``cut``, with ``|`` at the cut and line breaks shown as ``\n``."""
    return (text[max(0, cut - width) : cut] + "|" + text[cut : cut + width]).replace("\n", "\\n")


def measure(text: str, headings: Sequence[Heading], spans: Sequence[Span]) -> dict[str, Any]:
    """Every count of one chunked document (module docstring), with a few examples of each fault."""
    with_body = [h for h in headings if _body(text, h) is not None]
    lost = stranded(text, with_body, spans)
    words, ideographs, forced = bad_cuts(text, spans)
    in_section = right = 0
    wrong: list[str] = []
    for span in spans:
        own = own_section(text, headings, span)
        if own is None or span.label is None:
            continue
        in_section += 1
        if label_names(span.label, own.title):
            right += 1
        elif len(wrong) < _EXAMPLES:
            wrong.append(f"{own.title!r} labelled {span.label!r}")
    return {
        "chunks": len(spans),
        "headings": len(with_body),
        "stranded": len(lost),
        "word_cuts": len(words),
        "cjk_cuts": len(ideographs),
        "forced": len(forced),
        "in_section": in_section,
        "label_right": right,
        "examples": {
            "stranded": [h.title for h in lost[:_EXAMPLES]],
            "word_cuts": [_show(text, c, 15) for c in words[:_EXAMPLES]],
            "cjk_cuts": [_show(text, c, 8) for c in ideographs[:_EXAMPLES]],
            "forced": [_show(text, c, 12) for c in forced[:_EXAMPLES]],
            "labels": wrong,
        },
    }


def load_set(name: str, docs_dir: Path | None = None) -> list[tuple[str, str]]:
    """``(name, text)`` of every document of a set on this machine."""
    if name in ("general", "general-heldout"):
        from .eval.general import HELDOUT_SOURCES, SOURCES, build_general_set

        return build_general_set(SOURCES if name == "general" else HELDOUT_SOURCES).corpus.docs
    if name in ("multilingual", "multilingual-heldout"):
        from .eval.multilingual import DEV_SOURCES, build_multilingual_set
        from .eval.multilingual import HELDOUT_SOURCES as ML_HELDOUT

        sources = DEV_SOURCES if name == "multilingual" else ML_HELDOUT
        return build_multilingual_set(sources, folder=docs_dir).corpus.docs
    raise ConfigurationError(f"unknown set {name!r}: choose from {', '.join(SETS)}")


def run_set(
    docs: Sequence[tuple[str, str]], method: str, max_tokens: int | None, *, llm: bool = False, mode: str = "default"
) -> dict[str, Any]:
    """Chunk every document with ``method`` at ``max_tokens`` (``None``: the default) and sum the counts.

    Offline, or with ``llm`` on :class:`~chop_integrations.testing.SimulatedLLM` (no latency, seed 0): a model that
    names topic starts at random, so cuts fall where no offline decider puts them; ``mode`` is LumberChunker's.
    """
    from chop_integrations._engines import build_engine
    from chop_integrations.testing import SimulatedLLM

    options: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
    if mode != "default":
        options["mode"] = mode
    engine = build_engine(method, SimulatedLLM(0) if llm else None, **options)
    label = method + (" simulated LLM" if llm else "") + (f" {mode} mode" if mode != "default" else "")
    total: dict[str, Any] = {"method": label, "max_tokens": max_tokens or "default", "examples": {}}
    for name, text in docs:
        chunks = engine.chunk(text, metadata={"source": name})
        spans = [Span(c.start, c.end, c.metadata.get(LABEL_KEY) if method == "chop" else None) for c in chunks]
        counts = measure(text, gold_headings(text), spans)
        for key, value in counts.pop("examples").items():
            total["examples"].setdefault(key, []).extend(f"{name}: {v}" for v in value)
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    total["examples"] = {k: v[:_EXAMPLES] for k, v in total["examples"].items()}
    total["stranded_share"] = round(total["stranded"] / total["headings"], 4) if total["headings"] else 0.0
    if method == "chop" and not llm:  # (a simulated LLM's signature words are made up: no label share for them)
        total["label_share"] = round(total["label_right"] / total["in_section"], 4) if total["in_section"] else None
    return total


def markdown(result: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    lines = [
        f"Set: {result['set']} ({result['documents']} documents, {result['characters']} characters)",
        "",
        "| method | max_tokens | chunks | headings | stranded | share | word cuts | CJK cuts | forced | label right |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        label = "-" if r.get("label_share") is None else f"{r['label_share']:.1%} of {r['in_section']}"
        lines.append(
            f"| {r['method']} | {r['max_tokens']} | {r['chunks']} | {r['headings']} | {r['stranded']} "
            f"| {r['stranded_share']:.1%} | {r['word_cuts']} | {r['cjk_cuts']} | {r['forced']} | {label} |"
        )
    return "\n".join(lines) + "\n"


def _sizes(value: str) -> list[int | None]:
    out: list[int | None] = []
    for item in (v.strip() for v in value.split(",") if v.strip()):
        if item == "default":
            out.append(None)
        elif item.isdigit() and len(item.lstrip("0")) <= 10 and 0 < int(item.lstrip("0") or "0") <= MAX_INT_OPTION:
            out.append(int(item))
        else:
            raise ConfigurationError(
                f"--sizes takes 'default' and token counts from 1 to {MAX_INT_OPTION}, got {item[:20]!r}"
            )
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (its record: :mod:`chop_bench.commands`); it runs :func:`run_command`."""
    parser.add_argument("--set", default="multilingual", choices=SETS, help="the document set (multilingual)")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma list of lumber, chop (both)")
    parser.add_argument("--sizes", default="default,100", help="comma list of max_tokens; 'default' (default,100)")
    parser.add_argument("--docs-dir", type=Path, help="where scripts/fetch_docs.py unpacked the Debian packages")
    parser.add_argument(
        "--llm", choices=("none", "simulated"), default="none", help="offline deciders, or a simulated LLM (none)"
    )
    parser.add_argument("--mode", choices=("default", "paper"), default="default", help="LumberChunker's mode")
    parser.add_argument("--examples", action="store_true", help="also print a few examples of each fault")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here as JSON")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Run ``bench-structure`` from parsed arguments; returns the exit code."""
    methods = [m.strip() for m in str(args.methods).split(",") if m.strip()]
    if not methods or any(m not in METHODS for m in methods):
        raise ConfigurationError(f"--methods takes {', '.join(METHODS)}, got {args.methods!r}")
    if args.mode != "default" and methods != ["lumber"]:
        raise ConfigurationError("--mode paper is LumberChunker's: pass --methods lumber with it")
    sizes = _sizes(str(args.sizes))
    target = output_file(args.json, "--json")
    docs = load_set(args.set, args.docs_dir)
    if not docs:
        raise ConfigurationError(f"no document of the {args.set} set on this machine: run scripts/fetch_docs.py")
    llm = args.llm == "simulated"
    rows = [run_set(docs, method, size, llm=llm, mode=args.mode) for method in methods for size in sizes]
    result = {
        "set": args.set,
        "documents": len(docs),
        "characters": sum(len(t) for _, t in docs),
        "rows": rows,
    }
    print(markdown(result), end="")
    if args.examples:
        for r in rows:
            for key, values in r["examples"].items():
                for value in values:
                    print(f"{r['method']} {r['max_tokens']} {key}: {value}")
    if target is not None:
        write_output(target, json.dumps(result, indent=2, ensure_ascii=False) + "\n", "--json")
    return 0
