"""The real litellm transport: one contract test through litellm's own mock_response, HTTP to the loopback server
(log-probs, injected 429 / 500 / 503 / slow responses), and the guards that keep tests off the network."""

from __future__ import annotations

import math
import socket

import pytest
from loopback import LoopbackLLM, Reply, yes_reply

import citefix.llm.client as client_mod
from citefix.errors import LLMError
from citefix.llm.client import LLMClient, RemoteRequestBlocked, litellm_transport
from citefix.llm.failures import explain_error, is_transient

MSG = [{"role": "user", "content": "Is the sky blue?"}]
KEY = "sk-test-SECRET123456"


def fast(model: str, transport, **kw) -> LLMClient:
    kw.setdefault("backoff_initial", 0.001)
    kw.setdefault("backoff_max", 0.01)
    return LLMClient(model, transport=transport, **kw)


# -- contract: litellm's own mock_response ----------------------------------------------------------------------------


def test_contract_through_litellm_mock_response():
    """The real transport against litellm.completion(mock_response=...): text, usage, a discrete P(Yes), the call log."""
    c = fast("openai/gpt-4o-mini", litellm_transport(mock_response="Yes"))
    comp = c.complete(MSG, purpose="contract", max_tokens=5)
    assert comp.text == "Yes"
    assert comp.prompt_tokens and comp.completion_tokens
    yn = c.yes_probability(MSG, purpose="contract")  # mock responses carry no log-probs: parsed answer, marked discrete
    assert yn.score == 1.0 and yn.discrete is True
    recs = c.drain_calls()
    assert [r.purpose for r in recs] == ["contract", "contract"]
    assert recs[0].response == "Yes" and recs[0].model == "openai/gpt-4o-mini" and recs[0].error is None

    no = fast("openai/gpt-4o-mini", litellm_transport(mock_response="No, it is not.")).yes_probability(MSG, purpose="x")
    assert no.score == 0.0 and no.discrete


def test_contract_litellm_rate_limit_is_retried_then_explained():
    c = fast("openai/gpt-4o-mini", litellm_transport(mock_response="litellm.RateLimitError"), max_attempts=3)
    with pytest.raises(LLMError, match="kept failing after retries"):
        c.complete(MSG, purpose="x")
    [rec] = c.drain_calls()
    assert rec.attempts == 3


def test_contract_litellm_exception_classes():
    import litellm

    for cls in (litellm.RateLimitError, litellm.Timeout, litellm.APIConnectionError, litellm.InternalServerError,
                litellm.ServiceUnavailableError, litellm.BadGatewayError):
        assert is_transient(cls(message="m", llm_provider="openai", model="x")), cls.__name__
    for cls, fix in ((litellm.AuthenticationError, "API key"), (litellm.BadRequestError, "check the model string"),
                     (litellm.NotFoundError, "base URL"), (litellm.ContextWindowExceededError, "window_words")):
        exc = cls(message="m", llm_provider="openai", model="x")
        assert not is_transient(exc), cls.__name__
        assert fix in explain_error(exc, "x")


# -- guards -----------------------------------------------------------------------------------------------------------


def test_guard_blocks_a_remote_model():
    assert client_mod.ALLOW_REMOTE_REQUESTS is False  # set by tests/conftest.py for every test
    c = fast("openai/gpt-4o-mini", litellm_transport())
    with pytest.raises(RemoteRequestBlocked):
        c.complete(MSG, purpose="x")
    c = fast("openai/gpt-4o-mini", litellm_transport(api_base="https://api.example.com/v1"))
    with pytest.raises(RemoteRequestBlocked):
        c.complete(MSG, purpose="x")


def test_guard_blocks_a_remote_base_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_BASE", "https://llm.example.org/v1")
    with pytest.raises(RemoteRequestBlocked):
        fast("openai/whatever", litellm_transport()).complete(MSG, purpose="x")
    monkeypatch.setenv("OLLAMA_API_BASE", "http://gpu-box.internal:11434")
    with pytest.raises(RemoteRequestBlocked):
        fast("ollama/qwen", litellm_transport()).complete(MSG, purpose="x")


def test_socket_guard_refuses_non_loopback_connects():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(RuntimeError, match="never leave this machine"):
            s.connect(("93.184.216.34", 443))
    finally:
        s.close()
    with pytest.raises(RuntimeError, match="never leave this machine"):
        socket.create_connection(("10.1.2.3", 80), timeout=1)


def test_socket_guard_lets_loopback_through():
    with LoopbackLLM() as srv:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=2):
            pass


# -- HTTP to the loopback server ---------------------------------------------------------------------------------------


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackLLM(lambda req: yes_reply(0.8)) as srv:
        yield srv


def loop_client(srv, **kw) -> LLMClient:
    return fast("openai/test-model", litellm_transport(api_base=srv.base_url), **kw)


