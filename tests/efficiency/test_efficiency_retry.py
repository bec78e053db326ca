"""Retries, backoff and timeouts, driven by a fake clock: no test here sleeps through a backoff."""

from __future__ import annotations

import asyncio
import email.utils
import random

import httpx
import openai
import pytest
from efficiency_fakes import FakeClock, FlakyLLM, HangingLLM, HTTPError
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._errors import ConfigurationError, LLMCallError, LLMTimeoutError
from chop_integrations._llm.aio import acall_in_daemon_thread
from chop_integrations._llm.protocol import CallableLLM
from chop_integrations._llm.retry import RetryPolicy, is_transient, retry_after, status_code
from chop_integrations._llm.runner import LLMRunner
from chop_integrations._llm.usage import UsageReport

REQUEST = httpx.Request("POST", "http://llm.test/v1/chat/completions")


def openai_error(cls: type[openai.APIStatusError], status: int, headers: dict[str, str] | None = None) -> Exception:
    return cls("failed", response=httpx.Response(status, headers=headers, request=REQUEST), body=None)


def policy(clock: FakeClock, **options: object) -> RetryPolicy:
    return RetryPolicy(sleep=clock.sleep, asleep=clock.asleep, rng=random.Random(0), now=clock.time, **options)


def runner(llm: object, clock: FakeClock, *, timeout: float | None = None, **options: object) -> LLMRunner:
    return LLMRunner(
        llm,  # type: ignore[arg-type]
        usage=UsageReport(),
        token_counter=lambda text: len(text.split()),
        retry=policy(clock, **options),
        timeout=timeout,
    )


# -- classification ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (openai_error(openai.RateLimitError, 429, {"retry-after": "7"}), True),
        (openai_error(openai.InternalServerError, 500), True),
        (openai_error(openai.InternalServerError, 503), True),
        (openai.APIConnectionError(request=REQUEST), True),
        (openai.APITimeoutError(request=REQUEST), True),
        (openai_error(openai.BadRequestError, 400), False),
        (openai_error(openai.AuthenticationError, 401), False),
        (openai_error(openai.NotFoundError, 404), False),
        (httpx.ConnectError("refused"), True),
        (httpx.ReadTimeout("slow"), True),
        (ConnectionResetError(), True),
        (TimeoutError(), True),
        (LLMTimeoutError("timed out"), True),
        (HTTPError(408), True),
        (HTTPError(429), True),
        (HTTPError(502), True),
        (HTTPError(422), False),
        (ValueError("bad prompt"), False),
        (KeyError("x"), False),
    ],
)
def test_is_transient(error: Exception, transient: bool) -> None:
    assert is_transient(error) is transient


def test_status_code_ignores_bools_and_reads_response() -> None:
    error = HTTPError(503)
    assert status_code(error) == 503
    flagged = ValueError("x")
    flagged.status = True  # type: ignore[attr-defined]
    assert status_code(flagged) is None


