"""Shared pieces of the query-time tests: near-identical manuals of four models and a hashing embedding.

The manuals differ only in the model named on the cover and in the file name (kept out of the embedded
text), so each section of one manual embeds like the same section of the others: the model comes only
from CHOP's prefix. :class:`HashingEmbedding` makes ranking meaningful without a model: a bag of hashed
words (LlamaIndex's ``MockEmbedding`` gives every text the same vector).
"""

from __future__ import annotations

import hashlib
import math
import re

from llama_index.core import Document
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.schema import BaseNode

from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser

#: Dimensions of the hashing embedding (few enough that unrelated words collide now and then).
DIMENSIONS = 256

SECTIONS = [
    "Replacing the filter\n\nTurn the purifier off and unplug it before you open the housing.\n\n"
    "Twist the filter housing to the left and pull the old cartridge out of its seat.\n\n"
    "Push a new cartridge in until it clicks, then run water for {minutes} minutes before drinking.",
    "Cleaning the tank\n\nEmpty the tank every week and wash it with warm water and a drop of mild soap.\n\n"
    "Rinse it twice and let it dry in the air before you put it back on the base.",
    "Error lights\n\nA red light means the cartridge is used up and must be replaced.\n\n"
    "A blinking blue light means the tank is not seated; lift the tank and set it down again.",
]
#: Each model and how many minutes its water runs after a new cartridge (the one fact that differs).
MINUTES = {"AP-200": "five", "AP-300": "seven", "AP-300 Pro": "nine", "AP-500": "eleven"}


def manual(model: str) -> str:
    """The manual of one model."""
    cover = f"AquaPure {model} water purifier\n\nUser manual for the AquaPure {model} countertop water purifier."
    return "\n\n".join([cover, *(section.format(minutes=MINUTES[model]) for section in SECTIONS)])


def documents() -> list[Document]:
    """One document per model, its file name hidden from the embedding and the LLM."""
    return [
        Document(
            text=manual(model),
            doc_id=model,
            metadata={"file_name": f"aquapure_{model.lower().replace(' ', '_')}.txt"},
            excluded_embed_metadata_keys=["file_name"],
            excluded_llm_metadata_keys=["file_name"],
        )
        for model in MINUTES
    ]


def ingest(embed_model: BaseEmbedding | None = None) -> list[BaseNode]:
    """The manuals through LumberChunker and CHOP (and the embedding, when given)."""
    transformations = [LumberChunkerNodeParser(max_tokens=30), CHOPExtractor()]
    return IngestionPipeline(transformations=[*transformations, *([embed_model] if embed_model else [])]).run(
        documents=documents()
    )


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return re.findall(r"\w+", text.lower())


class HashingEmbedding(BaseEmbedding):
    """A deterministic bag-of-words embedding: each word adds 1 to a hashed dimension; unit length."""

    @classmethod
    def class_name(cls) -> str:
        return "HashingEmbedding"

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * DIMENSIONS
        for word in words(text):
            vector[int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16) % DIMENSIONS] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)
