"""Many model servers behind one model name: a litellm Router configured in the config file's `[router]` table.

    llm = "qwen"                                   # a model_name of the router below

    [router]
    cooldown_time = 30                             # seconds a failing deployment is left out
    allowed_fails = 1                              # failures (per minute) before it is
    fallbacks = [{ qwen = ["hosted"] }]            # when every qwen deployment failed

    [[router.model_list]]
    model_name = "qwen"
    litellm_params = { model = "openai/Qwen2.5-14B-Instruct", api_base = "http://gpu1:8000/v1",
                       api_key = "os.environ/VLLM_API_KEY", max_parallel_requests = 16, rpm = 600 }
    model_info = { id = "gpu1" }

The table is litellm's own Router format (`model_list` as in its proxy config, the Router's keyword arguments beside
it), checked here so that a mistake is one line naming the file and key. Choosing a deployment, per-deployment
concurrency (`max_parallel_requests`) and rate limits (`rpm`/`tpm`), cooldowns and fallbacks are litellm's: the Router
runs on one event loop in a background thread and citefix's worker threads hand it their calls. citefix's client keeps
its own retries, cache and call log; each call's deployment (`model_info.id`) and base URL go into the log.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

from citefix.errors import ConfigError
from citefix.llm.failures import TransientLLMError, register_secret
from citefix.llm.unpriced import mark_unpriced_free

# The Router's keyword arguments a config may set (litellm.Router(...)), besides model_list.
ROUTER_KEYS = ("model_list", "fallbacks", "context_window_fallbacks", "cooldown_time", "allowed_fails", "num_retries",
               "routing_strategy", "timeout", "retry_after", "default_max_parallel_requests")
ROUTING_STRATEGIES = ("simple-shuffle", "least-busy", "usage-based-routing", "usage-based-routing-v2",
                      "latency-based-routing", "cost-based-routing")
DEPLOYMENT_KEYS = ("model_name", "litellm_params", "model_info", "rpm", "tpm")
_POSITIVE_INTS = ("max_parallel_requests", "rpm", "tpm")
# litellm's words when every max_parallel_requests slot of the chosen deployment is taken (it refuses, not waits)
_SLOTS_FULL = "max_parallel_requests slots in use"


def validate_router(data: Any, path: Path | str) -> dict:
    """The `[router]` table checked and normalised (every deployment gets an id, `<model_name>-<n>` unless given);
    a mistake is a ConfigError naming the file and key."""

    def bad(key: str, problem: str) -> ConfigError:
        sep = " " if problem.startswith("= ") else ": "
        return ConfigError(f"{path}: router{key}{sep}{problem}")

    if not isinstance(data, dict):
        raise bad("", "must be a table ([router] with [[router.model_list]] entries); see the README's 'Many model "
                      "servers'")
    unknown = [k for k in data if k not in ROUTER_KEYS]
    if unknown:
        raise bad(f".{unknown[0]}", f"unknown key; the router table takes {', '.join(ROUTER_KEYS)}")
    models = data.get("model_list")
    if not isinstance(models, list) or not models:
        raise bad(".model_list", "missing or empty; add at least one [[router.model_list]] entry with model_name and "
                                 "litellm_params = { model = \"provider/model\" }")
    out: dict[str, Any] = {k: v for k, v in data.items() if k != "model_list"}
    names: list[str] = []
    ids: set[str] = set()
    out["model_list"] = [_deployment(entry, f".model_list[{i}]", names, ids, bad) for i, entry in enumerate(models)]
    _check_router_numbers(data, bad)
    strategy = data.get("routing_strategy")
    if strategy is not None and strategy not in ROUTING_STRATEGIES:
        raise bad(".routing_strategy", f"= {strategy!r}: use one of {', '.join(ROUTING_STRATEGIES)}")
    _check_fallbacks(data, names, bad)
    out["_source"] = str(path)
    return out


def _deployment(entry: Any, at: str, names: list[str], ids: set[str], bad: Callable[[str, str], ConfigError]) -> dict:
    """One `[[router.model_list]]` entry checked, with its id (given, else `<model_name>-<n>`); its name and id are
    added to ``names`` and ``ids``."""
    if not isinstance(entry, dict):
        raise bad(at, "must be a table with model_name and litellm_params")
    extra = [k for k in entry if k not in DEPLOYMENT_KEYS]
    if extra:
        raise bad(f"{at}.{extra[0]}", f"unknown key; a deployment takes {', '.join(DEPLOYMENT_KEYS)}")
    name = entry.get("model_name")
    if not isinstance(name, str) or not name.strip():
        raise bad(f"{at}.model_name", "missing; give the name citefix's llm setting uses, e.g. model_name = \"qwen\"")
    params = entry.get("litellm_params")
    if not isinstance(params, dict):
        raise bad(f"{at}.litellm_params", "missing; give litellm_params = { model = \"openai/<model>\", api_base = "
                                          "\"http://host:8000/v1\" }")
    if not isinstance(params.get("model"), str) or not params["model"].strip():
        raise bad(f"{at}.litellm_params.model", "missing; give a litellm model string such as openai/<model>")
    for key in ("api_base", "api_key", "api_version"):
        if key in params and not isinstance(params[key], str):
            raise bad(f"{at}.litellm_params.{key}", "must be text; fix that value")
    register_secret(params.get("api_key"))  # a literal key in the config file is redacted like one in the environment
    for where, table in ((f"{at}.litellm_params", params), (at, entry)):
        for key in _POSITIVE_INTS:
            if key in table and (isinstance(table[key], bool) or not isinstance(table[key], int) or table[key] < 1):
                raise bad(f"{where}.{key}", f"= {table[key]!r}: must be a whole number of 1 or more; fix that value")
    if not isinstance(entry.get("model_info", {}), dict):
        raise bad(f"{at}.model_info", "must be a table, e.g. model_info = { id = \"gpu1\" }")
    info = dict(entry.get("model_info") or {})
    dep_id = info.get("id") or f"{name}-{sum(1 for n in names if n == name) + 1}"
    if not isinstance(dep_id, str):
        raise bad(f"{at}.model_info.id", "must be text; fix that value")
    if dep_id in ids:
        raise bad(f"{at}.model_info.id", f"{dep_id!r} is used twice; give each deployment its own id")
    ids.add(dep_id)
    info["id"] = dep_id
    names.append(name)
    return {**entry, "litellm_params": dict(params), "model_info": info}


def _check_router_numbers(data: dict, bad: Callable[[str, str], ConfigError]) -> None:
    """The router's seconds (0 or more) and counts (whole numbers, 0 or more)."""
    for key in ("cooldown_time", "timeout", "retry_after"):
        if key in data and (isinstance(data[key], bool) or not isinstance(data[key], (int, float)) or data[key] < 0):
            raise bad(f".{key}", f"= {data[key]!r}: must be a number of seconds, 0 or more; fix that value")
    for key in ("allowed_fails", "num_retries", "default_max_parallel_requests"):
        if key in data and (isinstance(data[key], bool) or not isinstance(data[key], int) or data[key] < 0):
            raise bad(f".{key}", f"= {data[key]!r}: must be a whole number, 0 or more; fix that value")


