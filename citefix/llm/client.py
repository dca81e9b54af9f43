"""The LLM layer: one client over litellm with retries, a concurrency bound, a cache and a call log.

The client never talks to a provider itself: a *transport* does (litellm by default; tests plug in a scripted one), so
retries, caching, logging and P(Yes) parsing are the same code in tests and in use.
Which failures are retried and how they are worded is `citefix.llm.failures` (its names re-exported here).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol, TypeVar, cast
from urllib.parse import urlparse

from citefix.errors import LLMError
from citefix.llm.aio import litellm_call
from citefix.llm.failures import (
    MalformedResponse,
    deployment_of,
    error_class,
    explain_error,
    is_transient,
    redact,
    retry_after,
)
from citefix.llm.unpriced import declare_unpriced_free
from citefix.models import CallRecord

T = TypeVar("T")
R = TypeVar("R")

RETRY_AFTER_CAP = 60.0  # longest Retry-After we honour, in seconds

# Tests set this to False: any call that would leave this machine then fails loudly (see tests/conftest.py).
ALLOW_REMOTE_REQUESTS = True

class _Stop(Exception):
    """Inside the client: no further attempt (breaker open, deadline passed)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.message, self.kind = message, kind


class RemoteRequestBlocked(RuntimeError):
    """Raised when ALLOW_REMOTE_REQUESTS is False and a call would reach a non-loopback model."""


@dataclass
class RawResponse:
    """What a transport returns."""

    text: str
    top_logprobs: list[list[tuple[str, float]]] | None = None  # per generated token: [(token, logprob), ...]
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    deployment: str | None = None  # the Router deployment (model_info id) that answered, if a Router sent it
    api_base: str | None = None  # the base URL that answered, when the transport knows it
    router_fallbacks: int | None = None  # times a Router moved the call on before this answer (its retries, fallbacks)


class Transport(Protocol):
    def __call__(
        self, *, model: str, messages: list[dict[str, Any]], max_tokens: int, temperature: float, top_logprobs: int, timeout: float
    ) -> RawResponse: ...


@dataclass
class Completion:
    text: str
    top_logprobs: list[list[tuple[str, float]]] | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    latency_ms: float = 0.0
    cached: bool = False


@dataclass
class YesNo:
    """P(Yes)/(P(Yes)+P(No)) from the first answer token, or the parsed answer when there are no log-probs."""

    score: float | None
    discrete: bool
    answer: str
    error: str | None = None


class CallCache(Protocol):
    def get(self, key: str) -> dict | None: ...
    def put(self, key: str, model: str, value: dict) -> None: ...


_GC_FROZEN: set[str] = set()  # the moments the long-lived objects were frozen: "import", "answer"
_GC_LOCK = threading.Lock()


def freeze_long_lived(moment: str) -> None:
    """Move the objects alive now out of the cyclic garbage collector's reach (`gc.freeze()`), once per moment:
    after litellm's import ("import": its price table, types; ~300k objects) and after its first answer ("answer":
    the provider modules, SDK clients and types it loads lazily on the first call; ~80k more).

    Otherwise every full collection walks them all: a 0.15-0.3 s pause of every thread, about once per 500 model
    calls, which at 16 calls in flight costs a whole round of answers (bench/bench_check.py). Objects freed by
    reference counting (nearly all) are freed as before, and a collection first frees the garbage cycles there
    are; only cycles among the frozen objects that become garbage later stay in memory.
    """
    if moment in _GC_FROZEN:
        return
    import gc

    with _GC_LOCK:
        if moment not in _GC_FROZEN:
            if gc.isenabled():
                gc.collect()
                gc.freeze()
            _GC_FROZEN.add(moment)


