"""litellm's async path for citefix's worker threads: one event loop in a background thread.

citefix's client runs `concurrency` worker threads (LLMClient.map); each used to sit in a sync `litellm.completion`,
so 16 calls in flight were 16 threads taking turns at the GIL for every read, parse and log of their requests. Now
each worker hands its call to `litellm.acompletion` on one shared event loop (with litellm's aiohttp transport) and
waits for the answer without holding the GIL: the same requests, parameters, answers and errors, with less switching
between threads: 640 calls at 16 in flight to a 200 ms server, 0.88-0.93 of the ideal against 0.81-0.90 before
(`python -m bench.bench_router --units 640`, its "healthy server alone", with citefix/llm/unpriced.py's price entry).
What the client does around a call (its retries, breaker, deadline, cache, call log) is unchanged: each call is still one
blocking transport call in a worker thread. With anything registered with litellm the call stays on the sync path.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any, Awaitable, Callable, TypeVar

from citefix.llm.failures import TransientLLMError
from citefix.llm.unobserved import litellm_listens, unobserved_call

T = TypeVar("T")

# seconds past a call's own timeout that a worker waits for litellm to raise it before giving up on the call itself
GRACE = 5.0

_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_PID: int | None = None
_LOCK = threading.Lock()


def background_loop() -> asyncio.AbstractEventLoop:
    """The process's event loop for litellm's async calls, running in a daemon thread (started on first use, and
    again in a forked child, whose copy of the loop has no thread running it)."""
    global _LOOP, _LOOP_PID
    with _LOCK:
        if _LOOP is None or _LOOP_PID != os.getpid() or _LOOP.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="citefix-llm-loop", daemon=True).start()
            _LOOP, _LOOP_PID = loop, os.getpid()
        return _LOOP


def run_on_loop(make: Callable[[], Awaitable[T]], timeout: float, loop: asyncio.AbstractEventLoop | None = None) -> T:
    """Run the coroutine ``make()`` on the background loop (or ``loop``) and wait for its result in this thread: its
    answer, or the exception it raised. A call that has not finished ``GRACE`` seconds after ``timeout`` (the
    timeout litellm was given did not fire) is cancelled and raises TimeoutError."""

    async def call() -> T:
        return await make()

    future = asyncio.run_coroutine_threadsafe(call(), loop or background_loop())
    try:
        return future.result(timeout=max(0.05, timeout) + GRACE)
    except TimeoutError:
        future.cancel()
        raise


def litellm_call(litellm: Any, kwargs: dict[str, Any], timeout: float) -> Any:
    """One litellm chat completion for a worker thread. When nothing is registered with litellm
    (``litellm_listens``), ``litellm.acompletion`` on the background loop, marked unobserved
    (citefix/llm/unobserved.py) in the call's own task, this thread waiting for the answer; a call litellm's own timeout
    did not end ``GRACE`` seconds after it is cancelled and fails as a timeout. When something is registered (a
    callback, litellm's cache, a budget), sync ``litellm.completion`` in this thread, as before: litellm runs a plain
    function in ``success_callback`` for its sync calls only."""
    if litellm_listens(litellm):
        return litellm.completion(**kwargs)

    async def call() -> Any:
        with unobserved_call(litellm):
            return await litellm.acompletion(**kwargs)

    try:
        return run_on_loop(call, timeout)
    except TimeoutError:
        raise TransientLLMError(f"the call to {kwargs.get('model')!r} timed out after {timeout:g} s") from None
