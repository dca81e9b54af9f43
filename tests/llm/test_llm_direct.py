"""The direct transport (citefix/llm/direct.py) against the real loopback server: the same request and the
same P(Yes) as litellm, faults retried and logged with litellm's error classes, the remote guard, the setting that
chooses it, and `citefix check --verifier llm` end to end through the CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import rows
from loopback import LoopbackLLM, Reply, messages_responder, yes_reply
from refine_fakes import acu_responder

from citefix.config import Settings, load_settings
from citefix.errors import ConfigError, LLMError
from citefix.llm import direct
from citefix.llm.client import LLMClient, RemoteRequestBlocked, litellm_transport
from citefix.llm.direct import openai_compatible_transport
from citefix.pipeline import build_llm

MSG = [{"role": "user", "content": "Is the sky blue?"}]
KEY = "sk-test-SECRET123456"
MODEL = "openai/test-model"
EXAMPLE = Path(__file__).resolve().parents[2] / "citefix" / "examples" / "summary.json"


def fast(transport, **kw) -> LLMClient:
    kw.setdefault("backoff_initial", 0.001)
    kw.setdefault("backoff_max", 0.01)
    return LLMClient(MODEL, transport=transport, **kw)


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackLLM(lambda req: yes_reply(0.8)) as srv:
        yield srv


def logged_client(srv, **kw) -> tuple[LLMClient, list]:
    """A client of the direct transport whose every call and failed attempt lands in the returned list."""
    c = fast(openai_compatible_transport(srv.base_url), **kw)
    log: list = []
    c.bind_log(log.append)
    return c, log


# -- the same request and answer as litellm ----------------------------------------------------------------------------

ANSWERS = [
    yes_reply(0.8),
    yes_reply(0.13),
    Reply("Yes", [[(" Yes", math.log(0.6)), ("yes", math.log(0.1)), ("No", math.log(0.3))]]),
    Reply("\n\nNo", [[("\n\n", -0.01), ("Yes", -5.0)], [("No", math.log(0.7)), ("Yes", math.log(0.2))]]),
    Reply("No idea"),  # no alternatives: the server sends each token alone (log-prob 0)
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_scores_and_request_equal_litellms(server, answer):
    server.responder = lambda req: answer
    via_litellm = fast(litellm_transport(api_base=server.base_url))
    via_direct = fast(openai_compatible_transport(server.base_url))
    a, b = via_litellm.yes_probability(MSG, purpose="verify"), via_direct.yes_probability(MSG, purpose="verify")
    assert (b.score, b.discrete, b.answer, b.error) == (a.score, a.discrete, a.answer, a.error)
    ca, cb = via_litellm.complete(MSG, purpose="x", top_logprobs=5), via_direct.complete(MSG, purpose="x", top_logprobs=5)
    assert (cb.text, cb.top_logprobs, cb.prompt_tokens, cb.completion_tokens) == (
        ca.text, ca.top_logprobs, ca.prompt_tokens, ca.completion_tokens)
    sent_by_litellm, sent_directly = server.requests[0], server.requests[1]
    assert sent_directly["model"] == "test-model"  # litellm's `openai/` prefix is not sent
    assert sent_directly == {k: sent_by_litellm[k] for k in sent_directly}
    assert set(sent_directly) == {"model", "messages", "max_tokens", "temperature", "logprobs", "top_logprobs"}
    assert server.authorizations[1] == f"Bearer {KEY}"


def test_no_logprobs_asked_none_sent_and_cost_unknown(server):
    c, log = logged_client(server)
    comp = c.complete(MSG, purpose="x", max_tokens=7)
    assert "logprobs" not in server.requests[0] and "top_logprobs" not in server.requests[0]
    assert server.requests[0]["max_tokens"] == 7
    assert comp.top_logprobs is None and comp.cost is None and comp.prompt_tokens == 4
    [rec] = log
    assert rec.status == "ok" and rec.cost is None and rec.api_base == server.base_url


def test_without_a_key_no_authorization_is_sent(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    assert fast(openai_compatible_transport(server.base_url)).complete(MSG, purpose="x").text == "Yes"
    assert server.authorizations == [""]


def test_calls_in_flight_share_one_session_and_overlap(server):
    """16 calls, 8 at a time, to a 0.2 s server take two rounds, not sixteen. The first round opens the connections
    (the loopback server's listen backlog of 5 can hold one of 8 new connections back a whole second); the timed
    round goes over them again."""
    server.latency = 0.2
    c = fast(openai_compatible_transport(server.base_url), concurrency=8)
    c.map(lambda i: c.complete([{"role": "user", "content": f"warm-up {i}"}], purpose="x"), range(8))
    started = time.perf_counter()
    answers = c.map(lambda i: c.complete([{"role": "user", "content": str(i)}], purpose="x"), range(16))
    elapsed = time.perf_counter() - started
    assert [a.text for a in answers] == ["Yes"] * 16
    assert 2 <= server.max_in_flight <= 8 and elapsed < 1.2  # 16 calls of 0.2 s one after another: 3.2 s
    assert len([s for _, s in direct._SESSIONS.values() if not s.closed]) == 1


# -- faults: retried or not, logged with litellm's classes -------------------------------------------------------------


@pytest.mark.parametrize("fault, kind", [("500", "server_error"), ("503", "server_error"), ("429", "rate_limit"),
                                         ("truncated", "malformed_response"), ("empty_choices", "malformed_response"),
                                         ("no_message", "malformed_response"), ("close", "connection")])
def test_a_transient_fault_is_retried_and_logged_with_its_class(server, fault, kind):
    server.inject(fault)
    c, log = logged_client(server)
    assert c.yes_probability(MSG, purpose="verify").score == pytest.approx(0.8, abs=1e-6)
    assert server.stats.faults == [fault] and server.stats.requests == 2
    assert [(r.status, r.error_class, r.attempt) for r in log] == [("retried", kind, 1), ("ok", None, 2)]
    assert all(r.api_base == server.base_url for r in log)


def test_retry_after_of_a_429_is_honoured(server):
    server.inject(("429", 0.4))
    c, log = logged_client(server)
    started = time.perf_counter()
    c.complete(MSG, purpose="x")
    assert time.perf_counter() - started >= 0.38
    assert [r.error_class for r in log] == ["rate_limit", None]


def test_a_slow_answer_times_out_and_is_retried(server):
    server.inject(("slow", 5.0))
    c, log = logged_client(server, timeout=0.5)
    started = time.perf_counter()
    assert c.yes_probability(MSG, purpose="verify").score == pytest.approx(0.8, abs=1e-6)
    assert time.perf_counter() - started < 2.5  # given up after 0.5 s, not after the 5 s answer
    assert [(r.status, r.error_class) for r in log] == [("retried", "timeout"), ("ok", None)]
    assert "timed out after 0.5 s" in log[0].error


def test_a_400_is_not_retried_and_carries_the_servers_message(server):
    def broken(req):
        raise ValueError("no such template")

    server.responder = broken  # the loopback server answers 400 with the responder's error
    c, log = logged_client(server, max_attempts=4)
    with pytest.raises(LLMError, match="rejected the request") as info:
        c.complete(MSG, purpose="x")
    assert "no such template" in str(info.value)
    assert server.stats.requests == 1
    assert [(r.status, r.error_class, r.attempts) for r in log] == [("error", "bad_request", 1)]


def test_a_404_is_not_retried_and_names_the_base_url(server):
    c, log = logged_client(server, max_attempts=4)
    c.transport = openai_compatible_transport(server.base_url.removesuffix("/v1") + "/wrong")
    with pytest.raises(LLMError, match="not found") as info:
        c.complete(MSG, purpose="x")
    assert "unknown path /wrong/chat/completions" in str(info.value) and "OPENAI_API_BASE" in str(info.value)
    assert [(r.status, r.error_class, r.attempts) for r in log] == [("error", "not_found", 1)]


def test_a_refused_key_is_not_retried_and_never_echoed(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    secret = "given-not-from-the-environment-123"  # redact() knows only the environment's values: the transport strips it
    server.inject("401")
    c, log = logged_client(server, max_attempts=4)
    c.transport = openai_compatible_transport(server.base_url, api_key=secret)
    with pytest.raises(LLMError, match="refused the credentials") as info:
        c.complete(MSG, purpose="x")
    assert server.authorizations == [f"Bearer {secret}"] and server.stats.requests == 1
    assert secret not in str(info.value) and "[REDACTED]" in str(info.value)
    assert [r.error_class for r in log] == ["auth"] and secret not in log[0].error


def test_a_server_that_is_not_there_is_a_connection_error(server):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c, log = logged_client(server, max_attempts=2)
    c.transport = openai_compatible_transport(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(LLMError, match="kept failing after retries"):
        c.complete(MSG, purpose="x")
    assert [(r.status, r.error_class) for r in log] == [("retried", "connection"), ("error", "connection")]


# -- guards and set-up ------------------------------------------------------------------------------------------------


def test_a_remote_base_is_blocked_in_tests():
    c = fast(openai_compatible_transport("https://api.example.com/v1"))
    with pytest.raises(RemoteRequestBlocked):
        c.complete(MSG, purpose="x")


@pytest.mark.parametrize("base", ["127.0.0.1:8000/v1", "ftp://127.0.0.1/v1", "http:///v1"])
def test_a_base_that_is_not_an_http_url_is_a_config_error(base):
    with pytest.raises(ConfigError, match="not an http"):
        openai_compatible_transport(base)


def test_the_setting_chooses_the_transport(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    monkeypatch.setenv("CITEFIX_LLM_TRANSPORT", "direct")
    settings = load_settings(llm=MODEL)
    assert settings.llm_transport == "direct"
    client = build_llm(MODEL, settings)
    assert client.transport.__module__ == "citefix.llm.direct" and client.endpoint() == server.base_url
    assert client.yes_probability(MSG, purpose="verify").score == pytest.approx(0.8, abs=1e-6)
    default = build_llm(MODEL, load_settings(llm=MODEL, llm_transport="litellm"))
    assert default.transport.__module__ == "citefix.llm.client"


def test_the_config_file_key_and_a_bad_value(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('llm_transport = "direct"\n', encoding="utf-8")
    monkeypatch.setenv("CITEFIX_CONFIG", str(config))
    assert load_settings().llm_transport == "direct"
    with pytest.raises(ConfigError, match=r"llm_transport 'httpx' \(from --llm-transport\): use litellm .* or direct"):
        load_settings(llm_transport="httpx")


def test_direct_without_a_base_url_says_what_to_set(monkeypatch):
    with pytest.raises(ConfigError, match="llm_transport = 'direct' needs the server's base URL.*OPENAI_API_BASE"):
        build_llm(MODEL, Settings(llm=MODEL, llm_transport="direct"))


def test_a_router_model_keeps_the_router(monkeypatch):
    """A model name of the [router] table goes through the Router even with `direct` (and needs no base URL); other
    model names go direct. (The Router itself is stood in for: building one registers callbacks with litellm.)"""
    from citefix.llm import router
    from citefix.llm.router import validate_router

    the_router = lambda table: None  # noqa: E731
    monkeypatch.setattr(router, "router_transport", lambda table: the_router)
    table = validate_router({"model_list": [{"model_name": "qwen", "litellm_params": {
        "model": MODEL, "api_base": "http://127.0.0.1:9/v1"}}]}, "test")
    settings = Settings(llm="qwen", llm_transport="direct", router=table)
    assert build_llm("qwen", settings).transport is the_router
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")
    assert build_llm(MODEL, settings).transport.__module__ == "citefix.llm.direct"


def test_max_cost_with_direct_says_that_no_cost_is_counted(capsys):
    """The direct transport prices nothing, so --max-cost cannot stop it, even for a model litellm has a price for."""
    from types import SimpleNamespace

    from citefix.commands.common import apply_budget

    apply_budget(SimpleNamespace(max_cost=1.0), Settings(llm="openai/gpt-4o-mini", llm_transport="direct"))
    assert "llm_transport 'direct' records no cost for 'openai/gpt-4o-mini'" in capsys.readouterr().err
    apply_budget(SimpleNamespace(max_cost=1.0), Settings(llm="openai/gpt-4o-mini"))
    assert capsys.readouterr().err == ""  # through litellm it has a price: counted, nothing to say


def test_the_cache_is_shared_with_litellm_for_the_same_server(server, store, monkeypatch):
    """The same request to the same server: an answer cached through litellm answers the direct transport."""
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    first = build_llm(MODEL, Settings(llm=MODEL), store)
    assert first.yes_probability(MSG, purpose="verify").score == pytest.approx(0.8, abs=1e-6)
    second = build_llm(MODEL, Settings(llm=MODEL, llm_transport="direct"), store)
    again = second.complete(MSG, purpose="verify", max_tokens=5, top_logprobs=20)
    assert again.cached and server.stats.requests == 1
    other = build_llm("openai/other-model", Settings(llm=MODEL, llm_transport="direct"), store)
    assert not other.complete(MSG, purpose="verify", max_tokens=5, top_logprobs=20).cached


# -- end to end through the CLI -----------------------------------------------------------------------------------------


def run_cli(*args, env_extra: dict[str, str], tmp_path):
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env_extra}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG", "OPENAI_BASE_URL",
                "OPENAI_API_BASE", "OPENAI_API_KEY", "CITEFIX_LLM_TRANSPORT"):
        if var not in env_extra:
            env.pop(var, None)
    return subprocess.run([sys.executable, "-m", "citefix.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)


def test_check_through_the_cli_with_the_direct_transport(tmp_path):
    """No OPENAI_API_KEY: litellm would refuse an `openai/` model without one; the direct transport sends none."""
    with LoopbackLLM(messages_responder(acu_responder())) as srv:
        faults = ["500", "429", "truncated"]
        srv.inject(*faults)
        db = tmp_path / "run.db"
        r = run_cli("check", str(EXAMPLE), "--llm", MODEL, "--verifier", "llm", "--llm-transport", "direct",
                    "--db", str(db), env_extra={"OPENAI_API_BASE": srv.base_url}, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "Unclosed" not in r.stderr
    assert set(srv.authorizations) == {""} and srv.stats.faults == faults
    verdicts = rows(db, "select * from verdicts")
    assert verdicts and all(v["discrete"] == 0 for v in verdicts)
    assert sorted({round(v["score"], 4) for v in verdicts}) == [0.08, 0.93]  # read from the top log-probs
    calls = rows(db, "select * from calls")
    assert len(calls) == srv.stats.requests
    assert {c["api_base"] for c in calls} == {srv.base_url}
    assert sorted(c["error_class"] for c in calls if c["status"] == "retried") == [
        "malformed_response", "rate_limit", "server_error"]
    ok = [c for c in calls if c["status"] == "ok"]
    assert ok and all(c["cost"] is None and c["prompt_tokens"] for c in ok)
    assert all(json.loads(c["logprobs"])[0]["top"] for c in ok if c["purpose"] == "acu_verify")


def test_check_with_direct_and_no_base_url_exits_2(tmp_path):
    r = run_cli("check", str(EXAMPLE), "--llm", MODEL, env_extra={"CITEFIX_LLM_TRANSPORT": "direct"},
                tmp_path=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "llm_transport = 'direct' needs the server's base URL" in r.stderr and "OPENAI_API_BASE" in r.stderr
