"""LLMClient over a scripted transport: retries, errors that say what to fix, the concurrency bound, the cache, P(Yes)."""

from __future__ import annotations

import math
import threading
import time

import pytest

from citefix.errors import LLMError
from citefix.llm.client import Completion, LLMClient, RawResponse, parse_yes_no, yes_no_from
from citefix.llm.failures import TransientLLMError, is_transient, retry_after
from citefix.llm.fake import ScriptedTransport, rule_responder, yes_answer

MSG = [{"role": "user", "content": "Is the sky blue?"}]


class StatusError(Exception):
    """An exception shaped like an SDK's HTTP error: only status_code (and maybe headers) matter."""

    def __init__(self, status_code: int, headers: dict | None = None):
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code
        self.litellm_response_headers = headers


class AuthenticationError(Exception):
    """Named like litellm's: the client reads the class name to say what to fix."""


class NotFoundError(Exception):
    pass


class ContextWindowExceededError(Exception):
    pass


def client(transport, **kw) -> LLMClient:
    kw.setdefault("backoff_initial", 0.001)
    kw.setdefault("backoff_max", 0.005)
    return LLMClient("scripted/model", transport=transport, **kw)


# -- retries ---------------------------------------------------------------------------------------------------------


def test_transient_errors_are_retried_until_an_answer():
    t = ScriptedTransport().enqueue(TransientLLMError("flaky"), StatusError(429), StatusError(500), StatusError(503), "Yes")
    c = client(t)
    comp = c.complete(MSG, purpose="test")
    assert comp.text == "Yes"
    assert len(t.requests) == 5
    [rec] = c.drain_calls()
    assert rec.attempts == 5 and rec.error is None and rec.response == "Yes"


@pytest.mark.parametrize("exc", [StatusError(400), StatusError(401), StatusError(404), ValueError("bad"), AuthenticationError("no key")])
def test_non_transient_errors_are_not_retried(exc):
    t = ScriptedTransport().enqueue(exc, "Yes")
    c = client(t)
    with pytest.raises(LLMError):
        c.complete(MSG, purpose="test")
    assert len(t.requests) == 1  # no retry
    [rec] = c.drain_calls()
    assert rec.error and rec.attempts == 1


@pytest.mark.parametrize(
    "exc, fix",
    [
        (AuthenticationError("Incorrect API key"), "API key"),
        (NotFoundError("no such model"), "base URL"),
        (ContextWindowExceededError("too long"), "window_words"),
        (StatusError(503), "try again later"),
    ],
)
def test_errors_say_what_to_fix(exc, fix):
    c = client(ScriptedTransport(lambda m: exc), max_attempts=2)
    with pytest.raises(LLMError) as info:
        c.complete(MSG, purpose="test")
    msg = str(info.value)
    assert fix in msg and "scripted/model" in msg
    assert "\n" not in msg  # one line


def test_gives_up_after_max_attempts():
    t = ScriptedTransport(lambda m: StatusError(429))
    c = client(t, max_attempts=3)
    with pytest.raises(LLMError, match="kept failing after retries"):
        c.complete(MSG, purpose="test")
    assert len(t.requests) == 3
    [rec] = c.drain_calls()
    assert rec.attempts == 3 and "kept failing" in rec.error


def test_is_transient_by_name_and_status():
    assert is_transient(TransientLLMError())
    assert is_transient(StatusError(429)) and is_transient(StatusError(500)) and is_transient(StatusError(502))
    assert not is_transient(StatusError(400)) and not is_transient(StatusError(404))
    RateLimitError = type("RateLimitError", (Exception,), {})
    APIConnectionError = type("APIConnectionError", (Exception,), {})
    assert is_transient(RateLimitError()) and is_transient(APIConnectionError())
    assert not is_transient(ValueError())