def test_logprobs_over_http_give_a_probability(server):
    server.responder = lambda req: Reply("Yes", [[(" Yes", math.log(0.6)), ("yes", math.log(0.1)), ("No", math.log(0.3))]])
    yn = loop_client(server).yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.7, abs=1e-6) and yn.discrete is False
    req = server.requests[-1]
    assert req["logprobs"] is True and req["top_logprobs"] >= 5 and req["temperature"] == 0
    assert req["messages"] == MSG


def test_env_base_url_is_used(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    c = fast("openai/test-model", litellm_transport())
    yn = c.yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    assert server.stats.answered == 1
    # the call log names the server the text went to, not the provider's default host
    [rec] = c.drain_calls()
    assert rec.api_base == server.base_url, rec.api_base


def test_a_failed_call_names_the_server_it_went_to(server, monkeypatch):
    """A server that drops every connection: the retried and the failed attempt are logged with the base URL the
    requests went to (from OPENAI_API_BASE), not the provider's default host that litellm's error report names."""
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    server.inject("close", "close")
    c = fast("openai/test-model", litellm_transport(), max_attempts=2)
    logged: list = []
    c.bind_log(logged.append)
    with pytest.raises(LLMError):
        c.complete(MSG, purpose="revise")
    assert [r.status for r in logged] == ["retried", "error"] and server.stats.requests == 2
    assert {r.api_base for r in logged} == {server.base_url}, [r.api_base for r in logged]


def test_usage_is_recorded(server):
    c = loop_client(server)
    c.complete(MSG, purpose="x")
    [rec] = c.drain_calls()
    assert rec.prompt_tokens and rec.completion_tokens and rec.latency_ms > 0 and rec.attempts == 1


@pytest.mark.parametrize("faults", [["429"], ["500"], ["503"], ["429", "500", "503"]])
def test_http_faults_are_retried(server, faults):
    server.inject(*faults)
    c = loop_client(server)
    yn = c.yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    assert server.stats.requests == len(faults) + 1  # our retries, not the SDK's hidden ones
    assert server.stats.faults == faults and server.stats.answered == 1
    [rec] = c.drain_calls()
    assert rec.attempts == len(faults) + 1


def test_retry_after_from_a_real_429_is_read(server):
    server.inject(("429", 0.4))
    c = loop_client(server)
    import time

    started = time.perf_counter()
    c.complete(MSG, purpose="x")
    assert time.perf_counter() - started >= 0.38
    assert server.stats.requests == 2


def test_a_slow_response_times_out_and_is_retried(server):
    server.inject(("slow", 5.0))
    c = loop_client(server, timeout=0.5)
    yn = c.yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    assert server.stats.faults == ["slow"] and server.stats.requests == 2
    [rec] = c.drain_calls()
    assert rec.attempts == 2


def test_persistent_outage_becomes_one_clear_error(server):
    server.inject(*["503"] * 3)
    c = loop_client(server, max_attempts=3)
    with pytest.raises(LLMError) as info:
        c.complete(MSG, purpose="x")
    assert "kept failing after retries" in str(info.value)
    assert server.stats.requests == 3


def test_bad_credentials_are_not_retried_and_the_key_is_redacted(server):
    server.inject("401")
    c = loop_client(server)
    with pytest.raises(LLMError) as info:
        c.complete(MSG, purpose="x")
    assert server.stats.requests == 1
    assert "API key" in str(info.value)
    assert KEY not in str(info.value)  # the server echoes the key back, as real providers do in part
    [rec] = c.drain_calls()
    assert KEY not in (rec.error or "")


def test_missing_api_key_is_not_retried_and_says_what_to_set(server, monkeypatch):
    """litellm reports a missing key as a 500; retrying cannot fix it, so the client must not retry."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    c = loop_client(server, max_attempts=4)
    with pytest.raises(LLMError) as info:
        c.complete(MSG, purpose="x")
    assert "OPENAI_API_KEY" in str(info.value) and "try again later" not in str(info.value)
    [rec] = c.drain_calls()
    assert rec.attempts == 1


def test_first_litellm_use_freezes_the_objects_alive_then_and_later_cycles_are_still_collected():
    """A full garbage collection walked litellm's ~370k objects (a ~0.25 s pause of every thread, about
    once per 500 calls); after the first import through citefix they sit in the permanent generation, while garbage
    cycles made afterwards are collected as before."""
    import gc
    import weakref

    from citefix.llm.client import _GC_FROZEN, freeze_long_lived, import_litellm

    litellm = import_litellm()
    assert litellm.suppress_debug_info is True and "import" in _GC_FROZEN
    assert gc.get_freeze_count() > 100_000  # litellm's price table and types, at least
    frozen = gc.get_freeze_count()
    freeze_long_lived("import")  # once per moment
    assert gc.get_freeze_count() == frozen
    assert fast("openai/gpt-4o-mini", litellm_transport(mock_response="Yes")).complete(MSG, purpose="x").text == "Yes"
    assert "answer" in _GC_FROZEN  # and again after the first answer: what litellm loads on the first call

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None