def import_litellm():
    """litellm, quiet and with the local price table (importing it makes no request); its objects frozen (above)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    freeze_long_lived("import")
    return litellm


def litellm_transport(api_base: str | None = None, **completion_kwargs: Any) -> Transport:
    """The real transport: litellm (its async path on citefix's event loop when nothing is registered with litellm,
    citefix/llm/aio.py), with the local cost map so importing it makes no request.

    completion_kwargs go to every litellm call as they are (tests pass litellm's own mock_response).
    """

    def call(*, model, messages, max_tokens, temperature, top_logprobs, timeout):
        litellm = import_litellm()
        base = api_base or _env_api_base(model)
        if not ALLOW_REMOTE_REQUESTS and not _is_loopback(base) and "mock_response" not in completion_kwargs:
            try:
                litellm.get_llm_provider(model)
            except Exception:  # noqa: BLE001 - litellm refuses this model string itself, before any request
                pass
            else:
                raise RemoteRequestBlocked(f"test tried to reach a remote model {model!r} at {base!r}")
        kwargs: dict[str, Any] = dict(
            model=model, messages=messages, max_tokens=max_tokens, temperature=temperature, timeout=timeout, num_retries=0,
            max_retries=0, drop_params=True,  # our retries only: the SDK's hidden ones would be calls nobody logs
        )
        kwargs.update(completion_kwargs)
        if api_base:
            kwargs["api_base"] = api_base
        if top_logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = top_logprobs
        declare_unpriced_free(litellm, model, completion_kwargs)  # priced at $0 at once, logged as unknown
        resp = litellm_call(litellm, kwargs, timeout)  # on citefix's event loop when nothing listens (aio.py)
        freeze_long_lived("answer")
        return raw_response(resp, model, litellm, sent_to=base)

    cast(Any, call).api_base = api_base  # the cache key names the endpoint (LLMClient.endpoint)
    cast(Any, call).completion_kwargs = dict(completion_kwargs)
    return call


def raw_response(resp: Any, model: str, litellm: Any, sent_to: str | None = None) -> RawResponse:
    """A litellm ModelResponse as a RawResponse (text, top log-probs, tokens, cost, and the deployment that
    answered when a Router sent it); a 200 without a usable completion raises MalformedResponse. `sent_to`: the base
    URL the request went to, when known (litellm's own note names the provider's default host even then)."""
    choices = getattr(resp, "choices", None)
    if not choices:  # a 200 with "choices": [] (or none): a provider fault, worth a retry
        raise MalformedResponse(f"{model!r} answered 200 with no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None) if message is not None else None
    if message is None or not (content is None or isinstance(content, str)):
        raise MalformedResponse(f"{model!r} answered 200 without a text message in its first choice")
    text = content or ""
    tops = None
    lp = getattr(choice, "logprobs", None)
    content = getattr(lp, "content", None) if lp is not None else None
    if content is None and isinstance(lp, dict):
        content = lp.get("content")
    if content:
        tt: Any  # a token: str from a provider that answers with log-probs
        ll: Any
        tops = []
        for tok in content:
            tl = tok.get("top_logprobs") if isinstance(tok, dict) else getattr(tok, "top_logprobs", None)
            pairs = []
            for t in tl or []:
                tt = t.get("token") if isinstance(t, dict) else t.token
                ll = t.get("logprob") if isinstance(t, dict) else t.logprob
                pairs.append((tt, float(ll)))
            if not pairs:
                tt = tok.get("token") if isinstance(tok, dict) else tok.token
                ll = tok.get("logprob") if isinstance(tok, dict) else tok.logprob
                pairs = [(tt, float(ll))]
            tops.append(pairs)
    usage = getattr(resp, "usage", None)
    hidden = getattr(resp, "_hidden_params", None) or {}
    if "response_cost" in hidden:  # litellm priced it already (None for a model it has no price for)
        cost = float(hidden["response_cost"]) if hidden["response_cost"] is not None else None
    else:
        try:
            cost = float(litellm.completion_cost(completion_response=resp))
        except Exception:  # unknown price for local models: leave cost empty
            cost = None
    if cost == 0.0 and not _priced(litellm, getattr(resp, "model", None), hidden):
        cost = None  # litellm (a Router's answer) says 0.0 for a model it has no price for: unknown, not free
    return RawResponse(
        text=text,
        top_logprobs=tops,
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        cost=cost,
        deployment=str(hidden["model_id"]) if hidden.get("model_id") else None,  # set by a litellm Router
        api_base=sent_to or (str(hidden["api_base"]) if hidden.get("api_base") else None),
        router_fallbacks=_router_moves(hidden),
    )


def _priced(litellm: Any, model: Any, hidden: dict) -> bool:
    """Whether litellm's cost map holds a price for the model that answered (as named with or without provider): a
    positive price per token. A Router enters each deployment's model into the map without one."""
    cost_map = getattr(litellm, "model_cost", None) or {}
    for n in {str(n) for n in (model, hidden.get("litellm_model_name"), hidden.get("model")) if n}:
        for key in (n, n.split("/", 1)[-1]):
            info = cost_map.get(key) or {}
            if any(isinstance(info.get(f), (int, float)) and info[f] > 0
                   for f in ("input_cost_per_token", "output_cost_per_token")):
                return True
    return False


def _router_moves(hidden: dict) -> int | None:
    """How many times a litellm Router moved this call on (retried it, or fell back to another deployment or model
    group) before the answer, as its response headers say; None when no Router sent it."""
    headers = hidden.get("additional_headers") or {}
    moves: list[Any] = [headers.get(k) for k in ("x-litellm-attempted-retries", "x-litellm-attempted-fallbacks")]
    moves = [int(m) for m in moves if isinstance(m, (int, str)) and str(m).isdigit()]
    return sum(moves) if moves and hidden.get("model_id") else None


def _env_api_base(model: str) -> str | None:
    provider = model.split("/", 1)[0].upper() if "/" in model else "OPENAI"
    for name in (f"{provider}_API_BASE", f"{provider}_BASE_URL", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        if os.environ.get(name) and (name.startswith(provider) or provider == "OPENAI"):
            return os.environ[name]
    if provider == "OLLAMA":
        return "http://localhost:11434"
    return None


def _is_loopback(base: str | None) -> bool:
    if not base:
        return False
    host = urlparse(base if "://" in base else f"http://{base}").hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


class LLMClient:
    """Completions and P(Yes) with retries on transient errors, bounded concurrency, cache and call log."""

    def __init__(
        self,
        model: str,
        *,
        transport: Transport | None = None,
        cache: CallCache | None = None,
        concurrency: int = 8,
        timeout: float = 60.0,
        max_attempts: int = 6,
        backoff_max: float = 20.0,
        backoff_initial: float = 0.5,
        api_base: str | None = None,
        run_deadline: float | None = None,
        breaker_timeouts: int = 3,
        breaker_cooldown: float = 60.0,
    ):
        if not model or not model.strip():
            raise LLMError("empty model name; give a litellm model string such as openai/gpt-4o-mini")
        self.model = model
        self.api_base = api_base
        self.transport = transport or litellm_transport(api_base)
        self.cache = cache
        self.concurrency = max(1, int(concurrency))
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.backoff_max = backoff_max
        self.backoff_initial = backoff_initial
        self._calls: list[CallRecord] = []
        self._lock = threading.Lock()
        self.budget = None  # a citefix.estimate.Budget shared by a command's clients (--max-cost), or None
        # The bound holds across threads: two map() calls at once (CLI + TUI worker) still share `concurrency` slots.
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self.run_deadline = run_deadline or None  # seconds per run (begin_run() restarts the clock); None: no deadline
        self._deadline_at: float | None = None
        self.begin_run()
        # Breaker: after `breaker_timeouts` timeouts in a row the provider is taken as hanging; calls then fail at once
        # for `breaker_cooldown` seconds (then one call is let through to try again).
        self.breaker_timeouts = max(1, int(breaker_timeouts))
        self.breaker_cooldown = breaker_cooldown
        self._timeouts_in_row = 0
        self._breaker_until = 0.0
        self._sink: Callable[[CallRecord], None] | None = None

    def begin_run(self) -> None:
        """Start the per-run deadline clock (a command calls it when it starts each run)."""
        self._deadline_at = time.monotonic() + self.run_deadline if self.run_deadline else None

    def bind_log(self, sink: Callable[[CallRecord], None] | None) -> None:
        """Write every call and every failed attempt through `sink` as it completes (the store's call log), not only
        with its round: a kill then loses no spend, and every absorbed fault is on record."""
        self._sink = sink

    # -- call log -------------------------------------------------------------------------------------------------
    def drain_calls(self) -> list[CallRecord]:
        """Return and forget the calls logged since the last drain (the store writes them with the round)."""
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    def _log(self, rec: CallRecord) -> None:
        self._emit(rec)
        with self._lock:
            self._calls.append(rec)

    def _emit(self, rec: CallRecord) -> None:
        sink = self._sink
        if sink is not None:
            sink(rec)

    # -- calls ------------------------------------------------------------------------------------------------------
    def endpoint(self) -> str | None:
        """The base URL the request goes to: the client's, the transport's, else the one litellm reads from the
        environment (OPENAI_API_BASE, …) at call time. None for a litellm Router: each call names its deployment."""
        if getattr(self.transport, "router_digest", None):
            return None
        return self.api_base or getattr(self.transport, "api_base", None) or _env_api_base(self.model)

    def cache_key(self, messages, max_tokens: int, temperature: float, top_logprobs: int, prompt=None) -> str:
        """Everything that changes the answer: model, endpoint, prompt name/version/hash, messages and parameters."""
        extra = getattr(self.transport, "completion_kwargs", None) or {}
        payload = json.dumps(
            {"model": self.model, "endpoint": self.endpoint(), "transport_kwargs": {k: repr(v) for k, v in extra.items()},
             "prompt": [getattr(prompt, "name", None), getattr(prompt, "version", None), getattr(prompt, "hash", None)],
             "messages": messages, "max_tokens": max_tokens, "temperature": temperature, "top_logprobs": top_logprobs},
            sort_keys=True, default=str,
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_logprobs: int = 0,
        prompt=None,
    ) -> Completion:
        key = self.cache_key(messages, max_tokens, temperature, top_logprobs, prompt)
        rec = CallRecord(
            purpose=purpose,
            model=self.model,
            prompt_name=getattr(prompt, "name", None),
            prompt_version=getattr(prompt, "version", None),
            prompt_hash=getattr(prompt, "hash", None),
            messages=messages,
        )
        if self.cache is not None and temperature == 0:
            hit = self.cache.get(key)
            if hit is not None:
                return self._from_cache(hit, rec)
        if self.budget is not None:  # --max-cost: refuse a call that would pass the limit, before it is made
            self.budget.before(self.model, messages, max_tokens)
        started = time.perf_counter()
        raw, attempts = self._call_with_retries(rec, messages, max_tokens, temperature, top_logprobs, started)
        latency = (time.perf_counter() - started) * 1000
        if self.budget is not None:
            self.budget.after(raw.cost)
        comp = Completion(
            text=raw.text,
            top_logprobs=raw.top_logprobs,
            prompt_tokens=raw.prompt_tokens,
            completion_tokens=raw.completion_tokens,
            cost=raw.cost,
            latency_ms=latency,
        )
        self._log_answer(rec, raw, latency, attempts)
        if self.cache is not None and temperature == 0:
            self.cache.put(
                key,
                self.model,
                {
                    "text": raw.text,
                    "top_logprobs": raw.top_logprobs,
                    "prompt_tokens": raw.prompt_tokens,
                    "completion_tokens": raw.completion_tokens,
                },
            )
        return comp

    def _from_cache(self, hit: dict, rec: CallRecord) -> Completion:
        """A cached answer as a completion (no cost, no latency), logged as a cached call."""
        comp = Completion(
            text=redact(hit["text"]) or "",
            top_logprobs=[[tuple(p) for p in pos] for pos in hit["top_logprobs"]] if hit.get("top_logprobs") else None,
            prompt_tokens=hit.get("prompt_tokens"),
            completion_tokens=hit.get("completion_tokens"),
            cost=0.0,
            cached=True,
        )
        rec.response, rec.cached, rec.latency_ms, rec.cost = comp.text, True, 0.0, 0.0
        rec.status, rec.attempt = "cached", 0
        rec.logprobs = _lp_json(comp.top_logprobs)
        self._log(rec)
        return comp

    def _call_with_retries(self, rec: CallRecord, messages: list[dict[str, Any]], max_tokens: int,
                           temperature: float, top_logprobs: int, started: float) -> tuple[RawResponse, int]:
        """The transport called until it answers (transient failures retried with backoff); the answer and the
        number of attempts. A failure that is not retried is logged and raised as an LLMError."""
        attempts = 0
        while True:
            attempts += 1
            t0 = time.perf_counter()
            try:
                self._check_breaker_and_deadline()
                with self._slots:
                    raw = self.transport(
                        model=self.model,
                        messages=messages,
                        max_tokens=max_tokens,
                        temperature=temperature,
                        top_logprobs=top_logprobs,
                        timeout=self._call_timeout(),
                    )
                if not isinstance(getattr(raw, "text", None), str):
                    raise MalformedResponse(f"{self.model!r} answered without text")
                # the boundary where the model's text enters citefix: secrets it echoes are removed here, before the
                # text is parsed, cached, stored or printed
                raw.text = redact(raw.text) or ""
                self._timeouts_in_row = 0
                return raw, attempts
            except RemoteRequestBlocked:
                raise
            except _Stop as stop:  # breaker open or deadline passed: no (further) attempt
                attempts -= 1
                self._fail(rec, stop.message, stop.kind, attempts, started)
                raise LLMError(stop.message) from None
            except Exception as exc:  # noqa: BLE001 - every failure is classified, logged, retried or surfaced
                time.sleep(self._retry_wait(exc, rec, attempts, started, t0))

    def _retry_wait(self, exc: Exception, rec: CallRecord, attempts: int, started: float, t0: float) -> float:
        """A failed attempt classified: the seconds to wait before the next one (the attempt logged as retried), or,
        when it is not retried (not transient, out of attempts, past the run's deadline), the call logged as failed
        and an LLMError raised."""
        kind = error_class(exc)
        # the URL the request went to: the endpoint citefix sent it to; a Router's deployment as litellm reports it
        # (litellm's own report names its default host when the base came from the environment)
        dep, reported = deployment_of(exc)
        rec.deployment, rec.api_base = dep, self.endpoint() or reported
        if kind == "timeout":
            self._note_timeout()
        retry = is_transient(exc) and attempts < self.max_attempts
        wait = self._backoff(attempts, exc) if retry else 0.0
        message = explain_error(exc, self.model)
        if is_transient(exc) and self._deadline_at is not None and time.monotonic() + wait >= self._deadline_at:
            retry = False
            message = (f"the run's deadline of {self.run_deadline:g} s passed while {self.model!r} kept "
                       f"failing ({kind}); raise --run-deadline (or CITEFIX_RUN_DEADLINE) or try again later")
        if not retry:
            self._fail(rec, message, kind, attempts, started)
            raise LLMError(rec.error) from exc
        self._emit(rec.model_copy(update={
            "deployment": dep, "api_base": redact(rec.api_base),
            "status": "retried", "error": explain_error(exc, self.model), "error_class": kind, "attempt": attempts,
            "attempts": attempts, "latency_ms": (time.perf_counter() - t0) * 1000, "response": None}))
        return wait

    def _log_answer(self, rec: CallRecord, raw: RawResponse, latency: float, attempts: int) -> None:
        """The call record of an answered call filled in (response, tokens, cost, latency, deployment) and logged."""
        rec.response = redact(raw.text)
        rec.logprobs = _lp_json(raw.top_logprobs)
        rec.prompt_tokens, rec.completion_tokens, rec.cost = raw.prompt_tokens, raw.completion_tokens, raw.cost
        rec.latency_ms, rec.attempts, rec.attempt, rec.status = latency, attempts, attempts, "ok"
        rec.deployment, rec.api_base = getattr(raw, "deployment", None), redact(getattr(raw, "api_base", None) or
                                                                                  self.endpoint())
        rec.router_fallbacks = getattr(raw, "router_fallbacks", None)
        self._log(rec)

    def _fail(self, rec: CallRecord, message: str, kind: str, attempts: int, started: float) -> None:
        rec.error, rec.error_class, rec.status = message, kind, "error"
        rec.api_base = redact(rec.api_base or self.endpoint())
        rec.attempts, rec.attempt = attempts, attempts
        rec.latency_ms = (time.perf_counter() - started) * 1000
        self._log(rec)

    def _backoff(self, attempt: int, exc: BaseException) -> float:
        """Exponential backoff with full jitter, capped at backoff_max, never sooner than the provider's Retry-After."""
        import random

        cap = min(self.backoff_max, self.backoff_initial * (2 ** (attempt - 1)))
        wait = random.uniform(0, cap) if cap > 0 else 0.0
        asked = retry_after(exc)
        return max(wait, min(asked, RETRY_AFTER_CAP)) if asked is not None else wait

    def _call_timeout(self) -> float:
        if self._deadline_at is None:
            return self.timeout
        return max(0.05, min(self.timeout, self._deadline_at - time.monotonic()))

    def _note_timeout(self) -> None:
        with self._lock:
            self._timeouts_in_row += 1
            if self._timeouts_in_row >= self.breaker_timeouts:
                self._breaker_until = time.monotonic() + self.breaker_cooldown

    def _check_breaker_and_deadline(self) -> None:
        if self._deadline_at is not None and time.monotonic() >= self._deadline_at:
            raise _Stop(f"the run's deadline of {self.run_deadline:g} s passed before {self.model!r} answered; "
                        "raise --run-deadline (or CITEFIX_RUN_DEADLINE) or try again later", "deadline")
        with self._lock:
            if self._breaker_until and time.monotonic() < self._breaker_until:
                # the number that trips the breaker (calls already in flight may time out after it tripped)
                raise _Stop(f"{self.model!r} timed out {self.breaker_timeouts} times in a row (timeout "
                            f"{self.timeout:g} s), so citefix stopped calling it for {self.breaker_cooldown:g} s; check "
                            "that the provider is up, or raise --llm-timeout", "breaker_open")
            if self._breaker_until:  # cooled down: let this call through as a trial
                self._breaker_until = 0.0
                self._timeouts_in_row = self.breaker_timeouts - 1

    def yes_probability(self, messages: list[dict[str, Any]], *, purpose: str, prompt=None) -> YesNo:
        comp = self.complete(messages, purpose=purpose, max_tokens=5, temperature=0.0, top_logprobs=20, prompt=prompt)
        return yes_no_from(comp)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """fn over items, at most `concurrency` at once, results in input order."""
        items = list(items)
        if self.concurrency == 1 or len(items) <= 1:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(items))) as pool:
            return list(pool.map(fn, items))


