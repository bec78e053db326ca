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
    "BUILTIN_TARGET_TOKENS",
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_MAX_TOKENS",
    "MIN_SHARE",
    "PREFIX_RESERVE",
    "TARGET_SHARE",
    "WINDOW_FACTOR",
]

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

# -- CHOP ------------------------------------------------------------------------------------------

#: Tokens of the embedder's limit the built-in LumberChunker leaves for the prefix when ``embedding``
#: is set: the longest offline prefix on the first 10 manuals was 29 tokens (no questions used).
PREFIX_RESERVE = 48
#: The built-in LumberChunker's target when the document's prefix prints its name: 0, sections as they
#: are (no joining). Chosen on the manuals' tune half (dense and BM25 retrieval, doc@1 and span@1); a
#: document whose prefix prints no name gets LumberChunker's own sizes instead (chosen on the anonymised
#: manuals' tune half). The scores are in docs/tuning.md, "The built-in chunker's sizes".
BUILTIN_TARGET_TOKENS = 0
