"""LumberChunker: topic-shift chunking, default (windowed) and paper mode.

:mod:`.chunker` holds the engine, :mod:`.plans` the windows and groups it asks about, :mod:`.prompts`
the prompts, answers and the LLM topic-shift decider.

The document is cut into units (paragraphs, split further where one is over
``max_tokens``; see :mod:`chop_integrations._text.segmentation`). A decider (an LLM
through :class:`~chop_integrations._lumber.prompts.LLMTopicShift`, or the
offline decider when ``llm=None``) then says where topics shift.

``mode="paper"`` follows Duarte et al. (2024) and its code: a group of units
grows while its prompt text stays under ``theta`` tokens, the model names the
first unit where the content clearly changes, the chunk ends there, and the
next group starts at that unit (``paper_restart="answer"``, the paper) or one
unit later (``"answer+1"``, the original code). Answers are validated, so the
procedure always moves forward; the last units are judged too. Each group
depends on the last answer, so paper mode is sequential within a document
(concurrent across documents, longest first).

``mode="default"`` (ours) cuts the document into fixed windows of
``window_tokens`` new units, each prompt numbering its units window-relative
and showing a short unnumbered tail of the text before it as context, and asks
for every topic start in the window at once, with an explicit "none here"
answer. No window depends on another's answer, so every window of every
document is asked at once (up to ``max_concurrency`` calls in flight), and the
answers are merged: each named unit starts a chunk, and a span over
``max_tokens`` is cut into balanced pieces, preferring heading units (see
:mod:`chop_integrations._lumber.plans`). Prompt tokens stay close to the
document's own (amplification about 1.1 instead of the original's 1.44), and
the result does not depend on the order in which answers arrive.
"""

from .chunker import LumberChunker
from .config import LumberConfig

__all__ = ["LumberChunker", "LumberConfig"]
