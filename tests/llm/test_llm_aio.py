"""litellm's async path on citefix's event loop (citefix/llm/aio.py): a call nothing registered with litellm
listens to goes through litellm.acompletion on one background loop, the worker thread waiting for it; a call something
listens to stays on sync litellm.completion; a call litellm's own timeout does not end is cancelled and given up on."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from llm_helpers import MSG

from citefix.llm import aio
from citefix.llm.client import LLMClient, import_litellm, litellm_transport
from citefix.llm.failures import TransientLLMError
from citefix.llm.unobserved import litellm_listens


@pytest.fixture
def litellm_spy(monkeypatch):
    """Which of litellm's entry points each call used, and on which thread."""
    litellm = import_litellm()
    seen: list[tuple[str, str]] = []
    real_async, real_sync = litellm.acompletion, litellm.completion

    async def acompletion(**kwargs):
        seen.append(("acompletion", threading.current_thread().name))
        return await real_async(**kwargs)

    def completion(**kwargs):
        seen.append(("completion", threading.current_thread().name))
        return real_sync(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    monkeypatch.setattr(litellm, "completion", completion)
    return seen


def test_an_unobserved_call_runs_on_the_shared_event_loop(yes_server, litellm_spy):
    assert not litellm_listens(import_litellm()), "another test left a litellm callback registered"
    c = LLMClient("openai/test-model", transport=litellm_transport(api_base=yes_server.base_url), concurrency=4)
    answers = c.map(lambda i: c.yes_probability(MSG + [{"role": "user", "content": str(i)}], purpose="verify"), range(8))
    assert [a.score for a in answers] == [pytest.approx(0.8, abs=1e-6)] * 8
    assert litellm_spy == [("acompletion", "citefix-llm-loop")] * 8
    calls = c.drain_calls()
    assert len(calls) == 8 and all(r.status == "ok" and r.prompt_tokens and r.completion_tokens for r in calls)
    assert yes_server.stats.answered == 8


def test_a_call_litellm_listens_to_stays_on_its_sync_path(yes_server, litellm_spy, monkeypatch):
    litellm = import_litellm()
    monkeypatch.setattr(litellm, "success_callback", [lambda kwargs, response, start, end: None])
    c = LLMClient("openai/test-model", transport=litellm_transport(api_base=yes_server.base_url))
    assert c.yes_probability(MSG, purpose="verify").score == pytest.approx(0.8, abs=1e-6)
    assert litellm_spy == [("completion", threading.current_thread().name)]


def test_a_call_that_outlives_its_timeout_is_cancelled_and_fails_as_a_timeout(monkeypatch):
    monkeypatch.setattr(aio, "GRACE", 0.2)
    cancelled = threading.Event()

    async def never():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    started = time.monotonic()
    with pytest.raises(TimeoutError):
        aio.run_on_loop(never, timeout=0.1)
    assert time.monotonic() - started < 2
    assert cancelled.wait(2), "the call was left running on the loop"

    class Hanging:  # a litellm whose own timeout never fires
        callbacks: list = []

        async def acompletion(self, **kwargs):
            await asyncio.sleep(3600)

    with pytest.raises(TransientLLMError, match="timed out after 0.1 s"):
        aio.litellm_call(Hanging(), {"model": "openai/x"}, 0.1)


def test_the_loop_is_one_per_process_and_outlives_its_calls():
    loop = aio.background_loop()
    assert aio.background_loop() is loop and loop.is_running()

    async def answer():
        return 42

    assert aio.run_on_loop(answer, timeout=1) == 42
    assert aio.background_loop() is loop


def test_a_model_litellm_has_no_entry_for_is_declared_free_to_it_once_and_stays_unknown_to_citefix(yes_server):
    from citefix.estimate import price
    from citefix.llm.unpriced import UNPRICED_MARK

    litellm = import_litellm()
    model = "openai/test-unpriced-aio-model"
    assert price(model, 1000, 100) is None and model not in litellm.model_cost
    c = LLMClient(model, transport=litellm_transport(api_base=yes_server.base_url))
    c.complete(MSG, purpose="x")
    c.complete(MSG + MSG, purpose="x")
    entry = litellm.model_cost[model]
    assert entry[UNPRICED_MARK] is True and entry["input_cost_per_token"] == entry["output_cost_per_token"] == 0.0
    assert [r.cost for r in c.drain_calls()] == [None, None]  # unknown in the call log, not $0
    assert price(model, 1000, 100) is None  # and unknown to the estimate

    priced = LLMClient("openai/gpt-4o-mini", transport=litellm_transport(api_base=yes_server.base_url))
    priced.complete(MSG, purpose="x")
    assert UNPRICED_MARK not in litellm.model_cost["gpt-4o-mini"] and priced.drain_calls()[0].cost > 0


def test_no_model_is_declared_free_while_litellm_has_a_listener(yes_server, monkeypatch):
    litellm = import_litellm()
    monkeypatch.setattr(litellm, "success_callback", [lambda kwargs, response, start, end: None])
    model = "openai/test-unpriced-observed-model"
    LLMClient(model, transport=litellm_transport(api_base=yes_server.base_url)).complete(MSG, purpose="x")
    assert model not in litellm.model_cost
