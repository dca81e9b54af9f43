"""Router deployments of a model litellm has no price for, declared free to litellm; and, for plain calls,
a model litellm has no entry for at all (`declare_unpriced_free`, at the end).

After every answer through a litellm Router, litellm prices it (twice: for the answer's hidden params and again in
its success logging). A model it has no price for (a local vLLM or Ollama model under an `openai/` name) costs $0
there, and each time litellm then runs a diagnostic of why a billable request cost $0: it looks the model's pricing
entry up again and walks every rate in it, about 1.5 ms of CPU a call (bench/bench_llm_cpu.py), to conclude each time
that the model simply has no price. litellm's own remedy, in that diagnostic's words, is to "set every rate to 0 to
mark the model free" in the deployment's `model_info`: its diagnostic then stops at once.

That changes nothing litellm computes: the answer cost $0 to litellm before and costs $0 after; citefix still logs the
cost as unknown (None), because its own test (`client._priced`) asks litellm's price table for the *model*, which
stays without a price (the zeros are registered under the deployment's id). It is left out wherever it could change
something: a deployment that declares any price or a `base_model` of its own (litellm_params or model_info), a model
litellm has any positive rate for, a model another deployment declares a price for, and a Router that routes by cost
(`cost-based-routing` takes a deployment without a price as expensive, one declared free as cheapest).
"""

from __future__ import annotations

import threading
from typing import Any

# litellm's token rates a chat answer is priced by; the cache rates too, so that litellm does not warn that a model
# with custom pricing has none for its cache
FREE = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "cache_creation_input_token_cost": 0.0,
        "cache_read_input_token_cost": 0.0}
_PRICE_WORDS = ("cost", "pricing", "base_model")


def _declares_price(table: Any) -> bool:
    """Whether a deployment's litellm_params or model_info sets any rate (or a base_model litellm prices it by)."""
    return isinstance(table, dict) and any(any(w in str(k) for w in _PRICE_WORDS) and v is not None
                                           for k, v in table.items())


def _positive_rate(value: Any, depth: int = 0) -> bool:
    """Whether a price-table value is, or holds (tiers, per-size tables), a rate above 0."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return value > 0
    if depth < 4 and isinstance(value, dict):
        return any(_positive_rate(v, depth + 1) for v in value.values())
    if depth < 4 and isinstance(value, (list, tuple)):
        return any(_positive_rate(v, depth + 1) for v in value)
    return False


def litellm_prices(litellm: Any, model: str) -> bool:
    """Whether litellm's price table has any positive rate for the model (a model it does not know: no)."""
    try:
        info = litellm.get_model_info(model=model)
    except Exception:  # noqa: BLE001 - litellm raises for a model it has no entry for
        return False
    return any(any(w in str(k) for w in ("cost", "pricing")) and _positive_rate(v) for k, v in dict(info).items())


def mark_unpriced_free(model_list: list[dict], litellm: Any, routing_strategy: str | None = None) -> list[dict]:
    """The Router's model_list with litellm's zero rates added to the model_info of each deployment whose model
    litellm has no price for (see the module's docstring for what is left alone). Call it before the Router is
    built: the Router registers its deployments' rates in litellm's price table."""
    if routing_strategy == "cost-based-routing":
        return model_list
    declared = {d["litellm_params"].get("model") for d in model_list
                if _declares_price(d.get("litellm_params")) or _declares_price(d.get("model_info"))}
    out = []
    for d in model_list:
        model = d["litellm_params"].get("model")
        if model in declared or litellm_prices(litellm, model):
            out.append(d)
        else:
            out.append({**d, "model_info": {**FREE, **(d.get("model_info") or {})}})
            _DECLARED.add(model)  # the Router enters these rates for the whole process: an estimate says unknown
    return out


# A model citefix declared free to litellm for its plain calls (below) carries this key in litellm's price table.
UNPRICED_MARK = "citefix_unpriced"
_SEEN: set[str] = set()  # models already looked at by declare_unpriced_free (declared or left alone)
_SEEN_LOCK = threading.Lock()
_DECLARED: set[str] = set()  # models this process entered at $0 in litellm's price table (a plain call or a Router)


def declared_free(model: str) -> bool:
    """Whether citefix entered the model at $0 in litellm's price table in this process: its price is unknown, and
    citefix's estimate says so (citefix/estimate.py)."""
    return model in _DECLARED


def declare_unpriced_free(litellm: Any, model: str, completion_kwargs: dict) -> None:
    """For plain (non-Router) calls: a model litellm has no entry for at all (a local server under an `openai/`
    name) is entered in litellm's price table once, with zero rates and ``UNPRICED_MARK``. Otherwise litellm, after
    every answer, looks the model up through its fallbacks twice (to price the answer, then to diagnose why it could
    not), about a tenth of the time this process holds the GIL for a call (py-spy --gil); with the entry it prices the
    answer at $0 at once. citefix's call log still says the cost is unknown (``client._priced`` wants a positive
    rate) and so does its estimate (`declared_free`). Left alone: a model litellm has any entry for, calls that
    pass a price or base_model of their own, and any model while something is registered with litellm (a callback,
    its cache, a budget) that could read the $0."""
    if model in _SEEN:
        return
    from citefix.llm.unobserved import litellm_listens

    with _SEEN_LOCK:  # held until the entry is in: the other first callers wait instead of calling during the change
        if model in _SEEN or litellm_listens(litellm):
            return
        if not _declares_price(completion_kwargs) and _unknown_to(litellm, model):
            try:
                provider = litellm.get_llm_provider(model)[1]
            except Exception:  # noqa: BLE001 - a model string litellm cannot place: left to litellm's own error
                provider = None
            if provider:
                litellm.register_model({model: {**FREE, "litellm_provider": provider, "mode": "chat",
                                                UNPRICED_MARK: True}})
                _DECLARED.add(model)
        _SEEN.add(model)


def _unknown_to(litellm: Any, model: str) -> bool:
    """Whether litellm's price table has no entry at all for the model (it raises for one it does not know)."""
    try:
        litellm.get_model_info(model=model)
    except Exception:  # noqa: BLE001 - litellm's "model isn't mapped" error
        return True
    return False
