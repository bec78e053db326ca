"""Every engine config field reaches the engine through the ``chunk`` command's flags, or is listed as object-only.

The fields are read from the configs, so a field added later without a flag (or a reason in
``NOT_ON_COMMAND_LINE``) fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chop_integrations import ScriptedLLM
from chop_integrations._cli import build_engine, build_parser
from chop_integrations._cli.options import NOT_ON_COMMAND_LINE, flag
from chop_integrations._engines import ENGINES
from chop_integrations._errors import ConfigurationError
from chop_integrations._llm import config as llm_config

#: The shipped engines' configs, by name (an engine a test defines later is not walked here).
CONFIGS = {name: engine.config_class for name, engine in ENGINES.items()}

#: A value other than both engines' defaults for every field a command line gives, as typed there.
GIVEN: dict[str, str] = {
    "on_llm_error": "raise",
    "max_concurrency": "3",
    "timeout": "7.5",
    "mode": "paper",
    "max_tokens": "300",
    "theta": "400",
    "token_counter": "chars",
    "paper_restart": "answer+1",
    "window_tokens": "900",
    "context_tokens": "32",
    "target_tokens": "50",
    "min_tokens": "10",
    "embedding": "256",
    "embedding_reserve": "16",
    "prefix": "fixed",
    "source_key": "title",
    "decisions": "pair",
}
FIELDS = [(engine, name) for engine, config in CONFIGS.items() for name in config.model_fields]


def _parse(*argv: str) -> Any:
    argv = ("chunk", *argv, "x.txt")
    return build_parser(argv).parse_args(argv)


def _flag_args(engine: str, name: str) -> list[str]:
    """The flags that set ``name`` to a value other than its default (a bool field: its negation)."""
    default = CONFIGS[engine].model_fields[name].default
    if isinstance(default, bool):
        return [flag(name) if not default else "--no-" + flag(name)[2:]]
    return [flag(name), GIVEN[name]]


@pytest.mark.parametrize(("engine", "name"), FIELDS, ids=[f"{e}.{n}" for e, n in FIELDS])
def test_every_value_field_is_a_flag_that_reaches_the_engine(engine: str, name: str) -> None:
    if name in NOT_ON_COMMAND_LINE:
        assert NOT_ON_COMMAND_LINE[name], name
        return
    config = CONFIGS[engine]
    built = build_engine(_parse("--method", engine, *_flag_args(engine, name))).config
    assert getattr(built, name) == _typed(engine, name) != config.model_fields[name].default
    others = {n for n in config.model_fields if n != name and n not in NOT_ON_COMMAND_LINE}
    assert {n: getattr(built, n) for n in others} == {n: getattr(config(), n) for n in others}


def _typed(engine: str, name: str) -> Any:
    """The value of ``_flag_args`` as the config holds it."""
    default = CONFIGS[engine].model_fields[name].default
    if isinstance(default, bool):
        return not default
    text = GIVEN[name]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


@pytest.mark.parametrize("engine", list(CONFIGS))
def test_without_flags_the_engine_has_the_config_defaults(engine: str) -> None:
    built = build_engine(_parse("--method", engine)).config
    names = [n for n in GIVEN if n in CONFIGS[engine].model_fields]
    assert {n: getattr(built, n) for n in names} == {n: getattr(CONFIGS[engine](), n) for n in names}


@pytest.mark.parametrize(("engine", "name"), [("chop", "theta"), ("lumber", "decisions")])
def test_a_flag_of_the_other_engine_is_refused(engine: str, name: str) -> None:
    with pytest.raises(ConfigurationError, match=flag(name)):
        build_engine(_parse("--method", engine, flag(name), GIVEN[name]))


@pytest.mark.parametrize("old", [["--concurrency", "3"], ["--llm-timeout", "7.5"], ["--embedding-limit", "256"]])
def test_earlier_flag_spellings_still_work(old: list[str]) -> None:
    built = build_engine(_parse(*old)).config
    assert (built.max_concurrency, built.timeout, built.embedding) != (8, None, None)


def test_cache_is_given_as_a_path_with_an_llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llm_config, "build_llm", lambda **options: ScriptedLLM(default="{}"))
    path = tmp_path / "answers.sqlite"
    engine = build_engine(_parse("--llm-model", "m", "--cache", str(path), "--max-concurrency", "2"))
    assert Path(engine.config.cache.path) == path
    assert engine.config.max_concurrency == 2 and engine.llm is not None
    assert build_engine(_parse("--llm-model", "m", "--no-cache")).config.cache is None