def test_retry_after_is_honoured():
    t = ScriptedTransport().enqueue(StatusError(429, {"retry-after": "0.3"}), "Yes")
    c = client(t)
    started = time.perf_counter()
    assert c.complete(MSG, purpose="test").text == "Yes"
    assert time.perf_counter() - started >= 0.28  # waited at least what the provider asked, not our tiny backoff
    assert retry_after(StatusError(429, {"retry-after": "2"})) == 2.0
    assert retry_after(StatusError(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None
    assert retry_after(ValueError()) is None


def test_empty_model_name_is_a_user_error():
    with pytest.raises(LLMError, match="model string"):
        LLMClient("  ", transport=ScriptedTransport())


# -- concurrency -----------------------------------------------------------------------------------------------------


class CountingTransport:
    """Records the most calls in flight at once. Each call waits (up to 2 s) until `gather` calls are in flight, so a
    bound that is reached is seen even on a slow machine, and one that leaks shows as more."""

    def __init__(self, delay: float = 0.01, gather: int = 1):
        self.delay = delay
        self.gather = gather
        self.in_flight = 0
        self.max_in_flight = 0
        self.calls = 0
        self._cond = threading.Condition()

    def __call__(self, **kw) -> RawResponse:
        with self._cond:
            self.in_flight += 1
            self.calls += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.in_flight >= self.gather, timeout=2.0)
        time.sleep(self.delay)
        with self._cond:
            self.in_flight -= 1
        return yes_answer(0.9)


def test_concurrency_bound_is_respected_and_reached():
    t = CountingTransport(gather=3)
    c = client(t, concurrency=3)
    out = c.map(lambda i: c.complete([{"role": "user", "content": f"q{i}"}], purpose="test").text, range(12))
    assert out == ["Yes"] * 12  # in input order
    assert t.calls == 12
    assert t.max_in_flight == 3


def test_concurrency_bound_holds_across_threads():
    t = CountingTransport(gather=2)
    c = client(t, concurrency=2)

    def batch(tag):
        c.map(lambda i: c.complete([{"role": "user", "content": f"{tag}{i}"}], purpose="test"), range(6))

    threads = [threading.Thread(target=batch, args=(tag,)) for tag in "abc"]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert t.calls == 18
    assert t.max_in_flight <= 2


def test_concurrency_one_runs_serially():
    t = CountingTransport(delay=0.005, gather=1)
    c = client(t, concurrency=1)
    c.map(lambda i: c.complete([{"role": "user", "content": f"q{i}"}], purpose="test"), range(5))
    assert t.max_in_flight == 1


# -- cache -----------------------------------------------------------------------------------------------------------


def test_identical_requests_are_answered_from_the_cache(store):
    t = ScriptedTransport(lambda m: yes_answer(0.7))
    c = client(t, cache=store.llm_cache())
    first = c.yes_probability(MSG, purpose="verify")
    second = c.yes_probability(MSG, purpose="verify")
    assert len(t.requests) == 1
    assert second.score == pytest.approx(first.score) and not second.discrete
    recs = c.drain_calls()
    assert [r.cached for r in recs] == [False, True]
    assert recs[1].cost == 0.0
    c.yes_probability([{"role": "user", "content": "Something else?"}], purpose="verify")
    assert len(t.requests) == 2  # a different request is not a hit


def test_cache_survives_reopening_the_store(tmp_path):
    from citefix.store import Store

    s1 = Store(tmp_path / "c.db")
    t = ScriptedTransport(lambda m: "Yes")
    client(t, cache=s1.llm_cache()).complete(MSG, purpose="x")
    s1.close()
    s2 = Store(tmp_path / "c.db")
    client(t, cache=s2.llm_cache()).complete(MSG, purpose="x")
    s2.close()
    assert len(t.requests) == 1


def test_no_cache_path_asks_every_time(store):
    from citefix.config import Settings
    from citefix.pipeline import build_llm

    t = ScriptedTransport(lambda m: "Yes")
    c = build_llm("scripted/model", Settings(cache=False), store, t)
    assert c.cache is None
    c.complete(MSG, purpose="x")
    c.complete(MSG, purpose="x")
    assert len(t.requests) == 2
    with_cache = build_llm("scripted/model", Settings(), store, t)
    assert with_cache.cache is not None


def test_nonzero_temperature_is_not_cached(store):
    t = ScriptedTransport(lambda m: "Yes")
    c = client(t, cache=store.llm_cache())
    c.complete(MSG, purpose="x", temperature=0.7)
    c.complete(MSG, purpose="x", temperature=0.7)
    assert len(t.requests) == 2


def test_failed_calls_are_not_cached(store):
    t = ScriptedTransport().enqueue(StatusError(400), "Yes")
    c = client(t, cache=store.llm_cache())
    with pytest.raises(LLMError):
        c.complete(MSG, purpose="x")
    assert c.complete(MSG, purpose="x").text == "Yes"
    assert len(t.requests) == 2


# -- P(Yes) ----------------------------------------------------------------------------------------------------------


def comp(tops, text="Yes"):
    return Completion(text=text, top_logprobs=tops)


def test_p_yes_sums_the_variants_of_yes_and_no():
    tops = [[(" Yes", math.log(0.5)), ("yes", math.log(0.2)), ("YES", math.log(0.1)), ("No", math.log(0.1)),
             (" no", math.log(0.05)), ("Maybe", math.log(0.05))]]
    yn = yes_no_from(comp(tops))
    assert yn.score == pytest.approx(0.8 / 0.95)
    assert yn.discrete is False and yn.error is None


def test_p_yes_skips_leading_whitespace_and_markup_tokens():
    tops = [[("\n", -0.01)], [("**", -0.02)], [("No", math.log(0.75)), ("Yes", math.log(0.25))]]
    assert yes_no_from(comp(tops, "\n**No**")).score == pytest.approx(0.25)


def test_p_yes_through_the_client_asks_for_logprobs():
    t = ScriptedTransport().enqueue(yes_answer(0.83))
    yn = client(t).yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.83, abs=1e-6) and not yn.discrete
    assert t.requests[0]["top_logprobs"] > 0


