"""Every number chosen on data, in one place, each with the data and the split that chose it.

The engines and the offline deciders read their tuned defaults from here; the tables of scores
behind them are in ``docs/tuning.md``. A number with no data behind it (a syntax rule, a memory
bound) stays beside the code that uses it.

The data sets named below: *the manuals* are 30 product manuals with questions, split into a
tune half and a held-out half (questions of the tune half only chose numbers); *the anonymised
manuals* are the same files named by hashes with their covers blanked; *the doc sample* is a
sample of README, NEWS and licence files from ``/usr/share/doc`` and ``site-packages``, used for
sizes only (no questions).
"""

from __future__ import annotations

__all__ = [
    "ADDRESS_WEIGHT",
    "BUILTIN_TARGET_TOKENS",
    "CHOP_WINDOW_CUTS",
    "COVER_WEIGHT",
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_PREFIX_TEMPLATE",
    "LUMBER_WINDOW_CUTS",
    "MIN_ADDRESSES",
    "MIN_ADDRESS_RATE",
    "MIN_ADDRESS_SHARE",
    "MIN_SHARE",
    "NAME_WEIGHT",
    "PREFIX_RESERVE",
    "SECTION_DEPTH",
    "TARGET_SHARE",
    "WINDOW_FACTOR",
    "WRAPPED_CHARS",
]

# -- segmentation ----------------------------------------------------------------------------------

#: A first line this long (characters, stripped) is a wrapped paragraph's, not a heading: the common
#: wrap widths are 70-80 columns. Chosen on the doc sample.
WRAPPED_CHARS = 66

# -- LumberChunker ---------------------------------------------------------------------------------

#: Hard maximum of tokens per chunk: the LumberChunker paper's best group size (theta = 550, chosen
#: there on its GutenQA data), so default-mode chunks are never larger than the chunks the paper evaluated.
DEFAULT_MAX_TOKENS = 550
#: Default mode: new-unit tokens per window, as a multiple of ``max_tokens``. Bigger windows spread
#: the fixed prompt overhead over more text; 4 x 550 = 2,200 tokens is well inside any current
#: model's context and gave amplification ~1.1 on the manuals (prompt tokens only, no questions).
WINDOW_FACTOR = 4
#: Default mode: chunks grow toward ``target_tokens`` = this share of ``max_tokens`` when no
#: ``target_tokens`` is given (so a larger maximum gives larger chunks). Chosen on the doc sample
#: (chunk sizes only).
TARGET_SHARE = 0.2
#: Default mode: a section under this share of the target joins a neighbour across any boundary.
#: Set by design with the target (a quarter of it), not tuned on any data split.
MIN_SHARE = 0.25
#: Default mode: tokens of the text before a window re-sent as context. Set by design (a paragraph's
#: tail, a small share of a 2,200-token window), not tuned on any data split.
DEFAULT_CONTEXT_TOKENS = 64

#: Default mode: where a window closes by content, as ``(min_share, expected_share)`` of
#: :class:`~chop_integrations._text.tiling.ContentCuts`. Chosen on the 30 manuals (sizes and
#: simulated-LLM calls, no questions), 10 manuals x 3 edits (a sentence appended, a paragraph
#: inserted or deleted): windows re-asked per edit 3.07 by position -> 1.07 (at most 2), prompt
#: tokens +2.2% ((0.5, 0.3): 1.27, +1.4%).
LUMBER_WINDOW_CUTS = (0.4, 0.3)

# -- CHOP ------------------------------------------------------------------------------------------

#: Tokens of the embedder's limit the built-in LumberChunker leaves for the prefix when ``embedding``
#: is set: the longest offline prefix on the first 10 manuals was 29 tokens (no questions used).
PREFIX_RESERVE = 48
#: The built-in LumberChunker's target when the document's prefix prints its name: 0, sections as they
#: are (no joining). Chosen on the manuals' tune half (dense and BM25 retrieval, doc@1 and span@1); a
#: document whose prefix prints no name gets LumberChunker's own sizes instead (chosen on the anonymised
#: manuals' tune half). The scores are in docs/tuning.md, "The built-in chunker's sizes".
BUILTIN_TARGET_TOKENS = 0
#: CHOP's window decisions: where a window of chunks closes by content, as ``(min_share,
#: expected_share)``. Chosen on the 30 manuals (sizes and simulated-LLM calls only, no questions):
#: 10 manuals x 3 edits, CHOP calls re-asked per edit 3.13 (at most 11) by position -> 1.33 (at
#: most 4), for 2.4% more prompt tokens ((0.4, 0.3): 1.40, +2.9%).
CHOP_WINDOW_CUTS = (0.5, 0.3)
#: The fixed prefix: ``model: [category | nouns | model] ``. The model opens the prefix and closes the
#: signature: it is the one field that tells near-identical documents apart, and a dense embedding
#: (mean-pooled) or BM25 weighs it by its share of the text. Chosen on the manuals' tune half (dense
#: doc@1 0.903 -> 0.941, BM25 0.809 -> 0.847 over the bracketed signature alone).
DEFAULT_PREFIX_TEMPLATE = "{model}: [{category} | {nouns} | {model}] "
#: How many levels of the heading path the adaptive prefix prints, innermost first. Chosen on the
#: manuals' tune half over two levels and the whole path (docs/tuning.md, "The adaptive prefix").
SECTION_DEPTH = 1

# -- the offline category lexicon ------------------------------------------------------------------

#: Evidence weights. A cue in the caller's names (title, file name) or on the cover is the document naming
#: its own kind; "your <cue>" / "this <cue>" in the body is the text addressing its subject. Body trigger
#: words only rank the categories that already have such evidence. The numbers are an order, not a fit:
#: names > cover > addresses > triggers; not tuned on any data split.
NAME_WEIGHT, COVER_WEIGHT, ADDRESS_WEIGHT = 60.0, 30.0, 5.0
#: Fewest "your <cue>" / "this <cue>" per 10,000 words (and at least :data:`MIN_ADDRESSES` in all) that
#: count as the body naming its subject: a floor against one-off mentions, set without looking at any
#: question of either split.
MIN_ADDRESS_RATE, MIN_ADDRESSES = 2.0, 3
#: The category's addresses must also reach what the text addresses most (it is the text's subject):
#: a rule ("the most addressed"), not tuned on any data split.
MIN_ADDRESS_SHARE = 1.0
