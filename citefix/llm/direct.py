"""A transport that talks to an OpenAI-compatible server itself (vLLM, Ollama's /v1, llama.cpp's server, LM Studio,
TGI): one aiohttp POST to `{api_base}/chat/completions` per call, on citefix's background event loop.

Why: litellm spends 3-4 ms of CPU on each answer (the OpenAI SDK's request and response types, its response metadata
and pricing, the hand-off to its executor), which at 16 calls in flight to a 200 ms server holds citefix, and litellm
alone, to about 0.9 of the ideal throughput on two cores; a bare aiohttp client reaches 0.98. This transport sends the
same request litellm would send for an `openai/<name>` model and reads the same answer, with none of that work.

What it does not do: anything but OpenAI's chat completions API; litellm's callbacks, cache and budgets (nothing
registered with litellm sees these calls); pricing (every call's cost is recorded as unknown). The client around it
(retries, breaker, deadline, cache, call log) is unchanged: failures are raised as exceptions that
`citefix.llm.failures` classifies as it classifies litellm's (a status code, the Retry-After header, the SDK's names
for a timeout and a dropped connection). Chosen with the setting `llm_transport = "direct"` (citefix.pipeline).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
from typing import Any, cast
from urllib.parse import urlparse

import aiohttp

import citefix.llm.client as _client  # ALLOW_REMOTE_REQUESTS read at call time: tests switch it off
from citefix.errors import ConfigError
from citefix.llm.aio import run_on_loop
from citefix.llm.client import RawResponse, RemoteRequestBlocked, Transport, _env_api_base, _is_loopback
from citefix.llm.failures import MalformedResponse, TransientLLMError, register_secret

# The key a server may ask for (sent as a Bearer token, never stored or logged): the one litellm sends to an `openai/`
# model, so that switching transports changes nothing else. Local servers mostly need none.
API_KEY_ENV = "OPENAI_API_KEY"
PREFIX = "openai/"  # litellm's prefix for an OpenAI-compatible server; the server itself knows the model without it


class APIStatusError(Exception):
    """The server answered with an error status. `status_code` and the headers (on `.response`, where
    `failures.retry_after` reads Retry-After) let the client classify it as it classifies litellm's: 429 and 5xx
    retried, 400/401/403/404 not."""

    def __init__(self, message: str, status_code: int, headers: dict[str, str]):
        super().__init__(message)
        self.status_code = status_code
        self.response = _Headers(headers)


class _Headers:
    """A response's headers, lower-cased, as `exc.response.headers`."""

    def __init__(self, headers: dict[str, str]):
        self.headers = headers


class APITimeoutError(TransientLLMError):
    """No answer within the call's timeout. Named like the OpenAI SDK's class, by which failures.py knows a timeout."""


class APIConnectionError(TransientLLMError):
    """The connection was refused, reset or dropped before a whole answer came (failures.py: "connection")."""


def served_name(model: str) -> str:
    """The model name the server knows: the litellm model string without its `openai/` prefix."""
    return model[len(PREFIX):] if model.startswith(PREFIX) else model


def env_api_base() -> str | None:
    """The base URL litellm would send an `openai/` model to (OPENAI_API_BASE, then OPENAI_BASE_URL)."""
    return _env_api_base(PREFIX + "any")


def direct_transport_from_settings() -> Transport:
    """The transport for `llm_transport = "direct"`, to the server the environment names; a ConfigError saying what
    to set when it names none."""
    base = env_api_base()
    if not base:
        raise ConfigError("llm_transport = 'direct' needs the server's base URL, and none is set: set OPENAI_API_BASE "
                          "(e.g. http://127.0.0.1:8000/v1), or set llm_transport (CITEFIX_LLM_TRANSPORT, "
                          "--llm-transport) back to litellm")
    return openai_compatible_transport(base)


def openai_compatible_transport(api_base: str, api_key: str | None = None) -> Transport:
    """A transport that POSTs each call to `{api_base}/chat/completions` (api_base as `http://127.0.0.1:8000/v1`).

    The key is `api_key` (redacted from everything stored, like an environment key), else OPENAI_API_KEY read at each
    call (as litellm reads it); none is sent when neither is set. A base that is not an http(s) URL is a ConfigError here, not a failure retried on every call."""
    url = chat_url(api_base)
    register_secret(api_key)

    def call(*, model, messages, max_tokens, temperature, top_logprobs, timeout):
        if not _client.ALLOW_REMOTE_REQUESTS and not _is_loopback(api_base):
            raise RemoteRequestBlocked(f"test tried to reach a remote model {model!r} at {api_base!r}")
        key = api_key or os.environ.get(API_KEY_ENV) or None
        body = request_body(model, messages, max_tokens, temperature, top_logprobs)
        status, headers, raw = send(url, body, key, timeout, model)
        if not 200 <= status < 300:
            raise status_error(status, headers, raw, model, key)
        return parse_answer(raw, model, api_base)

    # The cache key names the endpoint (LLMClient.endpoint): the same base URL as litellm_transport's for the same
    # `openai/` model, on purpose. Both send the same request (model name, messages, max_tokens, temperature,
    # log-probs) to the same server, whose answer at temperature 0 is the same answer, stored the same way (text,
    # log-probs, tokens; never the cost); switching transports should not throw the cache away. A model string
    # litellm would send elsewhere (ollama/..., another provider) has another endpoint, so another key. No
    # completion_kwargs attribute: nothing of the key (or anything secret) is added to the cache key.
    cast(Any, call).api_base = api_base
    return call


