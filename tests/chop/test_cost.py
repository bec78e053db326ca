"""What CHOP's LLM decisions cost on the manuals, per decision mode (simulated LLM, no network).

Run with ``pytest tests/chop/test_cost.py -s`` to see the table. The base chunks come
from the offline LumberChunker (no calls), so every call and token counted is CHOP's own.
The simulated LLM answers like a careful model would on manuals: a passage that opens
with a heading starts a new topic.
"""

from __future__ import annotations

import json
import re

import pytest

from chop_integrations._chop.chunker import CHOPChunker
from chop_integrations._llm.protocol import CallableLLM
from chop_integrations._lumber.chunker import LumberChunker
from chop_integrations._offline import OfflineContinuity
from tests.support.data import MANUALS

SIGNATURE = {"category": "smartphone", "nouns": ["settings"], "model": "Galaxy X"}
_OPENS = OfflineContinuity().opens_section


def simulated(prompt: str) -> str:
    """Deterministic answers for every CHOP prompt kind."""
    if prompt.startswith("Signature of the passage"):
        return json.dumps(SIGNATURE)
    if prompt.startswith("Passages [1].."):
        items = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
        opens = not items or items[0][0] != "0"
        answers = [
            SIGNATURE if (n == "1" and opens) or _OPENS(text.replace(" / ", "\n")) else True
            for n, text in items
            if n != "0"
        ]
        return json.dumps({"passages": answers})
    found = re.search(r"^B starts: (.*?)\n(?:Answer|JSON only)", prompt, re.M | re.S)
    new = _OPENS(found.group(1) if found else "")
    if '{"continues": true}' in prompt:
        return json.dumps({"continues": False, "cnm": SIGNATURE}) if new else '{"continues": true}'
    return "FALSE" if new else "TRUE"


@pytest.mark.slow
@pytest.mark.skipif(not MANUALS.is_dir(), reason="needs ../shared/data/manuals")
def test_window_mode_is_the_cheapest_and_within_the_amplification_target():
    files = sorted(MANUALS.glob("*.txt"))[:3]
    texts = [f.read_text(encoding="utf-8") for f in files]
    metas = [{"source": f.name} for f in files]
    base = LumberChunker(None)
    rows = {}
    for decisions in ("window", "pair", "separate"):
        chunker = CHOPChunker(CallableLLM(simulated, model_id="sim"), chunker=base, decisions=decisions)
        out = chunker.chunk_many(texts, metadatas=metas)
        usage = chunker.last_usage
        assert usage.fallbacks == 0 and usage.invalid_answers == 0
        estimate = chunker.estimate(texts, metas)
        rows[decisions] = usage
        false = sum(c.continues_previous is False for d in out for c in d)
        print(
            f"\n{decisions:9s} docs={usage.documents} chunks={usage.chunks} false={false} calls={usage.calls} "
            f"prompt={usage.prompt_tokens} completion={usage.completion_tokens} doc_tokens={usage.document_tokens} "
            f"amplification={usage.amplification:.3f} estimate_calls={estimate.calls} "
            f"estimate_prompt={estimate.prompt_tokens}"
        )
        assert abs(estimate.calls - usage.calls) <= 0.02 * usage.calls  # the estimate assumes offline answers
    window, pair, separate = rows["window"], rows["pair"], rows["separate"]
    assert window.prompt_tokens < pair.prompt_tokens < separate.prompt_tokens
    assert window.calls < pair.calls < separate.calls
    assert window.amplification <= 1.3
