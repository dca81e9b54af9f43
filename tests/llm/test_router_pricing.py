"""A Router deployment of a model litellm has no price for is declared free to litellm (model_info zero
rates, citefix/llm/unpriced.py), which spares litellm's $0-cost diagnostic on every answer. What is priced, logged,
routed and cooled down stays as it was: each test runs the Router with and without the marking and compares."""

from __future__ import annotations

import pytest
from loopback import LoopbackLLM, yes_reply

from citefix.llm import router as router_mod
from citefix.llm.client import LLMClient, import_litellm
from citefix.llm.router import RouterTransport, validate_router
from citefix.llm.unpriced import FREE, litellm_prices, mark_unpriced_free

MSG = [{"role": "user", "content": "Is the sky blue today?"}]
PRICE = {"input_cost_per_token": 1e-6, "output_cost_per_token": 3e-6}


_STARTED: list[RouterTransport] = []


@pytest.fixture(autouse=True)
def _key_and_cleanup(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    yield
    # a Router registers its callbacks with litellm itself: unhook them, or later tests find litellm listening
    while _STARTED:
        t = _STARTED.pop()
        t._router.discard()
        t._loop.call_soon_threadsafe(t._loop.stop)


@pytest.fixture
def server():
    with LoopbackLLM(lambda req: yes_reply(0.8)) as srv:
        yield srv


def table(*deployments, **settings) -> dict:
    model_list = [{"model_name": "qwen", "litellm_params": {"model": model, "api_base": url,
                                                            "api_key": "os.environ/OPENAI_API_KEY", **params},
                   "model_info": info} for model, url, params, info in deployments]
    return validate_router({**settings, "model_list": model_list}, "test.toml")


def transport(cfg: dict, marked: bool, monkeypatch) -> RouterTransport:
    """A Router transport of its own (not the process-wide one), with or without the marking."""
    t = RouterTransport(cfg)
    with monkeypatch.context() as m:
        if not marked:
            m.setattr(router_mod, "mark_unpriced_free", lambda model_list, litellm, strategy=None: model_list)
        t._start()
    _STARTED.append(t)
    return t


@pytest.fixture
def rate_walks(monkeypatch):
    """How often litellm's $0-cost diagnostic walked a pricing entry's rates (a spy: the real function still runs).
    If litellm renames or drops it, this fixture fails: then the marking's effect must be measured again."""
    import_litellm()
    from litellm.litellm_core_utils.llm_cost_calc import zero_cost_diagnostic as zcd

    walks: list[int] = []
    real = zcd._declares_a_rate

    def spy(entry):
        walks.append(1)
        return real(entry)

    monkeypatch.setattr(zcd, "_declares_a_rate", spy)
    return walks


def _settle(walks: list[int], quiet: float = 0.5, limit: float = 5.0) -> None:
    """Wait until no walk has been added for `quiet` seconds (at most `limit`): litellm logs in background threads."""
    import time

    end = time.monotonic() + limit
    seen, since = len(walks), time.monotonic()
    while time.monotonic() < end and time.monotonic() - since < quiet:
        time.sleep(0.05)
        if len(walks) != seen:
            seen, since = len(walks), time.monotonic()


def one_call(t: RouterTransport):
    c = LLMClient("qwen", transport=t, concurrency=1)
    yn = c.yes_probability(MSG, purpose="verify")
    assert yn.score == pytest.approx(0.8, abs=1e-6)
    [rec] = c.drain_calls()
    return rec


def test_an_unpriced_deployment_skips_the_zero_cost_diagnostic_and_its_cost_stays_unknown(server, rate_walks,
                                                                                          monkeypatch):
    # two deployments of one model, as a config of several servers has them (litellm then walks the pricing entry)
    cfg = table(("openai/unpriced-model", server.base_url, {}, {"id": "local-1"}),
                ("openai/unpriced-model", server.base_url, {}, {"id": "local-2"}))
    before = one_call(transport(cfg, marked=False, monkeypatch=monkeypatch))
    _settle(rate_walks)  # litellm's success logging prices the answer again in the background: let it land first
    assert rate_walks, "litellm's $0 diagnostic did not run without the marking: re-measure bench/bench_llm_cpu.py"
    rate_walks.clear()
    t = transport(cfg, marked=True, monkeypatch=monkeypatch)
    after = one_call(t)
    _settle(rate_walks)
    assert rate_walks == []
    # litellm sees the deployment as free; citefix logs the cost as unknown, as before
    for i, dep in enumerate(t._router.model_list, 1):
        assert all(dep["model_info"][k] == 0 for k in FREE) and dep["model_info"]["id"] == f"local-{i}"
    assert before.cost is None and after.cost is None
    # the Router entered the zero rates in litellm's price table for the whole process: an estimate made later in
    # it still says the model's price is unknown, not $0
    from citefix.estimate import price

    assert price("openai/unpriced-model", 1000, 100) is None
    assert {before.deployment, after.deployment} <= {"local-1", "local-2"}
    assert (after.prompt_tokens, after.completion_tokens) == (before.prompt_tokens, before.completion_tokens)
    # the table as written (saved by the TUI, digested into the cache key) is not touched
    assert "input_cost_per_token" not in t.config["model_list"][0]["model_info"]


@pytest.mark.parametrize("marked", [False, True])
def test_a_priced_deployment_keeps_its_price(server, marked, monkeypatch):
    cfg = table(("openai/own-price-model", server.base_url, {}, {"id": "priced", **PRICE}))
    t = transport(cfg, marked=marked, monkeypatch=monkeypatch)
    rec = one_call(t)
    expected = rec.prompt_tokens * PRICE["input_cost_per_token"] + rec.completion_tokens * PRICE["output_cost_per_token"]
    assert rec.cost == pytest.approx(expected, rel=1e-9) and rec.cost > 0
    assert t._router.model_list[0]["model_info"]["input_cost_per_token"] == PRICE["input_cost_per_token"]


@pytest.mark.parametrize("marked", [False, True])
def test_a_model_litellm_prices_keeps_litellms_price(server, marked, monkeypatch):
    litellm = import_litellm()
    cfg = table(("openai/gpt-4o-mini", server.base_url, {}, {"id": "hosted"}))
    t = transport(cfg, marked=marked, monkeypatch=monkeypatch)
    assert "input_cost_per_token" not in t._router.model_list[0]["model_info"]
    rec = one_call(t)
    p, c = litellm.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=rec.prompt_tokens,
                                  completion_tokens=rec.completion_tokens)
    assert rec.cost == pytest.approx(p + c, rel=1e-9) and rec.cost > 0


