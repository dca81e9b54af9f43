"""What model calls cost and how many came from the cache, summed the same way for every view.

A call answered from the cache costs nothing. A call the provider answered but litellm has no price for has an
unknown cost (None): then the total is unknown too, never $0, and `why` names the models without a price.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable


@dataclass
class CallSummary:
    calls: int = 0  # every logged call, cached or not
    cached: int = 0  # answered from the store's cache
    failed: int = 0  # ended in an error
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0  # None: at least one paid call has no price
    unpriced: list[str] = field(default_factory=list)  # models answered without a price
    retried: int = 0  # failed attempts that were tried again (rows of the per-attempt call log, not calls)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def why_unknown(self) -> str | None:
        if self.cost is not None:
            return None
        return "litellm's price table has no price for " + ", ".join(self.unpriced)

    def cost_text(self) -> str:
        return format_cost(self.cost, self.why_unknown)

    def line(self) -> str:
        """"model calls: 12 (5 answered from the cache); tokens 3400; cost $0.0012" for reports."""
        if not self.calls:
            return "model calls: 0"
        parts = [f"model calls: {self.calls} ({self.cached} answered from the cache"
                 + (f", {self.failed} failed" if self.failed else "") + ")"]
        parts.append(f"tokens {self.tokens}")
        parts.append(f"cost {self.cost_text()}")
        return "; ".join(parts)


def _get(c: Any, name: str) -> Any:
    return c.get(name) if isinstance(c, dict) else getattr(c, name, None)


def summarise_calls(calls: Iterable[Any]) -> CallSummary:
    """Sum CallRecords or store rows of the calls table."""
    s = CallSummary()
    for c in calls:
        if _get(c, "status") == "retried":  # a failed attempt of a call logged on its own row: not a call
            s.retried += 1
            continue
        s.calls += 1
        if _get(c, "cached"):
            s.cached += 1
            continue
        if _get(c, "error"):
            s.failed += 1
        s.prompt_tokens += _get(c, "prompt_tokens") or 0
        s.completion_tokens += _get(c, "completion_tokens") or 0
        cost = _get(c, "cost")
        if cost is None:
            if not _get(c, "error"):
                model = _get(c, "model") or "?"
                if model not in s.unpriced:
                    s.unpriced.append(model)
        elif s.cost is not None:
            s.cost += float(cost)
    if s.unpriced:
        s.cost = None
    return s


def format_cost(cost: float | None, why: str | None = None) -> str:
    """$0.0012, or "unknown (why)" when the cost is not known; never $0 for an unknown cost."""
    if cost is None:
        return "unknown" + (f" ({why})" if why else "")
    return f"${cost:.4f}"
