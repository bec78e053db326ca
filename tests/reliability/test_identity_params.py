"""Model identities, rule by rule: what ``clean_params`` keeps, digests and drops, and when a model is cacheable.

The end-to-end tests (``test_cache_key_identity.py``) build real clients; these call the rules directly, so
a rule that goes wrong (a setting dropped, a credential kept, a digest that changes between runs) fails here
with the name that broke it.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import SecretBytes, SecretStr

from chop_integrations._llm.cache import InMemoryCache
from chop_integrations._llm.identity import (
    CREDENTIAL_NAMES,
    DIGEST_NAMES,
    PLAIN_NAMES,
    PLAIN_QUERY_NAMES,
    URL_NAMES,
    callable_is_stable,
    clean_params,
    digest,
    jsonable,
    redact_url,
    usable_cache,
)

#: A lambda at module level: its qualified name is ``<lambda>`` alone, with no ``<locals>`` to give it away.
MODULE_LAMBDA = lambda prompt: prompt  # noqa: E731


def module_function(prompt: str) -> str:
    """A module-level function: the one plain callable whose name tells it apart."""
    return prompt


# -- digest and jsonable ------------------------------------------------------------------------------------


def test_digests_are_pinned() -> None:
    """The digests of past runs: a change orphans every cached answer (and changes every model id)."""
    assert digest({"X-Route": "small"}) == "sha256:003b013a7e9ae076"
    assert digest("sk-x") == "sha256:e4faec7ee864aef0"
    assert digest([1, "二", None]) == "sha256:e196ec3d9d4b801f"


def test_a_digest_ignores_key_order_and_takes_any_text() -> None:
    assert digest({"b": 1, "a": "二"}) == digest({"a": "二", "b": 1})
    assert digest({"b": 1, "a": "二"}) != digest({"b": 1, "a": "三"})
    assert re.fullmatch(r"sha256:[0-9a-f]{16}", digest("\ud800 lone surrogate"))  # no UnicodeEncodeError
    assert digest("\ud800") != digest("\udc00")


@given(value=st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c, max_size=3)))
def test_a_digest_is_short_hex_and_never_shows_its_value(value: Any) -> None:
    shown = digest(value)
    assert re.fullmatch(r"sha256:[0-9a-f]{16}", shown)
    assert shown == digest(json.loads(json.dumps(value)))  # the same value, rebuilt: the same digest


def test_jsonable_turns_objects_into_their_class_name() -> None:
    assert jsonable(SecretStr("sk-1")) == jsonable(SecretBytes(b"sk-1")) == "<secret>"
    assert jsonable(None) is None and jsonable("a") == "a" and jsonable(2.5) == 2.5 and jsonable(True) is True
    assert jsonable({1: (2, None), "k": [Path("x")]}) == {"1": [2, None], "k": [f"<{type(Path('x')).__name__}>"]}
    assert jsonable(object()) == "<object>"


# -- redact_url ---------------------------------------------------------------------------------------------


def test_an_endpoint_keeps_where_it_points_and_hides_the_rest() -> None:
    url = "http://user:pw@Host.example:8080/v1?api-version=2024&key=sk-1&Deployment=d&blank=#frag"
    assert redact_url(url) == (
        f"http://host.example:8080/v1?api-version=2024&key={digest('sk-1')}&Deployment=d&blank={digest('')}"
    )
    assert redact_url("https://h.example/v1") == "https://h.example/v1"  # no port: none is added
    assert redact_url("file:///srv/model") == "file:///srv/model"  # no host: none is made up
    assert redact_url("http://[::1]:9/v1") == "http://[::1]:9/v1"  # an IPv6 host keeps its brackets
    assert redact_url("http://[bad") == digest("http://[bad")  # not a URL: only a digest


def test_the_plain_query_names_are_kept_in_clear() -> None:
    assert PLAIN_QUERY_NAMES == {"api-version", "api_version", "deployment", "model"}
    for name in sorted(PLAIN_QUERY_NAMES):
        assert redact_url(f"http://h/v1?{name.upper()}=x") == f"http://h/v1?{name.upper()}=x"


# -- clean_params -------------------------------------------------------------------------------------------


def test_the_plain_names_are_the_answer_settings_that_look_secret() -> None:
    """Each has a secret-looking word in it (token, key...), yet changes the answer: kept as it is."""
    assert PLAIN_NAMES == {
        *("max_tokens", "max_completion_tokens", "max_new_tokens", "max_output_tokens"),
        *("num_predict", "top_logprobs", "logprobs", "stop_sequences"),
    }


@pytest.mark.parametrize("name", sorted(PLAIN_NAMES))
def test_a_plain_name_is_kept_with_its_value(name: str) -> None:
    assert clean_params({name: 4}) == {name: 4}
    assert clean_params({name: 4}) != clean_params({name: 400})
    assert clean_params({name.upper(): ["a"]}) == {name.upper(): ["a"]}  # names are matched without case


@pytest.mark.parametrize("name", sorted(CREDENTIAL_NAMES))
def test_a_credential_is_left_out_and_what_follows_it_kept(name: str) -> None:
    assert clean_params({name: "sk-secret", "temperature": 0}) == {"temperature": 0}
    assert clean_params({name.upper(): "sk-secret"}) == {}


def test_none_and_secret_values_are_left_out_under_any_name() -> None:
    assert clean_params({"seed": None, "note": SecretStr("a"), "blob": SecretBytes(b"b"), "n": 1}) == {"n": 1}


@pytest.mark.parametrize("name", sorted(URL_NAMES))
def test_an_endpoint_setting_is_redacted(name: str) -> None:
    assert clean_params({name: "http://u:p@h:1/v1?key=k"}) == {name: f"http://h:1/v1?key={digest('k')}"}
    assert clean_params({name: 7}) == {name: 7}  # not a string: not a URL


@pytest.mark.parametrize("name", sorted(DIGEST_NAMES))
def test_headers_and_extras_become_a_digest(name: str) -> None:
    value = {"Authorization": "Bearer sk-1", "X-Route": "small"}
    assert clean_params({name: value}) == {name: digest(value)}


@pytest.mark.parametrize("name", ["x_api_key_header", "session_cookie", "my_auth", "user_credential", "refresh_token"])
def test_a_name_that_looks_secret_becomes_a_digest(name: str) -> None:
    assert clean_params({name: "hidden"}) == {name: digest("hidden")}


def test_other_settings_stay_as_they_are_and_nested_ones_are_cleaned() -> None:
    params = {
        "temperature": 0.5,
        "prompt_prefix": "Q: why? a=b",  # looks like a URL with a query: not an endpoint, kept verbatim
        "stop": ["\n\n", "END"],
        "model_kwargs": {"api_key": "sk-1", "top_k": 3, "seed": None, "extra_headers": {"a": "b"}},
        7: "seven",
    }
    assert clean_params(params) == {
        "temperature": 0.5,
        "prompt_prefix": "Q: why? a=b",
        "stop": ["\n\n", "END"],
        "model_kwargs": {"top_k": 3, "extra_headers": digest({"a": "b"})},
        "7": "seven",
    }


answer_names = st.from_regex(r"[a-z][a-z_]{0,20}", fullmatch=True).filter(
    lambda n: n not in CREDENTIAL_NAMES | URL_NAMES | DIGEST_NAMES
)
values = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=10), st.booleans())


@given(name=answer_names, one=values, other=values)
def test_two_values_of_an_answer_setting_never_share_an_identity(name: str, one: Any, other: Any) -> None:
    if json.dumps(one) != json.dumps(other):  # as the identity is written: 1, 1.0 and True differ there
        assert json.dumps(clean_params({name: one})) != json.dumps(clean_params({name: other}))


@given(name=st.sampled_from(sorted(CREDENTIAL_NAMES | DIGEST_NAMES)), secret=st.text("abcdefXYZ0123", min_size=8))
def test_no_credential_or_header_value_can_be_read_in_an_identity(name: str, secret: str) -> None:
    assert secret not in json.dumps(clean_params({name: secret, "headers": {"k": secret}}))


# -- callable_is_stable and usable_cache --------------------------------------------------------------------


def test_only_module_functions_have_a_stable_identity() -> None:
    assert callable_is_stable(module_function) and callable_is_stable(len)  # a builtin of a module too
    assert not callable_is_stable(MODULE_LAMBDA)
    assert not callable_is_stable([].append)  # a builtin method of one list: another list answers otherwise
    assert not callable_is_stable("a".upper)
    assert not callable_is_stable(_Model()) and not callable_is_stable(functools.partial(module_function))

    def nested(prompt: str) -> str:
        return prompt

    assert not callable_is_stable(nested)


class _Model:
    model_id = "m-17"

    def __call__(self, prompt: str) -> str:
        return prompt


def test_a_model_says_whether_its_identity_can_key_a_cache(caplog: pytest.LogCaptureFixture) -> None:
    cache = InMemoryCache()
    assert usable_cache(_Model(), cache) is cache  # no stable_identity attribute: cacheable
    assert usable_cache(_Model(), None) is None
    unstable = _Model()
    unstable.stable_identity = False  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING, logger="chop_integrations"):
        assert usable_cache(unstable, cache) is None
        assert usable_cache(unstable, cache) is None
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1  # once per model
    assert messages[0] == (
        "the LLM m-17 has no stable identity (a functools.partial, lambda, nested function or callable object "
        "shares its name with others that may answer differently), so its answers are not cached; to cache "
        "them, name the model and its settings: CallableLLM(fn, model_id='my-model:temperature=0')"
    )
