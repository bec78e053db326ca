"""Default mode's fixed windows: asked concurrently, merged losslessly, independent of answer order."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chop_integrations._deciders import DocContext
from chop_integrations._errors import LLMCallError
from chop_integrations._lumber.chunker import LumberChunker
from chop_integrations._lumber.plans import WindowPlan, balanced_cuts
from chop_integrations._text.cuts import keep_with_body
from chop_integrations._text.segmentation import split_units
from chop_integrations._text.tokens import default_counter
from chop_integrations.testing import ScriptedLLM

from .fakes import HeadingShift, SectionLLM
from .test_lumber import NO_SLEEP, check_invariants, documents

COUNT = default_counter()
_RANGE = re.compile(r"\(#(\d+) to #(\d+)\)")


def _manual(sections: int = 12) -> str:
    body = []
    for i in range(sections):
        sentences = " ".join(f"Step {j} of task {i} explains how the feature {i} works in detail." for j in range(8))
        body.append(f"Section {i} title\n{sentences}")
    return "\n\n".join(body) + "\n"


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).digest()[:8], "big")


def _hostile_answer(prompt: str, seed: int) -> str:
    """A deterministic answer per prompt: valid, out of range, repeated, wrong types or chatter."""
    rng = random.Random(_digest(prompt, seed))
    found = _RANGE.search(prompt)
    hi = int(found.group(2)) if found else 3
    kind = rng.randrange(6)
    if kind == 0:
        return "no idea, sorry"
    if kind == 1:
        return json.dumps({"starts": [rng.randint(-5, hi + 5) for _ in range(rng.randrange(6))]})
    if kind == 2:
        return json.dumps({"starts": sorted(rng.sample(range(1, hi + 1), min(hi, rng.randrange(4))))})
    if kind == 3:
        return json.dumps({"starts": ["x", None, True, 2.5]})
    if kind == 4:
        return json.dumps({"starts": list(range(1, hi + 1))})  # a cut at every paragraph
    return '{"starts": []}'


class ShuffledLLM:
    """Holds every call until ``expected`` have arrived, then answers them in a seeded random order."""

    model_id = "shuffled"

    def __init__(self, expected: int, seed: int, answer: object) -> None:
        self.expected = expected
        self.rng = random.Random(seed)
        self.answer = answer
        self.waiting: list[tuple[str, asyncio.Future[str]]] = []
        self.arrived: list[str] = []
        self.completed: list[str] = []

    def complete(self, prompt: str) -> str:
        return self.answer(prompt)  # type: ignore[operator]

    async def acomplete(self, prompt: str) -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.waiting.append((prompt, future))
        self.arrived.append(prompt)
        if len(self.waiting) >= self.expected:
            batch, self.waiting = self.waiting, []
            self.rng.shuffle(batch)
            for waiting_prompt, waiting in batch:
                waiting.set_result(self.answer(waiting_prompt))  # type: ignore[operator]
        answer = await asyncio.wait_for(future, 5)  # bounded: a miscount fails the test instead of hanging it
        self.completed.append(prompt)
        return answer


def _engine(llm: object, **options: object) -> LumberChunker:
    options = {"max_tokens": 120, "window_tokens": 300, "fallback": HeadingShift(), "retry": NO_SLEEP, **options}
    return LumberChunker(llm, **options)  # type: ignore[arg-type]


# -- concurrency ------------------------------------------------------------------------------


async def test_windows_of_one_document_are_asked_concurrently() -> None:
    active, peak, seen = 0, 0, 0
    gate = asyncio.Event()

    async def slow(prompt: str) -> str:
        nonlocal active, peak, seen
        active += 1
        seen += 1
        peak = max(peak, active)
        if active == 5:
            gate.set()
        try:  # hold every call until five run at once (bounded, so a serial engine fails instead of hanging)
            await asyncio.wait_for(gate.wait(), 5)
        except asyncio.TimeoutError:
            pass
        active -= 1
        return '{"starts": []}'

    lc = _engine(slow, max_concurrency=5)
    await lc.achunk(_manual(20))
    assert seen >= 10  # one document, many windows
    assert peak == 5  # never more than max_concurrency


async def test_max_concurrency_one_is_sequential() -> None:
    active, peak = 0, 0

    async def slow(prompt: str) -> str:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0)
        active -= 1
        return '{"starts": []}'

    lc = _engine(slow, max_concurrency=1)
    await lc.achunk_many([_manual(12), _manual(5)])
    assert lc.last_usage.calls > 5
    assert peak == 1


def test_sync_chunk_asks_windows_from_a_thread_pool() -> None:
    lock, active, peak = threading.Lock(), 0, 0
    gate = threading.Event()

    def blocking(prompt: str) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
            if active == 3:
                gate.set()
        gate.wait(5)  # bounded, as above
        with lock:
            active -= 1
        return '{"starts": []}'

    lc = _engine(blocking, max_concurrency=3)
    text = _manual(20)
    check_invariants(text, lc.chunk(text), 120)
    assert peak == 3


async def test_raise_cancels_the_windows_still_waiting() -> None:
    cancelled = 0
    first: list[str] = []

    async def first_fails(prompt: str) -> str:
        nonlocal cancelled
        first[:] = first or [prompt]
        if prompt == first[0]:  # the first window asked fails at once (and on every retry)
            raise RuntimeError("provider down")
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled += 1
            raise
        return '{"starts": []}'

    lc = _engine(first_fails, on_llm_error="raise", max_concurrency=4)
    with pytest.raises(LLMCallError) as info:
        await lc.achunk(_manual(20), metadata={"source": "m.txt"})
    assert info.value.document == "m.txt"
    assert cancelled >= 1


# -- determinism ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
async def test_result_does_not_depend_on_completion_order(seed: int) -> None:
    texts = [_manual(18), _manual(7), "Short note.\n\nAnother line here.\n"]
    reference_llm = SectionLLM(COUNT, min_tokens=60, max_tokens=150)
    expected = _engine(reference_llm, max_concurrency=1).chunk_many(texts)
    calls = _engine(None).estimate(texts).calls
    shuffled = ShuffledLLM(calls, seed, SectionLLM(COUNT, min_tokens=60, max_tokens=150).complete)
    lc = _engine(shuffled, max_concurrency=calls)
    assert await lc.achunk_many(texts) == expected
    assert len(shuffled.completed) == calls
    assert shuffled.completed != shuffled.arrived  # the answers really came back in another order
    assert lc.chunk_many(texts) == expected  # sync entry point, same plan


# -- the merge --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(text=documents(), max_tokens=st.integers(8, 150), seed=st.integers(0, 10**6), workers=st.integers(1, 6))
async def test_merged_result_is_lossless_and_bounded_under_hostile_answers(
    text: str, max_tokens: int, seed: int, workers: int
) -> None:
    llm = ScriptedLLM(default=lambda prompt: _hostile_answer(prompt, seed))
    lc = LumberChunker(
        llm,
        max_tokens=max_tokens,
        window_tokens=max_tokens * 2,
        max_concurrency=workers,
        retry=NO_SLEEP,
        fallback=HeadingShift(),
    )
    chunks = await lc.achunk(text, metadata={"source": "d.txt"})
    check_invariants(text, chunks, max_tokens, {"source": "d.txt"})
    assert lc.last_usage.calls <= 2 * lc.estimate([text]).calls  # one corrective retry per window at most
    assert lc.chunk(text, metadata={"source": "d.txt"}) == chunks  # the sync entry point: the same chunks


@given(
    sizes=st.lists(st.integers(1, 60), min_size=1, max_size=40),
    headings=st.lists(st.booleans(), min_size=40, max_size=40),
    answers=st.lists(st.lists(st.one_of(st.integers(-3, 50), st.booleans(), st.text(max_size=2))), max_size=60),
    max_tokens=st.integers(60, 200),
    window=st.integers(1, 300),
    context=st.integers(0, 80),
)
def test_window_plan_merge(
    sizes: list[int], headings: list[bool], answers: list[list], max_tokens: int, window: int, context: int
) -> None:
    text = "".join(f"{'H' if headings[i] else 'p'}{'x' * (size - 1)}\n\n" for i, size in enumerate(sizes))
    units = split_units(text, max_tokens=max_tokens, token_counter=len)
    plan = WindowPlan(DocContext("d", text), units, max_tokens=max_tokens, window_tokens=window, context_tokens=context)
    # Windows: contiguous numbered runs covering every unit once; context only before the numbered units.
    numbered = [i for w in plan.windows for i in range(w.first_index + w.seen, w.first_index + len(w.units))]
    assert numbered == list(range(len(units)))
    assert all(w.seen >= 1 for w in plan.windows[1:]) and plan.windows[0].seen == 0
    padded = (answers + [[]] * len(plan.windows))[: len(plan.windows)]
    starts = plan.merge(padded)
    assert starts[0] == 0 and starts == sorted(set(starts))
    for a, b in zip(starts, [*starts[1:], len(units)], strict=True):
        assert b - a == 1 or plan.cum[b] - plan.cum[a] <= max_tokens
    # Every valid index an answer names starts a chunk (the window's first numbered unit included), or the
    # headings right above it do.
    for w, shifts in zip(plan.windows, padded, strict=True):
        lo = max(1, w.seen)
        for i in shifts:
            if type(i) is int and lo <= i < len(w.units):
                assert keep_with_body(plan.units, w.first_index + i, max_tokens) in starts
    with pytest.raises(ValueError):
        plan.merge([*padded, []])


def test_balanced_cuts_prefer_headings_and_balance() -> None:
    text = "".join(f"{'H' if i == 5 else 'p'}{'x' * 19}\n\n" for i in range(10))
    units = split_units(text, max_tokens=100, token_counter=len)
    cum = [0]
    for unit in units:
        cum.append(cum[-1] + unit.tokens)
    assert [u.tokens for u in units] == [22] * 9 + [22]
    assert balanced_cuts(units, cum, 0, 10, 150) == [5]  # 110 / 110, and unit 5 is a heading
    assert balanced_cuts(units, cum, 0, 10, 1000) == []
    assert balanced_cuts(units, cum, 0, 10, 22) == list(range(1, 10))


# -- prompts and estimate ---------------------------------------------------------------------


def test_the_first_unit_of_every_later_window_is_a_candidate() -> None:
    recorder = ScriptedLLM(default='{"starts": [1]}')
    lc = _engine(recorder, max_concurrency=1)
    text = _manual(10)
    chunks = lc.chunk(text)
    starts = {c.start for c in chunks}
    windows = WindowPlan(
        DocContext("0", text),
        split_units(text, max_tokens=120, token_counter=COUNT),
        max_tokens=120,
        window_tokens=300,
        context_tokens=64,
    ).windows
    asked = [w for w in windows if len(w.units) > 1]  # a first window of one unit has nothing to ask
    assert len(asked) == len(recorder.prompts) > 3
    for window, prompt in zip(asked, recorder.prompts, strict=True):
        opening = window.first_index == 0 and window.seen == 0
        assert ("(#2 to" in prompt) == opening and ("Context (" in prompt) != opening
    assert all(w.units[w.seen].start in starts for w in windows[1:])  # "#1" of each window opened a chunk


def test_estimate_is_exact_whatever_the_model_answers() -> None:
    texts = [_manual(16), _manual(3), ""]
    estimate = _engine(ScriptedLLM([])).estimate(texts)
    run = _engine(SectionLLM(COUNT, min_tokens=60, max_tokens=150))
    run.chunk_many(texts)
    assert run.last_usage.fallbacks == 0
    assert (estimate.calls, estimate.prompt_tokens, estimate.document_tokens, estimate.documents) == (
        run.last_usage.calls,
        run.last_usage.prompt_tokens,
        run.last_usage.document_tokens,
        run.last_usage.documents,
    )