def test_retry_after_from_openai_rate_limit_headers() -> None:
    assert retry_after(openai_error(openai.RateLimitError, 429, {"Retry-After": "7"})) == 7.0
    assert retry_after(openai_error(openai.RateLimitError, 429, {"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    assert retry_after(openai_error(openai.RateLimitError, 429)) is None


def test_retry_after_http_date_uses_the_injected_clock() -> None:
    clock = FakeClock(start=1_700_000_000.0)
    date = email.utils.formatdate(clock.time() + 12, usegmt=True)
    assert retry_after(HTTPError(429, {"Retry-After": date}), now=clock.time) == pytest.approx(12.0)
    past = email.utils.formatdate(clock.time() - 100, usegmt=True)
    assert retry_after(HTTPError(429, {"Retry-After": past}), now=clock.time) == 0.0


def test_retry_after_ignores_garbage_and_negative_values() -> None:
    assert retry_after(HTTPError(429, {"Retry-After": "soon"})) is None
    assert retry_after(HTTPError(429, {"Retry-After": "-5"})) == 0.0
    error = ValueError("x")
    error.retry_after = 3  # type: ignore[attr-defined]
    assert retry_after(error) == 3.0


# -- the policy ----------------------------------------------------------------------------


def test_backoff_doubles_with_bounded_jitter() -> None:
    rp = RetryPolicy(max_attempts=6, base_delay=1.0, max_delay=100.0, jitter=0.25, rng=random.Random(1))
    delays = [rp.delay(TimeoutError(), attempt) for attempt in range(1, 6)]
    for attempt, delay in enumerate(delays, start=1):
        nominal = 2 ** (attempt - 1)
        assert delay is not None and 0.75 * nominal <= delay <= 1.25 * nominal
    assert rp.delay(TimeoutError(), 6) is None  # attempts are bounded


def test_jitter_spreads_workers_apart() -> None:
    rp = RetryPolicy(base_delay=1.0, jitter=0.5, rng=random.Random(3))
    assert len({rp.delay(TimeoutError(), 1) for _ in range(20)}) > 10


def test_without_jitter_delays_are_exact_and_capped() -> None:
    rp = RetryPolicy(max_attempts=10, base_delay=0.5, max_delay=3.0, jitter=0.0)
    assert [rp.delay(HTTPError(500), a) for a in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_retry_after_replaces_backoff_and_is_capped() -> None:
    rp = RetryPolicy(max_attempts=5, base_delay=0.5, max_delay=20.0)
    assert rp.delay(HTTPError(429, {"Retry-After": "7"}), 1) == 7.0
    assert rp.delay(HTTPError(429, {"Retry-After": "3600"}), 1) == 20.0


def test_non_transient_errors_are_never_retried() -> None:
    assert RetryPolicy(max_attempts=10).delay(ValueError("bad"), 1) is None


@given(
    attempt=st.integers(min_value=1, max_value=60),
    base=st.floats(min_value=0, max_value=10),
    cap=st.floats(min_value=0, max_value=100),
    jitter=st.floats(min_value=0, max_value=1),
    seed=st.integers(0, 2**32),
)
def test_delay_is_always_bounded(attempt: int, base: float, cap: float, jitter: float, seed: int) -> None:
    rp = RetryPolicy(max_attempts=50, base_delay=base, max_delay=cap, jitter=jitter, rng=random.Random(seed))
    delay = rp.delay(TimeoutError(), attempt)
    if attempt >= 50:
        assert delay is None
    else:
        assert delay is not None and 0 <= delay <= cap * (1 + jitter) + 1e-9


@pytest.mark.parametrize(
    "options",
    [{"max_attempts": 0}, {"base_delay": -1.0}, {"max_delay": -0.1}, {"jitter": 1.5}, {"max_attempts": 2.5}],
)
def test_bad_policy_arguments_say_how_to_fix(options: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        RetryPolicy(**options)  # type: ignore[arg-type]


# -- the runner: sync and async paths ------------------------------------------------------


@pytest.fixture(params=["sync", "async"])
def ask(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    def call(r: LLMRunner, prompt: str = "hello") -> str:
        if request.param == "sync":
            return r.ask(prompt)
        return asyncio.run(r.aask(prompt))

    return call


def test_429_waits_as_long_as_retry_after_says(ask) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    llm = FlakyLLM([openai_error(openai.RateLimitError, 429, {"retry-after": "7"})], default="fine")
    r = runner(llm, clock)
    assert ask(r) == "fine"
    assert clock.sleeps == [7.0]
    assert (llm.calls, r.usage.calls, r.usage.retries) == (2, 2, 1)


def test_500s_back_off_exponentially_then_succeed(ask) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    llm = FlakyLLM([HTTPError(500), HTTPError(502), HTTPError(503)], default="fine")
    r = runner(llm, clock, max_attempts=4, base_delay=1.0, jitter=0.0)
    assert ask(r) == "fine"
    assert clock.sleeps == [1.0, 2.0, 4.0]
    assert r.usage.retries == 3


def test_connection_errors_are_retried(ask) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    llm = FlakyLLM([openai.APIConnectionError(request=REQUEST), ConnectionResetError()], default="fine")
    r = runner(llm, clock, max_attempts=3)
    assert ask(r) == "fine"
    assert len(clock.sleeps) == 2


def test_attempts_are_bounded(ask) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    llm = FlakyLLM([], default="unused")
    llm.script = [HTTPError(500)] * 50
    r = runner(llm, clock, max_attempts=3)
    with pytest.raises(LLMCallError, match="3 attempt"):
        ask(r)
    assert llm.calls == 3
    assert len(clock.sleeps) == 2
    assert (r.usage.calls, r.usage.retries) == (3, 2)


def test_non_transient_error_fails_at_once(ask) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    llm = FlakyLLM([openai_error(openai.BadRequestError, 400)])
    r = runner(llm, clock, max_attempts=5)
    with pytest.raises(LLMCallError, match="BadRequestError"):
        ask(r)
    assert llm.calls == 1
    assert clock.sleeps == []
    assert r.usage.retries == 0


@pytest.mark.parametrize("wrap", [False, True])
def test_sync_timeout_fires_on_a_blocking_model(wrap: bool) -> None:
    clock = FakeClock()
    llm = HangingLLM()
    model = CallableLLM(llm.complete, model_id="blocking") if wrap else llm
    r = runner(model, clock, timeout=0.05, max_attempts=2)
    try:
        with pytest.raises(LLMTimeoutError, match="timed out"):
            r.ask("hello")
        assert llm.calls == 2  # a timeout is transient: retried once, then given up
        assert llm.finished == 0  # the runner gave up without waiting for the blocked calls
        assert len(clock.sleeps) == 1
    finally:
        llm.release.set()


def test_async_timeout_fires_on_a_hanging_model() -> None:
    clock = FakeClock()
    llm = HangingLLM()
    r = runner(llm, clock, timeout=0.05, max_attempts=3)
    with pytest.raises(LLMTimeoutError, match="timed out"):
        asyncio.run(r.aask("hello"))
    assert llm.calls == 3
    assert len(clock.sleeps) == 2


def test_timeout_then_success(ask) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    llm = FlakyLLM([TimeoutError()], default="fine")
    r = runner(llm, clock, timeout=5.0)
    assert ask(r) == "fine"
    assert r.usage.retries == 1


async def test_daemon_thread_call_is_not_joined_by_the_loop() -> None:
    import threading

    release = threading.Event()
    try:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(acall_in_daemon_thread(release.wait, 10.0), 0.05)
        assert await acall_in_daemon_thread(lambda: "done") == "done"
        with pytest.raises(ZeroDivisionError):
            await acall_in_daemon_thread(lambda: 1 / 0)
    finally:
        release.set()


def test_a_custom_sync_sleep_serves_the_async_path() -> None:
    clock = FakeClock()
    llm = FlakyLLM([HTTPError(500)], default="fine")
    retry = RetryPolicy(sleep=clock.sleep, rng=random.Random(0), now=clock.time)
    r = LLMRunner(llm, usage=UsageReport(), token_counter=len, retry=retry)  # type: ignore[arg-type]
    assert r.ask("hello") == "fine"
    assert len(clock.sleeps) == 1
