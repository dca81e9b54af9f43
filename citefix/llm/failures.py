"""What went wrong with a model call: which failures are worth retrying (`is_transient`, `TransientLLMError`,
`MalformedResponse`), how long the provider asked us to wait, a short class name for the call log (`error_class`),
a one-line message that says what to fix (`explain_error`), and secrets kept out of both (`redact`).

Used by `citefix.llm.client`, which re-exports every name here.
"""

from __future__ import annotations

import os

_TRANSIENT_NAMES = {
    "RateLimitError",
    "Timeout",
    "APITimeoutError",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
    "TransientLLMError",
}


class TransientLLMError(Exception):
    """A failure worth retrying (rate limit, timeout, connection, 5xx). Transports may raise it directly."""


class MalformedResponse(TransientLLMError):
    """A 200 whose body is not a usable completion (no choices, no message, cut-off JSON): retried like a 5xx."""


# Substrings by which litellm/openai report a body they could not parse or a dropped connection (both as a 500).
_MALFORMED_HINTS = ("expecting value", "expecting '", "expecting property", "invalid response object",
                    "unterminated string", "jsondecodeerror", "invalid control character",
                    "extra data", "malformed")
_CONNECTION_HINTS = ("connection error", "connection reset", "remote end closed", "server disconnected",
                     "connection aborted", "connection refused")


def error_class(exc: BaseException) -> str:
    """A short name for what went wrong, for the call log: rate_limit, timeout, connection, malformed_response,
    server_error, auth, not_found, bad_request, missing_credentials, or the exception's type name."""
    names = {c.__name__ for c in type(exc).__mro__}
    text = str(exc).lower()
    status = getattr(exc, "status_code", None)
    if isinstance(exc, MalformedResponse) or any(h in text for h in _MALFORMED_HINTS):
        return "malformed_response"
    if _missing_credentials(exc):
        return "missing_credentials"
    if "RateLimitError" in names or status == 429:
        return "rate_limit"
    if names & {"Timeout", "APITimeoutError"} or "timed out" in text or "timeout" in text:
        return "timeout"
    if "APIConnectionError" in names or any(h in text for h in _CONNECTION_HINTS):
        return "connection"
    if "Authentication" in " ".join(names) or status in (401, 403):
        return "auth"
    if "NotFoundError" in names or status == 404:
        return "not_found"
    if isinstance(status, int) and status >= 500 or names & {"InternalServerError", "ServiceUnavailableError",
                                                              "BadGatewayError"}:
        return "server_error"
    if isinstance(status, int) and 400 <= status < 500:
        return "bad_request"
    if isinstance(exc, TransientLLMError):
        return "transient"
    return type(exc).__name__


def deployment_of(exc: BaseException) -> tuple[str | None, str | None]:
    """The Router deployment and base URL a failed attempt went to, as litellm reports them on its exceptions."""
    dep = getattr(exc, "failed_deployment_id", None)
    info = str(getattr(exc, "litellm_debug_info", None) or "")
    base = None
    if "API Base: `" in info:
        base = info.split("API Base: `", 1)[1].split("`", 1)[0] or None
    return (str(dep) if dep else None), base


# litellm reports a missing API key as a 500 (InternalServerError): retrying cannot fix it.
_MISSING_CREDENTIALS = ("missing credentials", "api_key client option must be set", "no api key provided")


def _missing_credentials(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(m in text for m in _MISSING_CREDENTIALS)


def is_transient(exc: BaseException) -> bool:
    if _missing_credentials(exc):
        return False
    names = {c.__name__ for c in type(exc).__mro__}
    if names & _TRANSIENT_NAMES:
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (a Retry-After header in seconds), if it said."""
    for headers in (getattr(exc, "litellm_response_headers", None), getattr(getattr(exc, "response", None), "headers", None)):
        try:
            value = headers.get("retry-after") if headers is not None else None
        except Exception:  # not a mapping
            value = None
        if value is not None:
            try:
                return max(0.0, float(value))
            except (TypeError, ValueError):
                return None  # an HTTP date: fall back to our own backoff
    return None


_SECRET_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


_SECRET_NAMES: dict[str, bool] = {}  # environment variable name -> whether it looks like it holds a secret
_GIVEN: set[str] = set()  # secrets citefix was given other than in the environment (a key in the config file)


def register_secret(value: object) -> None:
    """Remember a secret citefix was given outside the environment (a literal api_key in the config's [router]
    table, a key passed to a transport), so that `redact` removes it too. A reference to an environment variable
    ("os.environ/NAME") is not a secret; its value is read and removed as the environment's."""
    if isinstance(value, str) and len(value) >= 8 and not value.startswith("os.environ/"):
        _GIVEN.add(value)


def redact(text: str | None) -> str | None:
    """Remove the values of secret-looking environment variables, and every secret citefix was given otherwise
    (`register_secret`), from text bound for the store, the screen or a reviser.

    It runs on every model call (the answer, the base URL), so it reads the environment cheaply: a text shorter than
    the shortest value it removes (8 characters, e.g. a "Yes") is returned at once, and only the values of variables
    whose names look secret are read (the verdict per name is remembered; the environment itself is read each time,
    so a key set later is still removed)."""
    if not text or len(text) < 8:
        return text
    for given in _GIVEN:
        if given in text:
            text = text.replace(given, "[REDACTED]")
    env = os.environ
    for name in env:
        secret = _SECRET_NAMES.get(name)
        if secret is None:
            secret = _SECRET_NAMES[name] = any(h in name.upper() for h in _SECRET_HINTS)
        if secret:
            value = env.get(name)
            if value is not None and len(value) >= 8 and value in text:
                text = text.replace(value, "[REDACTED]")
    return text


def explain_error(exc: BaseException, model: str) -> str:
    """A one-line message that says what to fix, for errors retrying will not fix."""
    name = type(exc).__name__
    detail = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else name) or name
    status = getattr(exc, "status_code", None)
    if _missing_credentials(exc):
        return f"no API key for {model!r}; set the provider's key in the environment, e.g. OPENAI_API_KEY (any value for a local server)"
    if "Authentication" in name or "PermissionDenied" in name or status in (401, 403):
        return f"the provider refused the credentials for {model!r} ({detail}); set its API key in the environment, e.g. OPENAI_API_KEY"
    if "NotFound" in name or status == 404:
        return f"model {model!r} was not found ({detail}); check the litellm model string and the base URL (e.g. OPENAI_API_BASE)"
    if "ContextWindow" in name:
        return f"the prompt is too long for {model!r} ({detail}); lower window_words in the config file (e.g. window_words = 800)"
    if "BadRequest" in name or "UnsupportedParams" in name or status in (400, 422):
        return f"{model!r} rejected the request ({detail}); check the model string and provider settings"
    if is_transient(exc):
        return (f"{model!r} kept failing after retries ({error_class(exc)}: {detail}); try again later or lower "
                "--concurrency")
    return f"call to {model!r} failed: {name}: {detail}; check the model string, its API key and base URL"
