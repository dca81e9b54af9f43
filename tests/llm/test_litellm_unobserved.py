"""litellm's success logging (its logging threads) is skipped for a call nothing registered with litellm
listens to; tokens and price still reach citefix's call log, and a registered litellm callback still gets every call."""

from __future__ import annotations

import threading
import time

import pytest
from llm_helpers import MSG

from citefix.llm.client import LLMClient, import_litellm, litellm_transport
from citefix.llm.unobserved import litellm_listens


@pytest.fixture
def success_handlers(monkeypatch):
    """The success handlers litellm hands to its logging thread pool (a spy: the real pool still runs them)."""
    litellm = import_litellm()
    import litellm.utils as lu

    pool = lu.executor
    seen: list[str] = []
    real_submit = pool.submit

    def submit(fn, *args, **kwargs):
        target = args[0] if args and callable(args[0]) else fn
        seen.append(getattr(target, "__name__", repr(target)))
        return real_submit(fn, *args, **kwargs)

    monkeypatch.setattr(pool, "submit", submit)
    assert not litellm_listens(litellm), "another test left a litellm callback registered"
    return seen


def test_an_unobserved_call_skips_litellm_success_logging_and_keeps_tokens_and_price(yes_server, success_handlers):
    # a model litellm has a price for, served by the loopback server: the price comes from litellm as before
    c = LLMClient("openai/gpt-4o-mini", transport=litellm_transport(api_base=yes_server.base_url))
    yn = c.yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    [rec] = c.drain_calls()
    assert rec.prompt_tokens and rec.completion_tokens and rec.cost and rec.cost > 0
    time.sleep(0.2)
    assert "success_handler" not in success_handlers, success_handlers


def test_a_registered_litellm_callback_still_gets_the_call(yes_server, success_handlers, monkeypatch):
    litellm = import_litellm()
    got = threading.Event()

    def on_success(kwargs, response, start, end):
        got.set()

    monkeypatch.setattr(litellm, "success_callback", [on_success])
    assert litellm_listens(litellm)
    c = LLMClient("openai/test-model", transport=litellm_transport(api_base=yes_server.base_url))
    c.complete(MSG, purpose="x")
    assert got.wait(5), "litellm's success callback was not called"
    assert "success_handler" in success_handlers


def test_the_marker_does_not_outlive_the_call(yes_server):
    from litellm._internal_context import is_internal_call

    c = LLMClient("openai/test-model", transport=litellm_transport(api_base=yes_server.base_url))
    c.complete(MSG, purpose="x")
    assert is_internal_call.get() is False