def _lp_json(tops):
    if not tops:
        return None
    return [{"top": [[t, lp] for t, lp in pos]} for pos in tops[:3]]


def _norm(token: str) -> str:
    return "".join(ch for ch in token.lower() if ch.isalpha())


def parse_yes_no(text: str) -> bool | None:
    """First yes/no word of an answer; None when it has neither."""
    for word in text.replace("*", " ").split():
        w = _norm(word)
        if w in ("yes", "true"):
            return True
        if w in ("no", "false"):
            return False
        if w:
            break
    return None


def yes_no_from(comp: Completion) -> YesNo:
    """Normalised P(Yes) from the first non-empty answer token's top log-probabilities, else the parsed answer."""
    if comp.top_logprobs:
        for pos in comp.top_logprobs:
            if not any(_norm(t) for t, _ in pos[:1]):
                continue  # skip leading whitespace / markup tokens
            p_yes = sum(math.exp(lp) for t, lp in pos if _norm(t) == "yes")
            p_no = sum(math.exp(lp) for t, lp in pos if _norm(t) == "no")
            if p_yes + p_no > 0:
                return YesNo(score=p_yes / (p_yes + p_no), discrete=False, answer=comp.text)
            break
    parsed = parse_yes_no(comp.text)
    if parsed is None:
        return YesNo(score=None, discrete=True, answer=comp.text, error=f"answer is neither Yes nor No: {comp.text[:80]!r}")
    return YesNo(score=1.0 if parsed else 0.0, discrete=True, answer=comp.text)