def test_what_is_left_alone():
    litellm = import_litellm()
    assert litellm_prices(litellm, "openai/gpt-4o-mini") and not litellm_prices(litellm, "openai/unpriced-model")
    plain = {"model_name": "q", "litellm_params": {"model": "openai/unpriced-model"}, "model_info": {"id": "a"}}
    twin = {"model_name": "q", "litellm_params": {"model": "openai/unpriced-model", "input_cost_per_token": 2e-6,
                                                  "output_cost_per_token": 2e-6}, "model_info": {"id": "b"}}
    based = {"model_name": "q", "litellm_params": {"model": "openai/other-model"},
             "model_info": {"id": "c", "base_model": "gpt-4o-mini"}}
    other = {"model_name": "q", "litellm_params": {"model": "openai/second-unpriced-model"}, "model_info": {"id": "d"}}
    out = mark_unpriced_free([plain, twin, based, other], litellm)
    # a model another deployment declares a price for, a deployment with a price or base_model of its own: untouched
    assert out[:3] == [plain, twin, based]
    assert out[3]["model_info"] == {**FREE, "id": "d"} and other["model_info"] == {"id": "d"}
    # routing by cost takes a deployment without a price as expensive: declaring it free would change the routing
    assert mark_unpriced_free([other], litellm, "cost-based-routing") == [other]


@pytest.mark.parametrize("marked", [False, True])
def test_a_failing_deployment_is_still_cooled_down(marked, monkeypatch):
    with LoopbackLLM(lambda req: yes_reply(0.8)) as good, LoopbackLLM(lambda req: yes_reply(0.8)) as bad:
        bad.chaos(1.0, kinds=("500",))
        # the failing one has the lowest order, so it is asked first until litellm cools it down
        cfg = table(("openai/unpriced-model", bad.base_url, {"order": 1}, {"id": "down"}),
                    ("openai/unpriced-model", good.base_url, {"order": 2}, {"id": "up"}),
                    cooldown_time=60, allowed_fails=0)
        t = transport(cfg, marked=marked, monkeypatch=monkeypatch)
        recs = [one_call(t) for _ in range(5)]
        assert {r.deployment for r in recs} == {"up"} and all(r.cost is None for r in recs)
        assert bad.stats.requests == 1 and good.stats.answered == 5
        assert sum(r.router_fallbacks for r in recs) == 1
