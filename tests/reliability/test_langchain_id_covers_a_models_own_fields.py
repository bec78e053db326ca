"""A LangChain chat model's id holds the fields of its own class, not only what it lists itself.

A chat model class of one's own rarely overrides ``_identifying_params`` (LangChain's default is empty), so
two instances that load different weights shared one id and one cache. Every plain field the class adds
to ``BaseChatModel`` now enters the id, except client plumbing (timeouts, retries, streaming).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from chop_integrations.langchain._model_info import langchain_model_id


class SizedChat(BaseChatModel):
    """A local chat model whose answers depend on the weights it loads."""

    size: str = "small"
    request_timeout: float = 30.0

    @property
    def _llm_type(self) -> str:
        return "sized"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.size))])


def test_a_field_of_a_chat_model_class_of_ones_own_is_in_the_id() -> None:
    assert langchain_model_id(SizedChat(size="small")) != langchain_model_id(SizedChat(size="big"))


def test_client_plumbing_is_not_in_the_id() -> None:
    assert langchain_model_id(SizedChat(request_timeout=1.0)) == langchain_model_id(SizedChat(request_timeout=99.0))


def test_chat_openai_context_management_is_in_the_id() -> None:
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI

    def model(**settings: Any) -> str:
        return langchain_model_id(ChatOpenAI(model="gpt-4o-mini", api_key="sk-x", **settings))

    assert model() == model(timeout=3, max_retries=7)
    assert model(context_management=[{"type": "compaction"}]) != model()
