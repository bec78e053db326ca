"""One long manual through the LangChain transformer or the LlamaIndex extractor, with ``show_progress=True``.

``python benchmarks/progress/frameworks.py langchain|llama_index BASE_URL FILE``: the framework's own OpenAI
client talks to ``BASE_URL`` (the slow test server, ``slow_server.py``); the bar draws on the terminal, then
the run's usage report is printed, to compare with the bar's last line.
"""

from __future__ import annotations

import sys
from pathlib import Path


def langchain(base_url: str, text: str, name: str) -> object:
    """CHOP through ``CHOPDocumentTransformer`` (chunked by its built-in LumberChunker) with ``ChatOpenAI``."""
    from langchain_core.documents import Document
    from langchain_openai import ChatOpenAI

    from chop_integrations.langchain import CHOPDocumentTransformer

    model = ChatOpenAI(model="chop-test-model", base_url=base_url, api_key="test", max_retries=0, temperature=0)
    chop = CHOPDocumentTransformer(model, chunk=True, decisions="pair", max_concurrency=4, show_progress=True)
    chop.transform_documents([Document(page_content=text, metadata={"source": name})])
    return chop.last_usage


def llama_index(base_url: str, text: str, name: str) -> object:
    """CHOP through ``CHOPExtractor`` after the LumberChunker node parser, with LlamaIndex's ``OpenAI``."""
    from llama_index.core import Document
    from llama_index.llms.openai import OpenAI

    from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

    model = OpenAI(model="gpt-4o-mini", api_base=base_url, api_key="test", max_retries=0, temperature=0.0)
    nodes = LumberChunkerNodeParser().get_nodes_from_documents([Document(text=text, metadata={"source": name})])
    extractor = CHOPExtractor(llm=model, decisions="pair", max_concurrency=4)  # show_progress: on by default
    extractor(nodes)
    return extractor.last_usage


if __name__ == "__main__":
    framework, base_url, path = sys.argv[1:4]
    text = Path(path).read_text(encoding="utf-8")
    usage = {"langchain": langchain, "llama_index": llama_index}[framework](base_url, text, Path(path).name)
    print(f"usage: {usage.summary()}", file=sys.stderr)  # type: ignore[attr-defined]
