"""A small OpenAI-compatible chat server on 127.0.0.1 for tests and the benchmark.

    with LoopbackLLM(responder=fn) as srv:           # fn(request_json) -> str | Reply | RawResponse
        srv.inject("429", "500", ("slow", 3.0))      # faults applied to the next requests, in order
        srv.chaos(0.3, seed=1)                         # or: each request faulty with probability 0.3 (random kind)
        ... OPENAI_API_BASE=srv.base_url ...

Serves POST /v1/chat/completions and /chat/completions. When the request asks for logprobs, the answer carries them in
OpenAI's shape (choices[0].logprobs.content[i].top_logprobs). Only binds 127.0.0.1; refuses after `max_requests`
requests so a runaway retry loop ends. Run it alone for manual checks: `python tests/loopback.py [port]`.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

PATHS = ("/v1/chat/completions", "/chat/completions")
# Faults a request can be given: HTTP errors; "slow"/"hang" (answer late / never); "close" (drop the connection
# without an answer); malformed 200s: "truncated" (JSON cut in half), "empty_choices", "no_message".
FAULT_KINDS = ("429", "500", "503", "401", "slow", "hang", "close", "truncated", "empty_choices", "no_message")
CHAOS_KINDS = ("429", "500", "close", "truncated", "empty_choices", "no_message")


@dataclass
class Reply:
    """A scripted answer: its text and, optionally, per-token top log-probs [(token, logprob), ...]."""

    text: str
    top_logprobs: list[list[tuple[str, float]]] | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def yes_reply(p_yes: float, variants: tuple[str, str] = ("Yes", "No")) -> Reply:
    """A one-token Yes/No answer whose first-token top log-probs give P(Yes) = p_yes."""
    p = min(max(p_yes, 1e-6), 1 - 1e-6)
    top = sorted([(variants[0], math.log(p)), (variants[1], math.log(1 - p))], key=lambda t: -t[1])
    return Reply(text=top[0][0], top_logprobs=[top])


@dataclass
class Fault:
    kind: str  # "429" | "500" | "503" | "401" | "slow" | "hang" | "close" | "truncated" | "empty_choices" | "no_message"
    seconds: float = 0.0  # "slow": delay before answering; "429": the Retry-After value
    retry_after: float | None = None


def _fault(spec: Any) -> Fault:
    if isinstance(spec, Fault):
        return spec
    if isinstance(spec, tuple):
        kind, seconds = spec
        return Fault(str(kind), float(seconds), retry_after=float(seconds) if str(kind) == "429" else None)
    kind = str(spec)
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault {spec!r}; use one of {', '.join(FAULT_KINDS)} or ('slow', seconds)")
    if kind == "hang":
        return Fault("slow", 3600.0)
    return Fault(kind, 0.0, retry_after=0 if kind == "429" else None)


def messages_responder(fn: Callable[[list[dict[str, Any]]], Any]) -> Callable[[dict[str, Any]], Any]:
    """Adapt a responder of the messages (like tests/conftest.py's acu_responder) to one of the request JSON."""
    return lambda req: fn(req.get("messages") or [])


@dataclass
class Stats:
    requests: int = 0  # every POST that reached a handler
    answered: int = 0  # 200 answers sent (not counting slow ones the client gave up on)
    faults: list[str] = field(default_factory=list)  # faults applied, in order
    refused: int = 0  # over max_requests


class LoopbackLLM:
    def __init__(
        self,
        responder: Callable[[dict[str, Any]], Any] | None = None,
        *,
        latency: float = 0.0,
        max_requests: int = 5000,
        port: int = 0,
        model: str = "test-model",
    ):
        self.responder = responder or (lambda req: "Yes")
        self.latency = latency
        self.max_requests = max_requests
        self.model = model
        self.port = port
        self.faults: deque[Fault] = deque()
        self.stats = Stats()
        self.requests: list[dict[str, Any]] = []  # request JSON bodies, in arrival order
        self.authorizations: list[str] = []  # Authorization headers seen (to prove a key was sent)
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control -----------------------------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def inject(self, *faults: Any) -> "LoopbackLLM":
        """Queue faults for the next requests: '429', '500', '503', '401', ('slow', seconds), ('429', retry_after)."""
        with self._lock:
            self.faults.extend(_fault(f) for f in faults)
        return self

    def chaos(self, rate: float, kinds: tuple[str, ...] = CHAOS_KINDS, *, seed: int = 0) -> "LoopbackLLM":
        """From now on each request (after the queued faults) is given a fault with probability `rate`, its kind drawn
        from `kinds`, reproducibly from `seed`."""
        import random

        with self._lock:
            self._chaos = (float(rate), tuple(_fault(k) for k in kinds), random.Random(seed))
        return self

    def start(self) -> "LoopbackLLM":
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes slow handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> "LoopbackLLM":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- answering ----------------------------------------------------------------------------------------------------
    def _next_fault(self) -> Fault | None:
        with self._lock:
            if self.faults:
                return self.faults.popleft()
            chaos = getattr(self, "_chaos", None)
            if chaos and chaos[2].random() < chaos[0]:
                return chaos[2].choice(chaos[1])
            return None

    def _answer(self, req: dict[str, Any]) -> dict[str, Any]:
        out = self.responder(req)
        reply = _as_reply(out)
        want_lp = bool(req.get("logprobs"))
        n_top = int(req.get("top_logprobs") or 0)
        logprobs = None
        if want_lp:
            tops = reply.top_logprobs or [[(tok, 0.0)] for tok in _tokens(reply.text)]
            content = []
            for pos in tops:
                pos = sorted(pos, key=lambda t: -t[1])
                tok, lp = pos[0]
                content.append(
                    {
                        "token": tok,
                        "logprob": lp,
                        "bytes": list(tok.encode()),
                        "top_logprobs": [
                            {"token": t, "logprob": v, "bytes": list(t.encode())} for t, v in pos[: max(n_top, 1)]
                        ],
                    }
                )
            logprobs = {"content": content, "refusal": None}
        prompt_tokens = reply.prompt_tokens
        if prompt_tokens is None:
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in req.get("messages") or [])
        completion_tokens = reply.completion_tokens if reply.completion_tokens is not None else max(1, len(_tokens(reply.text)))
        return {
            "id": f"chatcmpl-loopback-{self.stats.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": req.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "logprobs": logprobs,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _tokens(text: str) -> list[str]:
    """A crude tokenisation: words with their leading space, as OpenAI tokens look."""
    words = text.split(" ")
    return [w if i == 0 else " " + w for i, w in enumerate(words) if w or i == 0] or [""]


def _as_reply(out: Any) -> Reply:
    if isinstance(out, Reply):
        return out
    if isinstance(out, str):
        return Reply(text=out)
    if hasattr(out, "text") and hasattr(out, "top_logprobs"):  # citefix.llm.client.RawResponse (e.g. fake.yes_answer)
        return Reply(text=out.text, top_logprobs=out.top_logprobs, prompt_tokens=getattr(out, "prompt_tokens", None),
                     completion_tokens=getattr(out, "completion_tokens", None))
    raise TypeError(f"responder returned {type(out).__name__}; return a str, Reply or RawResponse")


def _make_handler(srv: LoopbackLLM):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart (Nagle + delayed ACK)

        def log_message(self, fmt, *args):  # quiet
            pass

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> bool:
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                return True
            except (BrokenPipeError, ConnectionResetError, OSError):
                return False  # the client gave up (timeout)

        def _send_raw(self, status: int, data: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except OSError:
                pass

        def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
            self._send(status, {"error": {"message": message, "type": kind, "code": str(status)}}, headers)

        def do_GET(self):
            if self.path.rstrip("/") == "/stats":  # for a benchmark that runs the server in another process
                with srv._lock:
                    body = {**srv.stats.__dict__, "max_in_flight": srv.max_in_flight}
                self._send(200, body)
                return
            self._error(404, "only POST /v1/chat/completions (and GET /stats) are served", "not_found")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") not in PATHS:
                self._error(404, f"unknown path {self.path}", "not_found")
                return
            try:
                req = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._error(400, "request body is not JSON", "invalid_request_error")
                return
            with srv._lock:
                srv.stats.requests += 1
                if srv.stats.requests > srv.max_requests:
                    srv.stats.refused += 1
                    refuse = True
                else:
                    refuse = False
                    srv.requests.append(req)
                    srv.authorizations.append(self.headers.get("Authorization") or "")
                srv.in_flight += 1
                srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
            try:
                if refuse:
                    self._error(400, f"loopback server: more than {srv.max_requests} requests", "invalid_request_error")
                    return
                fault = srv._next_fault()
                if fault is not None:
                    with srv._lock:
                        srv.stats.faults.append(fault.kind)
                    if fault.kind == "429":
                        self._error(429, "rate limit reached (injected)", "rate_limit_exceeded",
                                    {"Retry-After": f"{fault.retry_after or 0:g}"})
                        return
                    if fault.kind == "401":  # echoes the key back, as providers do (in part) in their message
                        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                        self._error(401, f"Incorrect API key provided: {key}.", "invalid_api_key")
                        return
                    if fault.kind in ("500", "503"):
                        self._error(int(fault.kind), "server error (injected)", "server_error")
                        return
                    if fault.kind == "close":  # no status line at all: the client sees the connection drop
                        self.close_connection = True
                        try:
                            self.connection.shutdown(2)
                        except OSError:
                            pass
                        return
                    if fault.kind in ("truncated", "empty_choices", "no_message"):
                        body = srv._answer(req)
                        if fault.kind == "empty_choices":
                            body["choices"] = []
                        elif fault.kind == "no_message":
                            del body["choices"][0]["message"]
                        data = json.dumps(body).encode()
                        if fault.kind == "truncated":
                            data = data[: len(data) // 2]
                        self._send_raw(200, data)
                        return
                    if fault.kind == "slow":
                        srv._stop.wait(fault.seconds)
                        self._send(200, srv._answer(req))  # usually to a client that has already given up
                        return
                if srv.latency:
                    srv._stop.wait(srv.latency)
                try:
                    body = srv._answer(req)
                except Exception as exc:  # a broken responder is a test bug: say so in the answer
                    self._error(400, f"loopback responder failed: {type(exc).__name__}: {exc}", "invalid_request_error")
                    return
                with srv._lock:  # count before sending: the client may read stats as soon as it has the answer
                    srv.stats.answered += 1
                if not self._send(200, body):
                    with srv._lock:
                        srv.stats.answered -= 1
            finally:
                with srv._lock:
                    srv.in_flight -= 1

    return Handler


def fetch_stats(base_url: str) -> dict[str, Any]:
    """GET /stats of a loopback server (e.g. one running in another process)."""
    from urllib.request import urlopen

    with urlopen(base_url.rsplit("/v1", 1)[0] + "/stats", timeout=5) as resp:  # noqa: S310 - 127.0.0.1 only
        return json.loads(resp.read())


if __name__ == "__main__":  # serve "Yes" (P = 0.9) with log-probs: loopback.py [PORT] [LATENCY_S] [FAIL_RATE]
    import sys

    server = LoopbackLLM(lambda req: yes_reply(0.9), port=int(sys.argv[1]) if len(sys.argv) > 1 else 0,
                         latency=float(sys.argv[2]) if len(sys.argv) > 2 else 0.0, max_requests=1_000_000).start()
    if len(sys.argv) > 3 and float(sys.argv[3]) > 0:  # that share of requests answered 500, reproducibly
        server.chaos(float(sys.argv[3]), kinds=("500",), seed=1)
    print(f"serving on {server.base_url}", flush=True)
    try:
        sys.stdin.read()  # until standard input closes (Ctrl-D, or the parent process ends): never an orphan
    except KeyboardInterrupt:
        pass
    server.stop()