def chat_url(api_base: str) -> str:
    """`{api_base}/chat/completions`, once the base is checked to be an http(s) URL with a host."""
    parsed = urlparse(api_base)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"the base URL {api_base!r} is not an http(s) URL; set OPENAI_API_BASE to the server's "
                          "OpenAI-compatible base, e.g. http://127.0.0.1:8000/v1")
    return api_base.rstrip("/") + "/chat/completions"


def request_body(model: str, messages: list[dict[str, Any]], max_tokens: int, temperature: float,
                 top_logprobs: int) -> dict[str, Any]:
    """The chat completion request, as litellm builds it for an `openai/` model (log-probs only when asked for)."""
    body: dict[str, Any] = {"model": served_name(model), "messages": messages, "max_tokens": max_tokens,
                            "temperature": temperature}
    if top_logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = top_logprobs
    return body


def send(url: str, body: dict[str, Any], key: str | None, timeout: float, model: str) -> tuple[int, dict, bytes]:
    """POST the body on the background loop and wait for the whole answer: its status, lower-cased headers and
    bytes. A timeout (aiohttp's, or the loop's grace after it) raises APITimeoutError; a refused, reset or dropped
    connection, or a body cut short, APIConnectionError."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        return run_on_loop(lambda: _post(url, body, headers, timeout), timeout)
    except TimeoutError:  # aiohttp's ServerTimeoutError is one too
        raise APITimeoutError(f"the call to {model!r} at {url} timed out after {timeout:g} s") from None
    except aiohttp.ClientError as exc:  # refused, reset, disconnected, a cut-off body
        raise APIConnectionError(f"connection error calling {model!r} at {url}: {type(exc).__name__}: "
                                 f"{exc or 'no answer'}") from None


async def _post(url: str, body: dict[str, Any], headers: dict[str, str], timeout: float) -> tuple[int, dict, bytes]:
    async with _session().post(url, json=body, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as resp:
        raw = await resp.read()
        return resp.status, {k.lower(): v for k, v in resp.headers.items()}, raw


# One session per event loop: its connection pool keeps the connections to the server open from call to call (a new
# session per call would open a connection per call). Each is only touched on its loop's thread, and kept with the id
# of the process that made it (a forked child inherits the dict, not the threads that run its loops).
_SESSIONS: dict[asyncio.AbstractEventLoop, tuple[int, aiohttp.ClientSession]] = {}


def _session() -> aiohttp.ClientSession:
    """The running loop's session, made on first use. No connection limit of its own (aiohttp's default is 100):
    the clients' `concurrency` bounds the calls in flight. Proxy variables are honoured, as litellm honours them."""
    loop = asyncio.get_running_loop()
    pid, session = _SESSIONS.get(loop, (None, None))
    if session is None or session.closed or pid != os.getpid():
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), trust_env=True)
        _SESSIONS[loop] = (os.getpid(), session)
    return session


@atexit.register
def _close_sessions() -> None:
    """Close this process's sessions whose loop still runs (its daemon thread lives until after the exit handlers),
    so that aiohttp prints no "Unclosed client session" as the interpreter shuts down."""
    for loop, (pid, session) in list(_SESSIONS.items()):
        if pid == os.getpid() and not session.closed and loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(session.close(), loop).result(timeout=2)
            except Exception:  # noqa: BLE001 - leaving anyway
                pass


def status_error(status: int, headers: dict[str, str], raw: bytes, model: str, key: str | None) -> APIStatusError:
    """An error answer as an APIStatusError whose text holds the server's own message (the key removed, should the
    server echo it, as some do when refusing it)."""
    message = server_message(raw)
    if key:
        message = message.replace(key, "[REDACTED]")
    return APIStatusError(f"{status} from the server for {model!r}: {message}", status, headers)


def server_message(raw: bytes) -> str:
    """The message of an error body: OpenAI's {"error": {"message": ...}}, vLLM's {"message": ...}, TGI's
    {"error": "..."}, else the start of the body as text."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text[:300] or "(empty body)"
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    if isinstance(error, str) and error:
        return error
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])
    return text[:300]


def parse_answer(raw: bytes, model: str, api_base: str) -> RawResponse:
    """A 200's body as a RawResponse (text, top log-probs per token, tokens; cost unknown), read as `raw_response`
    reads litellm's: a body that is not JSON, has no choices, or no text message in its first choice raises
    MalformedResponse (retried)."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedResponse(f"{model!r} answered 200 with a body that is not JSON ({exc})") from None
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices or not isinstance(choices, list):
        raise MalformedResponse(f"{model!r} answered 200 with no choices")
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not (content is None or isinstance(content, str)):
        raise MalformedResponse(f"{model!r} answered 200 without a text message in its first choice")
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    return RawResponse(text=content or "", top_logprobs=top_logprobs_of(choice, model),
                       prompt_tokens=_count(usage.get("prompt_tokens")),
                       completion_tokens=_count(usage.get("completion_tokens")), cost=None, api_base=api_base)


def top_logprobs_of(choice: dict[str, Any], model: str) -> list[list[tuple[str, float]]] | None:
    """Per generated token, its top alternatives [(token, logprob), ...] (the token itself when the server sent no
    alternatives); None when the answer has no log-probs."""
    lp = choice.get("logprobs")
    content = lp.get("content") if isinstance(lp, dict) else None
    if not content:
        return None
    try:
        tops = []
        for tok in content:
            pairs = [(str(t["token"]), float(t["logprob"])) for t in tok.get("top_logprobs") or []]
            tops.append(pairs or [(str(tok["token"]), float(tok["logprob"]))])
        return tops
    except (AttributeError, KeyError, TypeError, ValueError):
        raise MalformedResponse(f"{model!r} answered 200 with log-probs not in OpenAI's shape") from None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