def _check_fallbacks(data: dict, names: list[str], bad: Callable[[str, str], ConfigError]) -> None:
    """`fallbacks` and `context_window_fallbacks`: lists of {model_name: [model_name, …]} naming deployments."""
    for key in ("fallbacks", "context_window_fallbacks"):
        if key not in data:
            continue
        rules = data[key]
        if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
            raise bad(f".{key}", f"must be a list of tables, e.g. {key} = [{{ qwen = [\"hosted\"] }}]")
        for r in rules:
            for src, targets in r.items():
                if src not in names:
                    raise bad(f".{key}", f"{src!r} is not a model_name in router.model_list ({', '.join(dict.fromkeys(names))})")
                if not isinstance(targets, list) or not targets:
                    raise bad(f".{key}.{src}", "must be a list of model_names to fall back to")
                for t in targets:
                    if t not in names:
                        raise bad(f".{key}.{src}", f"{t!r} is not a model_name in router.model_list "
                                                   f"({', '.join(dict.fromkeys(names))})")


def model_names(router: dict | None) -> list[str]:
    return list(dict.fromkeys(d["model_name"] for d in (router or {}).get("model_list", [])))


def digest(router: dict) -> str:
    """A fingerprint of the deployments (keys left out) for the cache key: other servers, other cached answers."""
    shown = [{"model_name": d["model_name"], "id": d["model_info"]["id"],
              "params": {k: v for k, v in d["litellm_params"].items() if k != "api_key"}} for d in router["model_list"]]
    return hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode()).hexdigest()[:16]


