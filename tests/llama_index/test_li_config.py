"""The LlamaIndex components' configuration: kept engines, config=, chunker=, corpus=, Settings.llm, progress."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest
from li_fakes import ScriptedCustomLLM
from llama_index.core import Document, Settings
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from chop_integrations import CHOPConfig, CorpusState, LumberChunker, LumberConfig
from chop_integrations._errors import ConfigurationError
from chop_integrations.llama_index import CHOPExtractor, LumberChunkerNodeParser
from tests.support.config_samples import SAMPLES

TEXT = "\n\n".join(
    f"Section {i}. The Galaxy S21 camera lens is cleaned with a soft dry cloth before use. " * 3 for i in range(8)
)


def nodes_of(doc_id: str, texts: list[str], **metadata: Any) -> list[TextNode]:
    source = RelatedNodeInfo(node_id=doc_id)
    return [TextNode(text=t, metadata=dict(metadata), relationships={NodeRelationship.SOURCE: source}) for t in texts]


def test_the_engine_is_kept_and_rebuilt_only_when_a_field_changes() -> None:
    parser = LumberChunkerNodeParser(max_tokens=60)
    parser.get_nodes_from_documents([Document(text=TEXT)])
    engine = parser._engine()
    parser.get_nodes_from_documents([Document(text=TEXT)])
    assert parser._engine() is engine  # not rebuilt per call
    parser.max_tokens = 80
    assert parser._engine() is not engine and parser._engine().settings.max_tokens == 80
    extractor = CHOPExtractor()
    kept = extractor._engine()
    extractor.extract(nodes_of("d", ["One.", "Two."]))
    assert extractor._engine() is kept
    extractor.decisions = "pair"
    assert extractor._engine() is not kept and extractor._engine().config.decisions == "pair"


def test_an_invalid_field_is_refused_when_set_too() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        LumberChunkerNodeParser(max_tokens=0)
    parser = LumberChunkerNodeParser()
    with pytest.raises(ConfigurationError, match="max_tokens"):
        parser.max_tokens = -1
    assert parser.max_tokens == parser.config.max_tokens == 550  # nothing changed


def test_config_sets_the_fields_and_keywords_override_it() -> None:
    parser = LumberChunkerNodeParser.from_defaults(config=LumberConfig(max_tokens=77, theta=300), theta=400)
    assert (parser.max_tokens, parser.theta) == (77, 400)
    assert parser.to_dict()["max_tokens"] == 77
    extractor = CHOPExtractor(config=CHOPConfig(decisions="pair"))
    assert extractor.decisions == "pair" and extractor.to_dict()["decisions"] == "pair"
    with pytest.raises(ConfigurationError, match="LumberConfig"):
        LumberChunkerNodeParser(config=CHOPConfig())


def test_the_node_parser_takes_a_ready_chunker_as_the_splitter_does() -> None:
    llm = ScriptedCustomLLM()
    chunker = LumberChunker(llm, max_tokens=90, theta=200)
    parser = LumberChunkerNodeParser.from_defaults(chunker=chunker)
    assert (parser.max_tokens, parser.theta) == (90, 200) and "scripted-custom" in parser.llm_id
    doc = Document(text=TEXT)
    nodes = parser.get_nodes_from_documents([doc])
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in chunker.chunk(TEXT)]
    with pytest.raises(ConfigurationError, match="chunker"):
        LumberChunkerNodeParser(chunker=chunker, max_tokens=10, llm=llm)


def test_the_extractor_groups_documents_by_source_key() -> None:
    # two LlamaIndex documents (a PDF reader's pages) of one file: grouped by file_name they are one document
    pages = nodes_of(
        "page-1", ["Galaxy S21 camera: clean the camera lens with a soft cloth before taking photos."], file_name="s21"
    ) + nodes_of(
        "page-2", ["Camera lens care: avoid touching the lens; a fingerprint blurs every photo."], file_name="s21"
    )
    by_page = CHOPExtractor().extract(pages)
    by_file = CHOPExtractor(source_key="file_name").extract(pages)
    assert by_page[1]["chop_continues"] is False  # a new document starts fresh
    assert by_file[1]["chop_continues"] is True  # the same document continues


def test_corpus_reaches_the_engine_and_observe_corpus_keeps_one() -> None:
    corpus = CorpusState()
    extractor = CHOPExtractor(corpus=corpus)
    assert extractor._engine().corpus is corpus
    assert "corpus" in extractor.to_dict()["object_ids"] and "corpus" not in extractor.to_dict()
    told = CHOPExtractor()
    assert told.corpus is None and "corpus" not in told.object_ids
    told.observe_corpus([Document(text="x", metadata={"file_name": n}) for n in ("X100 manual", "P200 manual")])
    assert told.corpus is not None and told._engine().corpus is told.corpus
    told.decisions = "pair"  # a rebuilt engine still reads what the extractor was told
    assert told._engine().corpus is told.corpus and told.corpus.counts()["model"] == 2


def test_llm_settings_reads_llama_index_settings_and_the_default_stays_offline() -> None:
    previous = Settings._llm
    model = ScriptedCustomLLM(model_name="from-settings")
    Settings.llm = model
    try:
        parser = LumberChunkerNodeParser(llm="settings", max_tokens=60)
        extractor = CHOPExtractor(llm="settings")
        assert parser.llm is model and "from-settings" in parser.llm_id and "from-settings" in extractor.llm_id
        parser.get_nodes_from_documents([Document(text=TEXT)])
        assert model.prompts
        assert LumberChunkerNodeParser().llm_id == "offline" and CHOPExtractor().llm_id == "offline"
        other = ScriptedCustomLLM(model_name="later")
        Settings.llm = other
        parser.llm = "settings"  # read again when set again
        assert parser.llm is other
    finally:
        Settings._llm = previous


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_show_progress_draws_a_bar_over_the_documents_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = [Document(text=TEXT, doc_id=f"d{i}") for i in range(3)]
    parser = LumberChunkerNodeParser(max_tokens=60, max_concurrency=2)
    quiet = parser.get_nodes_from_documents(docs)
    parser.get_nodes_from_documents(docs, show_progress=True)
    CHOPExtractor(show_progress=True).extract(nodes_of("d", ["One.", "Two."]))
    err = capsys.readouterr().err  # stderr is no terminal here: no bar in logs or pipes
    assert "Chunking documents" not in err and "CHOP signatures" not in err
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    shown = parser.get_nodes_from_documents(docs, show_progress=True)
    assert "Chunking documents" in terminal.getvalue() and "3/3" in terminal.getvalue()
    assert [n.text for n in shown] == [n.text for n in quiet]  # slices of max_concurrency: the same nodes
    CHOPExtractor(show_progress=True).extract(nodes_of("d", ["One.", "Two."]))
    assert "CHOP signatures" in terminal.getvalue()


def test_a_misspelt_option_is_refused_with_the_closest_name() -> None:
    with pytest.raises(ConfigurationError, match="did you mean 'max_tokens'"):
        LumberChunkerNodeParser(max_tokns=100)
    with pytest.raises(ConfigurationError, match="did you mean 'decisions'"):
        CHOPExtractor.from_dict({**CHOPExtractor().to_dict(), "decision": "pair"})


# -- the fields are the configs' own, and each one that changes the output is in the cache key ----------------

#: Options that change where answers come from, not what they are: kept out of the pipeline cache key.
UNKEYED = ("cache", "retry", "max_calls", "max_llm_tokens", "on_progress")
COMPONENT_FIELDS = [(c, n) for c in (LumberChunkerNodeParser, CHOPExtractor) for n in c.CONFIG.model_fields]


@pytest.mark.parametrize("component", [LumberChunkerNodeParser, CHOPExtractor])
def test_the_fields_are_the_config_fields(component: Any) -> None:
    for name, info in component.CONFIG.model_fields.items():
        field = component.model_fields[name]
        assert (field.default, field.description) == (info.default, info.description), name


@pytest.mark.parametrize("component", [LumberChunkerNodeParser, CHOPExtractor])
def test_the_defaults_are_the_configs_own(component: Any) -> None:
    built = component()
    for name in component.CONFIG.model_fields:
        default = getattr(component.CONFIG(), name)
        assert getattr(built.config, name) == default, name
        if name != "source_key":  # CHOPExtractor groups nodes by it and gives the engine its own key
            assert getattr(built._engine().config, name) == default, name


@pytest.mark.parametrize(
    ("component", "name"), COMPONENT_FIELDS, ids=[f"{c.__name__}.{n}" for c, n in COMPONENT_FIELDS]
)
def test_every_output_changing_field_is_in_the_pipeline_cache_key(component: Any, name: str) -> None:
    value = SAMPLES[name]()
    data = component(**{name: value}).to_dict()
    if name in UNKEYED:
        assert name not in data and name not in data["object_ids"]
        assert data == component().to_dict()
        return
    if isinstance(value, (str, int, float, bool)):
        assert data[name] == value  # a plain value is written as it is
    else:
        assert data[name] is None and name in data["object_ids"]  # an object by its identity
    assert data != component().to_dict()


def test_a_ready_engine_of_another_kind_is_kept_whole_and_in_the_cache_key() -> None:
    from chop_integrations import CHOPChunker

    parser = LumberChunkerNodeParser(chunker=CHOPChunker(prefix="fixed"))
    assert isinstance(parser._engine(), CHOPChunker) and "engine" in parser.to_dict()["object_ids"]
    other = LumberChunkerNodeParser(chunker=CHOPChunker(prefix="fixed", max_tokens=90)).to_dict()["object_ids"]
    assert other["engine"] != parser.to_dict()["object_ids"]["engine"]
    with pytest.raises(ConfigurationError, match="LumberChunker or another Engine"):
        LumberChunkerNodeParser(chunker=str.split)
