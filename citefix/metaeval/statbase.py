"""The typed results of the meta-evaluation statistics (`Stat` and its groups) and what every statistic shares: dropping
missing scores, a `None` value with its reason instead of NaN, and percentile bootstrap intervals.

The conventions are in `citefix.metaeval.protocols`, which re-exports everything here.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal, Sequence, TypeVar, cast

import numpy as np
from pydantic import BaseModel, Field, model_validator


class Stat(BaseModel):
    """One number with how it was obtained; ``value`` is None only together with a ``reason``."""

    name: str
    value: float | None
    reason: str | None = None
    n: int = Field(default=0, description="Items (or pairs, statements, characters) the value was computed on.")
    n_missing: int = Field(default=0, description="Items dropped because their score was missing.")
    ci_low: float | None = None
    ci_high: float | None = None
    ci_reason: str | None = Field(default=None, description="Why there is no interval (or a caveat about it).")
    protocol: str = ""
    system: str = Field(default="", description="The verifier or decomposer the value belongs to.")
    by: str | None = Field(default=None, description="With `meta-eval --by FIELD`: the field of the group.")
    group: str | None = Field(default=None, description="The field's value shared by the group's items.")
    details: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> "Stat":
        if self.value is None:
            if not self.reason:
                raise ValueError(f"statistic {self.name!r} has no value and no reason")
        elif not math.isfinite(self.value):
            raise ValueError(f"statistic {self.name!r} is not finite: {self.value}")
        return self

    @property
    def ok(self) -> bool:
        return self.value is not None


class ThresholdStat(Stat):
    """Balanced accuracy on the evaluation half, with the threshold tuned on the tuning half."""

    threshold: float | None = None
    tune_value: float | None = Field(default=None, description="Balanced accuracy on the tuning half.")
    n_tune: int = 0


class OneVsOne(BaseModel):
    fs_ns: Stat
    fs_ps: Stat
    ps_ns: Stat
    mean: Stat

    def all(self) -> list[Stat]:
        return [self.fs_ns, self.fs_ps, self.ps_ns, self.mean]


class Correlations(BaseModel):
    pearson: Stat
    spearman: Stat
    kendall: Stat

    def all(self) -> list[Stat]:
        return [self.pearson, self.spearman, self.kendall]


class SpanScores(BaseModel):
    reference: Literal["union", "majority"]
    precision: Stat
    recall: Stat
    f1: Stat

    def all(self) -> list[Stat]:
        return [self.precision, self.recall, self.f1]


# ----------------------------------------------------------------------------------------------- helpers


def _none(name: str, reason: str, **kw: Any) -> Stat:
    return Stat(name=name, value=None, reason=reason, **kw)


def _is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _clean_pairs(scores: Sequence[float | None], labels: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Drop pairs with a missing score or label; return (positions, scores, labels, n_dropped)."""
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")
    keep = [i for i, (s, y) in enumerate(zip(scores, labels)) if not _is_missing(s) and not _is_missing(y)]
    pos = np.asarray(keep, dtype=int)
    s = np.asarray([float(cast(float, scores[i])) for i in keep], dtype=float)  # kept: not missing
    y = np.asarray([float(labels[i]) for i in keep], dtype=float)
    if np.isinf(s).any():
        raise ValueError("scores must be finite")
    return pos, s, y, len(scores) - len(keep)


def bootstrap_ci(
    statistic: Callable[[np.ndarray], float | None],
    n: int,
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float | None, float | None, str | None, int]:
    """Percentile bootstrap over ``n`` items. ``statistic`` gets an index array and returns a float or None.

    Returns (low, high, reason_or_caveat, valid_resamples). Deterministic for a given seed.
    """
    if resamples <= 0:
        return None, None, "bootstrap disabled", 0
    if n < 2:
        return None, None, "fewer than 2 items to resample", 0
    rng = np.random.default_rng(seed)
    values: list[float] = []
    for _ in range(resamples):
        v = statistic(rng.integers(0, n, size=n))
        if v is not None and math.isfinite(v):
            values.append(float(v))
    if len(values) < max(2, resamples // 2):
        return None, None, f"statistic undefined in {resamples - len(values)} of {resamples} resamples", len(values)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(np.asarray(values), [alpha, 1.0 - alpha])
    caveat = None
    if len(values) < resamples:
        caveat = f"{resamples - len(values)} of {resamples} resamples skipped (statistic undefined)"
    return float(low), float(high), caveat, len(values)


_StatT = TypeVar("_StatT", bound="Stat")


def _with_ci(stat: _StatT, fn: Callable[[np.ndarray], float | None], n: int, bootstrap: int, seed: int) -> _StatT:
    if stat.value is None or bootstrap <= 0:
        return stat
    low, high, why, valid = bootstrap_ci(fn, n, resamples=bootstrap, seed=seed)
    stat.ci_low, stat.ci_high, stat.ci_reason = low, high, why
    stat.details["bootstrap"] = {"resamples": bootstrap, "valid": valid, "seed": seed}
    return stat