class RouterTransport:
    """A citefix Transport over one litellm Router, shared by every client of a command that names its models."""

    def __init__(self, router: dict):
        self.config = router
        self.router_digest = digest(router)
        self.completion_kwargs = {"router": self.router_digest}  # part of the cache key
        self.api_base = None
        self._router = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def _start(self):
        with self._lock:
            if self._router is not None:
                return self._router, self._loop
            from citefix.llm.client import import_litellm

            litellm = import_litellm()
            kwargs = {k: v for k, v in self.config.items() if not k.startswith("_")}
            source = self.config.get("_source", "config file")
            for i, d in enumerate(kwargs["model_list"]):
                model = d["litellm_params"]["model"]
                try:
                    litellm.get_llm_provider(model, api_base=d["litellm_params"].get("api_base"))
                except Exception:  # noqa: BLE001 - litellm's words are long; say which key and how to write it
                    raise ConfigError(f"{source}: router.model_list[{i}].litellm_params.model = {model!r}: litellm knows "
                                      "no provider for it; write provider/model, e.g. openai/<model> for an "
                                      "OpenAI-compatible server or ollama/<model>") from None
            kwargs.setdefault("num_retries", 0)  # citefix retries, and logs every attempt; litellm falls back
            # no hidden SDK retries either (the Router's OpenAI clients retry twice by default): each attempt is
            # citefix's or the Router's, and so on record
            kwargs["model_list"] = [{**d, "litellm_params": {"max_retries": 0, **d["litellm_params"]}}
                                    for d in kwargs["model_list"]]
            # a model litellm has no price for, declared free to it: the same $0 to litellm, unknown in citefix's
            # log, without litellm's diagnostic of that $0 on every answer (citefix/llm/unpriced.py)
            kwargs["model_list"] = mark_unpriced_free(kwargs["model_list"], litellm, kwargs.get("routing_strategy"))
            try:
                router = litellm.Router(**kwargs)
            except Exception as exc:  # noqa: BLE001 - litellm refused the table: say which file
                text = " ".join(str(exc).split())[:300]
                raise ConfigError(f"{source}: router: litellm refused it "
                                  f"({type(exc).__name__}: {text}); fix the [router] table") from None
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="citefix-router", daemon=True).start()
            self._router, self._loop = router, loop
            return router, loop

    def __call__(self, *, model, messages, max_tokens, temperature, top_logprobs, timeout):
        from citefix.llm import client as llm_client

        if model not in model_names(self.config):
            raise ConfigError(f"{self.config.get('_source')}: router: no deployment has model_name {model!r}; use one of "
                              f"{', '.join(model_names(self.config))}")
        if not llm_client.ALLOW_REMOTE_REQUESTS:
            for d in self.config["model_list"]:
                base = d["litellm_params"].get("api_base")
                if not llm_client._is_loopback(base) and "mock_response" not in d["litellm_params"]:
                    raise llm_client.RemoteRequestBlocked(f"test tried to reach a remote deployment {d['model_info']['id']!r}"
                                                          f" at {base!r}")
        router, loop = self._start()
        import litellm

        kwargs: dict[str, Any] = dict(model=model, messages=messages, max_tokens=max_tokens, temperature=temperature,
                                      timeout=timeout, max_retries=0, drop_params=True)
        if top_logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = top_logprobs
        give_up = time.monotonic() + timeout
        while True:
            future = asyncio.run_coroutine_threadsafe(router.acompletion(**kwargs), loop)
            try:
                resp = future.result(timeout=max(0.05, give_up - time.monotonic()) + 5)
                break
            except Exception as exc:  # noqa: BLE001 - slots full: wait for one (litellm refuses instead of queueing)
                if _SLOTS_FULL in str(exc) and time.monotonic() < give_up:
                    time.sleep(0.02)
                    continue
                if isinstance(exc, TimeoutError):  # litellm's own timeout did not fire: give up on it, as a timeout
                    future.cancel()
                    raise TransientLLMError(f"the Router's call to {model!r} timed out after "
                                                       f"{timeout:g} s") from None
                raise
        llm_client.freeze_long_lived("answer")
        return llm_client.raw_response(resp, model, litellm)


_TRANSPORTS: dict[str, RouterTransport] = {}
_TRANSPORTS_LOCK = threading.Lock()


def router_transport(router: dict) -> RouterTransport:
    """One transport (one Router, so one view of cooldowns and slots) per router configuration in this process."""
    key = json.dumps(router, sort_keys=True, default=str)
    with _TRANSPORTS_LOCK:
        if key not in _TRANSPORTS:
            transport = RouterTransport(router)
            transport._start()  # litellm checks the table now: a refusal is a settings error before any work
            _TRANSPORTS[key] = transport
        return _TRANSPORTS[key]
