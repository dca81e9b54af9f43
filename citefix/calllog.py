"""Bind the LLM clients a run uses to the store's call log, so every call and failed attempt is written as it
completes (outside the round's transaction) and the run's deadline clock starts with the run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citefix.store import Store

_LINKS = ("llm", "client", "inner", "verifier", "base", "decomposer", "_inner", "wrapped")


def clients_of(*objs: Any) -> list:
    """Every LLMClient reachable from objs through their usual attribute names (a verifier's llm, a wrapper's inner)."""
    from citefix.llm.client import LLMClient

    found: dict[int, Any] = {}
    seen: set[int] = set()
    stack = [(o, 0) for o in objs if o is not None]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen or depth > 4:
            continue
        seen.add(id(obj))
        if isinstance(obj, LLMClient):
            found.setdefault(id(obj), obj)
            continue
        for name in _LINKS:
            child = getattr(obj, name, None)
            if child is not None and not isinstance(child, (str, int, float, bool)):
                stack.append((child, depth + 1))
    return list(found.values())


def bind_call_log(store: Store | None, run_id: int | None, *objs: Any) -> list:
    """Log the calls of every client reachable from objs to `store` under `run_id` as they complete; returns them."""
    clients = clients_of(*objs)
    for c in clients:
        c.bind_log(store.call_logger(run_id) if store is not None and not store.readonly else None)
        c.begin_run()
    return clients