@pytest.mark.parametrize("text, score", [("Yes.", 1.0), ("yes", 1.0), ("**Yes**, it is", 1.0), ("No", 0.0),
                                         ("No, the passage says otherwise.", 0.0), ("TRUE", 1.0)])
def test_without_logprobs_the_parsed_answer_is_a_discrete_score(text, score):
    t = ScriptedTransport().enqueue(RawResponse(text=text, top_logprobs=None))
    yn = client(t).yes_probability(MSG, purpose="verify")
    assert yn.score == score and yn.discrete is True and yn.error is None


def test_logprobs_without_yes_or_no_fall_back_to_the_text():
    tops = [[("Certainly", -0.1), ("Sure", -2.0)]]
    yn = yes_no_from(comp(tops, "Certainly not... No"))
    assert yn.score is None and yn.error  # first word is neither


@pytest.mark.parametrize("text", ["Maybe", "", "I cannot tell from the passage.", "The passage is unclear"])
def test_neither_yes_nor_no_is_an_error_value_not_an_exception(text):
    t = ScriptedTransport().enqueue(RawResponse(text=text))
    yn = client(t).yes_probability(MSG, purpose="verify")
    assert yn.score is None and yn.discrete is True
    assert "neither Yes nor No" in yn.error


def test_parse_yes_no():
    assert parse_yes_no("Yes") is True and parse_yes_no("  no.") is False
    assert parse_yes_no("Perhaps yes") is None


def test_unanswerable_verdicts_are_recorded_not_raised(summary_case):
    """A judge that answers neither Yes nor No, or fails outright, leaves an error verdict; nothing crashes."""
    from citefix.evaluate import evaluate
    from citefix.models import Unit
    from citefix.verify.llm_judge import LLMJudgeVerifier

    def respond(messages):  # judge by the statement only (the passage names everyone)
        statement = messages[-1]["content"].split("<<<STATEMENT")[-1]
        return rule_responder([("Natarajan", "Maybe"), ("Leary", lambda: StatusError(400))], default=yes_answer(0.9))(
            [{"content": statement}])

    t = ScriptedTransport(respond)
    judge = LLMJudgeVerifier(client(t))
    units = [Unit(id="u1", text="Priya Natarajan leads the council.", kind="acu", decomposer="x"),
             Unit(id="u2", text="Tom Leary voted against the plan.", kind="acu", decomposer="x"),
             Unit(id="u3", text="The depot closed in 1987.", kind="acu", decomposer="x")]
    v1, v2, v3 = judge.verify(units, summary_case)
    assert v1.label == "error" and v1.score is None and "neither Yes nor No" in v1.error
    assert v2.label == "error" and v2.score is None and "rejected the request" in v2.error
    assert v3.label == "supported" and v3.score == pytest.approx(0.9, abs=1e-6)

    class Fixed:
        name = "fixed"
        llm, errors = None, ()

        def units(self, case):
            return units

    ev = evaluate(summary_case, decomposer=Fixed(), verifier=judge)
    # a model call failed (u2): the round was tried twice and is partial, never passed off as a whole score
    assert ev.status == "partial" and ev.score == pytest.approx(0.9, abs=1e-6)  # mean over the scored unit only
    assert "u2" in ev.message and "could not be verified" in ev.message
    assert len(ev.errors) == 2 and ev.metrics["retried_round"]["first_status"] == "partial"


