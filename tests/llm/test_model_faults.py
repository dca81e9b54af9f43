"""Model faults handled as a trusted client would: malformed 200s and dropped connections are retried and named,
timeouts/attempts/backoff/deadline are settings, a hanging provider trips a breaker, and every attempt reaches the
call log as it completes."""

from __future__ import annotations

import time

import pytest
from helpers import rows
from loopback import LoopbackLLM, yes_reply

from citefix.errors import LLMError
from citefix.llm.client import LLMClient, litellm_transport

MSG = [{"role": "user", "content": "Is the sky blue?"}]
KEY = "sk-test-FAULTS123456"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackLLM(lambda req: yes_reply(0.8)) as srv:
        yield srv


def loop_client(srv, **kw) -> LLMClient:
    kw.setdefault("backoff_initial", 0.001)
    kw.setdefault("backoff_max", 0.01)
    return LLMClient("openai/test-model", transport=litellm_transport(api_base=srv.base_url), **kw)


@pytest.mark.parametrize("fault, kind", [("empty_choices", "malformed_response"), ("no_message", "malformed_response"),
                                         ("truncated", "malformed_response"), ("close", "connection"),
                                         ("500", "server_error"), ("429", "rate_limit")])
def test_a_faulty_200_or_dropped_connection_is_retried_and_named(server, store, fault, kind):
    server.inject(fault)
    c = loop_client(server)
    run = store.db["runs"].insert({"status": "running"}).last_pk
    c.bind_log(store.call_logger(run))
    yn = c.yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    assert server.stats.requests == 2 and server.stats.faults == [fault]
    logged = rows(store.path, "select status, error_class, attempt, latency_ms, error from calls order by id")
    assert [r["status"] for r in logged] == ["retried", "ok"]
    assert logged[0]["error_class"] == kind and logged[0]["attempt"] == 1 and logged[0]["latency_ms"] is not None
    assert logged[1]["attempt"] == 2


def test_persistent_empty_choices_is_one_clear_transient_error(server):
    server.inject(*["empty_choices"] * 3)
    c = loop_client(server, max_attempts=3)
    with pytest.raises(LLMError) as info:
        c.complete(MSG, purpose="x")
    msg = str(info.value)
    assert server.stats.requests == 3  # retried, not an IndexError on the first
    assert "malformed_response" in msg and "no choices" in msg and "kept failing" in msg
    assert "IndexError" not in msg


def test_a_hanging_provider_trips_the_breaker(server):
    server.inject(*["hang"] * 10)
    c = loop_client(server, timeout=0.3, max_attempts=10, breaker_timeouts=3, breaker_cooldown=30)
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        c.complete(MSG, purpose="x")
    assert "timed out 3 times in a row" in str(info.value) and "--llm-timeout" in str(info.value)
    assert server.stats.requests == 3
    assert time.monotonic() - started < 5
    with pytest.raises(LLMError, match="stopped calling it"):  # open: the next call fails at once, no request
        c.complete([{"role": "user", "content": "another"}], purpose="x")
    assert server.stats.requests == 3
    [first, second] = c.drain_calls()
    assert first.error_class == "breaker_open" and first.attempts == 3 and second.attempts == 0


def test_the_run_deadline_stops_retries(server):
    server.inject(*["500"] * 50)
    c = loop_client(server, max_attempts=50, backoff_initial=0.2, backoff_max=0.2, run_deadline=1.0)
    started = time.monotonic()
    with pytest.raises(LLMError, match="deadline of 1 s") as info:
        c.complete(MSG, purpose="x")
    assert time.monotonic() - started < 2.5
    assert "--run-deadline" in str(info.value)
    c.begin_run()  # a new run starts a new clock: this call is answered
    server.faults.clear()
    assert c.complete(MSG, purpose="x").text


def test_fault_settings_come_from_flag_env_and_config(tmp_path, monkeypatch):
    from citefix.config import load_settings
    from citefix.pipeline import build_llm

    (tmp_path / "config" / "citefix").mkdir(parents=True)
    (tmp_path / "config" / "citefix" / "config.toml").write_text("llm_attempts = 3\nrun_deadline = 600\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")  # a client is built only with the provider's key
    monkeypatch.setenv("CITEFIX_LLM_TIMEOUT", "7.5")
    s = load_settings(llm_backoff_max=2.0)
    assert (s.llm_timeout, s.llm_attempts, s.llm_backoff_max, s.run_deadline) == (7.5, 3, 2.0, 600.0)
    c = build_llm("openai/x", s)
    assert (c.timeout, c.max_attempts, c.backoff_max, c.run_deadline) == (7.5, 3, 2.0, 600.0)
    monkeypatch.setenv("CITEFIX_LLM_TIMEOUT", "soon")
    from citefix.errors import ConfigError

    with pytest.raises(ConfigError, match="CITEFIX_LLM_TIMEOUT"):
        load_settings()


def test_llm_attempts_flag_reaches_the_client_through_the_cli(server, tmp_path, monkeypatch):
    """check --llm-attempts 2 against a provider that keeps failing: exactly 2 requests per call, each one logged."""
    from helpers import write

    from citefix.cli import main

    server.inject(*["500"] * 100)
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    src = write(tmp_path, "src.txt", "The depot closed in 1987.")
    summ = write(tmp_path, "s.txt", "The depot closed in 1987.")
    db = tmp_path / "f.db"
    rc = main(["check", "--source", src, "--summary", summ, "--llm", "openai/test-model", "--llm-attempts", "2",
               "--llm-backoff-max", "0.01", "--db", str(db)])
    assert rc == 3
    logged = rows(db, "select status, error_class, attempt from calls order by id")
    # 2 attempts per call; the round is tried twice (a round that could not be checked is retried once as a round)
    assert server.stats.requests == len(logged) == 4
    assert [r["status"] for r in logged] == ["retried", "error"] * 2
    assert {r["error_class"] for r in logged} == {"server_error"}


def test_a_missing_api_key_is_a_settings_error_before_any_work(tmp_path, monkeypatch, capsys):
    """As a new user meets it: `check --llm openai/…` with no key in the environment is one line naming the key to
    set, exit 2, and no run stored (not a stored run with score — and a garbled warning per unit)."""
    from citefix.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    db = tmp_path / "s.db"
    rc = main(["check", "--example", "summary", "--llm", "openai/gpt-4o-mini", "--db", str(db)])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert err.count("\n") == 0 and "no API key for 'openai/gpt-4o-mini'" in err and "OPENAI_API_KEY" in err, err
    if db.exists():
        assert main(["runs", "--db", str(db)]) == 0
        assert "no runs in" in capsys.readouterr().out
