"""Worker functions for the multiprocessing pickling tests (importable by a spawned child)."""

from __future__ import annotations

from typing import Any


def answer_true(prompt: str) -> str:
    """A module-level LLM callable (picklable by reference): every question answered ``TRUE``."""
    return '{"starts": []}' if "starts" in prompt else "TRUE"


def run(component: Any, text: str) -> list[str]:
    """Chunk ``text`` with any public engine or adapter; return the chunk texts."""
    name = type(component).__name__
    if name in ("LumberChunker", "CHOPChunker"):
        return [chunk.text for chunk in component.chunk(text)]
    if name == "LumberChunkerTextSplitter":
        return list(component.split_text(text))
    if name == "CHOPDocumentTransformer":
        from langchain_core.documents import Document

        return [doc.page_content for doc in component.transform_documents([Document(text)])]
    if name == "LumberChunkerNodeParser":
        from llama_index.core.schema import Document as LIDocument

        return [node.get_content() for node in component.get_nodes_from_documents([LIDocument(text=text)])]
    if name == "CHOPExtractor":
        from llama_index.core.schema import TextNode

        nodes = [TextNode(text=part) for part in text.split("\n\n")]
        return [str(meta.get("chop_prefix")) for meta in component.extract(nodes)]
    raise TypeError(name)
