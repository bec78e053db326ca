"""One home for headings: which lines head a section, their levels, and the heading path of a chunk.

* :mod:`.lines`: the cues of one line (markdown ``#``, setext underlines, a plain line shaped like a
  heading);
* :mod:`.levels`: a heading unit's level and LlamaIndex's ``header_path`` of each chunk;
* :mod:`.markup`: markdown and reStructuredText heading markup;
* :mod:`.labels`: a chunk's section label from its heading path (innermost headings, long titles cut short);
* :mod:`.outline`: a document's headings and the path of the section a chunk opens in (the CHOP
  signature's nouns), read from the whole text;
* :mod:`.stream`: the same paths, built as the text arrives;
* :mod:`.reader`: the one question every caller asks (segmentation, cuts, CHOP, the offline readers): where the
  outline's headings start, and which a text opens with.
"""

from .labels import ELLIPSIS, innermost, short_title
from .levels import HeadingStack, chunk_heading_paths, heading_level, heading_path
from .lines import (
    LETTER,
    MAX_HEADING_CHARS,
    MAX_HEADING_WORDS,
    NUMBER_LABEL,
    NUMBERED,
    SURE_HEADING,
    VERSION,
    atx_heading,
    continues_line,
    is_heading_line,
    is_indented,
    is_markdown_heading,
    is_setext_underline,
)
from .outline import (
    DOC_TYPES,
    DOC_WORDS,
    OPENING_CHARS,
    HeadingLevels,
    Headings,
    adornment,
    has_marked_headings,
    heading_title,
    is_doc_words,
    marked_heading,
    runs_on,
    section_title,
)
from .reader import heading_starts, opening_titles, outline_of
from .stream import HeadingStream, markdown_within

__all__ = [
    "DOC_TYPES",
    "DOC_WORDS",
    "ELLIPSIS",
    "LETTER",
    "MAX_HEADING_CHARS",
    "MAX_HEADING_WORDS",
    "NUMBERED",
    "NUMBER_LABEL",
    "OPENING_CHARS",
    "SURE_HEADING",
    "VERSION",
    "HeadingLevels",
    "HeadingStack",
    "HeadingStream",
    "Headings",
    "adornment",
    "atx_heading",
    "chunk_heading_paths",
    "continues_line",
    "has_marked_headings",
    "heading_level",
    "heading_path",
    "heading_starts",
    "heading_title",
    "innermost",
    "is_doc_words",
    "is_heading_line",
    "is_indented",
    "is_markdown_heading",
    "is_setext_underline",
    "markdown_within",
    "marked_heading",
    "opening_titles",
    "outline_of",
    "runs_on",
    "section_title",
    "short_title",
]
