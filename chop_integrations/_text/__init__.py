"""Text below the engines: tokens, units and structure, with no model and no engine.

:mod:`.tokens` (token counters), :mod:`.segmentation` (paragraph units with exact offsets), :mod:`.pieces`
(cutting an over-long block into units that fit), :mod:`.cuts` (where a chunk may end: a heading stays with its
body), :mod:`.structure` (sentences, clauses, words, lines, fences, lists, tables), :mod:`.headings` (heading
lines, levels and paths), :mod:`.embedding_limit` (how many tokens an embedding model reads).
"""
