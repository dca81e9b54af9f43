"""litellm's success logging skipped for calls nothing registered with litellm listens to.

After each answer litellm runs its success logging (the standard logging payload, its callbacks, its cost tracking)
in its logging thread pool. citefix keeps its own call log from the answer itself (tokens, price, deployment), so when
no callback, cache or budget is registered with litellm that work feeds nobody; at 16 calls in flight it costs about
1 ms of CPU a call, taken from the threads that wait on the GIL for their answers (bench/bench_check.py).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

# litellm's own success logging, run after each answer in its logging thread pool, feeds only what is registered with
# litellm (callbacks, its cache, its budget); citefix keeps its own call log from the answer (tokens, cost, deployment).
_LISTENER_LISTS = ("callbacks", "success_callback", "_async_success_callback", "service_callback", "input_callback")


def litellm_listens(litellm: Any) -> bool:
    """Whether anything is registered with litellm that its success logging feeds: a callback, its cache, a budget."""
    if any(getattr(litellm, name, None) for name in _LISTENER_LISTS):
        return True
    return getattr(litellm, "cache", None) is not None or bool(getattr(litellm, "max_budget", None))


@contextmanager
def unobserved_call(litellm: Any) -> Iterator[None]:
    """Around one litellm.completion: when nothing listens (``litellm_listens``), the call is marked the way litellm
    marks its own nested calls, so it skips the success logging that would otherwise run in litellm's logging threads
    for nobody (about 1 ms of CPU a call, taken from the threads that wait on the GIL for their answers;
    bench/bench_check.py). The answer, its usage and its price (computed before that logging) are unchanged; a failure
    is logged by litellm as before. A litellm without the marker: the call runs as it always did."""
    var: Any = None
    if not litellm_listens(litellm):
        try:
            from litellm._internal_context import is_internal_call
        except ImportError:  # another litellm: nothing to skip
            pass
        else:
            var = is_internal_call
    if var is None:
        yield
        return
    token = var.set(True)
    try:
        yield
    finally:
        var.reset(token)