def test_all_verdicts_failing_is_an_error_status(summary_case):
    from citefix.evaluate import evaluate
    from citefix.models import Unit
    from citefix.verify.llm_judge import LLMJudgeVerifier

    judge = LLMJudgeVerifier(client(ScriptedTransport(lambda m: "I'd rather not say")))

    class Fixed:
        name = "fixed"
        llm, errors = None, ()

        def units(self, case):
            return [Unit(id="u1", text="The depot closed in 1987.", kind="acu", decomposer="x")]

    ev = evaluate(summary_case, decomposer=Fixed(), verifier=judge)
    assert ev.status == "error" and ev.score is None and "no unit could be verified" in ev.message


def test_redact_reads_the_environment_at_each_call(monkeypatch):
    """redact remembers which variable names look secret, not their values: a key set, changed or removed after
    earlier calls is handled as the environment says now; texts shorter than 8 characters cannot hold a value it
    removes and come back as they are (it runs on every call)."""
    from citefix.llm.failures import redact

    monkeypatch.setenv("CITEFIX_TEST_API_KEY", "sk-first-secret-1234")
    monkeypatch.setenv("CITEFIX_TEST_PLAIN", "not-a-secret-value")
    assert redact("key sk-first-secret-1234, value not-a-secret-value") == "key [REDACTED], value not-a-secret-value"
    monkeypatch.setenv("CITEFIX_TEST_API_KEY", "sk-second-secret-5678")
    assert redact("old sk-first-secret-1234 new sk-second-secret-5678") == "old sk-first-secret-1234 new [REDACTED]"
    monkeypatch.setenv("CITEFIX_TEST_LATER_TOKEN", "tok-set-later-000")
    assert redact("tok-set-later-000") == "[REDACTED]"
    monkeypatch.delenv("CITEFIX_TEST_LATER_TOKEN")
    assert redact("tok-set-later-000") == "tok-set-later-000"
    monkeypatch.setenv("CITEFIX_TEST_SHORT_SECRET", "short")  # under 8 characters: never removed
    assert redact("a short answer") == "a short answer"
    assert redact("Yes") == "Yes" and redact("") == "" and redact(None) is None


def test_every_call_and_retry_is_logged_with_the_same_fields():
    """The call log's records keep every field they had before the client's speed-ups (answer, log-probs, tokens,
    cost, latency, attempts, status, endpoint), for a retried attempt and for the answer."""
    transport = ScriptedTransport().enqueue(TransientLLMError("503"), yes_answer(0.8))
    client = LLMClient("openai/m", transport=transport, backoff_initial=0.0, api_base="http://127.0.0.1:9/v1")
    logged = []
    client.bind_log(logged.append)
    yn = client.yes_probability(MSG, purpose="acu_verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    retried, ok = logged
    assert (retried.status, retried.attempt, retried.response, retried.api_base) == ("retried", 1, None,
                                                                                   "http://127.0.0.1:9/v1")
    assert retried.error and retried.error_class and retried.latency_ms >= 0
    assert (ok.status, ok.attempt, ok.attempts, ok.purpose, ok.model) == ("ok", 2, 2, "acu_verify", "openai/m")
    assert ok.response == "Yes" and ok.logprobs and ok.logprobs[0]["top"][0][0] == "Yes"
    assert ok.api_base == "http://127.0.0.1:9/v1" and ok.messages == MSG and ok.latency_ms >= 0
    assert client.drain_calls() == [ok]
