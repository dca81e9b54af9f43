"""Meta-evaluation statistics: how well verifier scores agree with human labels (numpy/scipy only).

Every function returns a typed result. A statistic that cannot be computed (one class only, constant scores, too few
items) has ``value=None`` and a ``reason``; no function returns NaN. Inputs may contain ``None`` (or NaN) scores, for
items a verifier failed on: those items are dropped and counted in ``n_missing``.

Conventions (the choices the papers leave open):

* Binary labels: 1 = supported / consistent (the positive class), 0 = not. Higher scores mean "more supported".
* Support levels: 2 = full, 1 = partial, 0 = none.
* ROC-AUC is the Mann-Whitney statistic on average ranks, so tied scores count one half.
* Balanced accuracy (AggreFact protocol): items keep their position in the ordered list; the threshold is tuned on
  odd positions (1, 3, 5, …) and the balanced accuracy reported on even positions (0, 2, 4, …). An item is predicted
  positive when ``score >= threshold``. Candidate thresholds are the lowest tuning score and the midpoints between
  consecutive distinct tuning scores; the best tuning balanced accuracy wins, ties go to the lowest threshold.
* Bootstrap CIs: percentile intervals over ``bootstrap`` resamples of items with replacement, ``numpy`` generator seeded
  with ``seed``. Resamples where the statistic is undefined are skipped and counted. For the tuned balanced accuracy
  the threshold stays fixed and only the evaluation half is resampled.
* NDCG@k: linear gain (rel / log2(rank + 1)); tied scores share the average gain of their tie group (McSherry & Najork),
  so the order of tied chunks never matters. A statement with no relevant chunk has no NDCG and is skipped.
* Character spans: micro counts over characters, whitespace excluded by default. Reference = characters marked by any
  annotator ("union") or by more than half of the item's annotators ("majority").
* Verdict rates: an item is flagged when the verifier's own verdict is not "supported" (its packaged threshold, not one
  tuned on the file). Detection rate = flagged share of label-0 items, false-flag rate = flagged share of label-1
  items, verdict balanced accuracy = (detection + 1 - false flags) / 2.
* ROUGE-1 F1: lower-cased ``[a-z0-9]+`` tokens, clipped unigram counts; optional light suffix stemming (off).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Callable, Literal, Sequence

import numpy as np
from pydantic import BaseModel, Field, model_validator
from scipy import stats as _sps

LEVELS: dict[str, int] = {"none": 0, "partial": 1, "full": 2}
LEVEL_NAMES: dict[int, str] = {v: k for k, v in LEVELS.items()}


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
    s = np.asarray([float(scores[i]) for i in keep], dtype=float)
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


def _with_ci(stat: Stat, fn: Callable[[np.ndarray], float | None], n: int, bootstrap: int, seed: int) -> Stat:
    if stat.value is None or bootstrap <= 0:
        return stat
    low, high, why, valid = bootstrap_ci(fn, n, resamples=bootstrap, seed=seed)
    stat.ci_low, stat.ci_high, stat.ci_reason = low, high, why
    stat.details["bootstrap"] = {"resamples": bootstrap, "valid": valid, "seed": seed}
    return stat


# ----------------------------------------------------------------------------------------------- binary


def _auc_raw(s: np.ndarray, y: np.ndarray) -> float | None:
    pos = y == 1
    n_pos = int(pos.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = _sps.rankdata(s)  # average ranks: ties count one half
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def roc_auc(
    scores: Sequence[float | None], labels: Sequence[int | None], *, bootstrap: int = 0, seed: int = 0
) -> Stat:
    """ROC-AUC of ``scores`` for separating label 1 (positive) from label 0."""
    _, s, y, missing = _clean_pairs(scores, labels)
    bad = sorted(set(y.tolist()) - {0.0, 1.0})
    if bad:
        raise ValueError(f"binary labels must be 0 or 1, got {bad[:3]}")
    n_pos = int((y == 1).sum())
    kw = dict(n=len(y), n_missing=missing, details={"n_pos": n_pos, "n_neg": len(y) - n_pos})
    if len(y) == 0:
        return _none("roc_auc", "no items with a score", **kw)
    if n_pos == 0 or n_pos == len(y):
        return _none("roc_auc", f"only one class present (all labels {int(y[0])})", **kw)
    stat = Stat(name="roc_auc", value=_auc_raw(s, y), **kw)
    return _with_ci(stat, lambda idx: _auc_raw(s[idx], y[idx]), len(y), bootstrap, seed)


def balanced_accuracy(scores: np.ndarray, labels: np.ndarray, threshold: float) -> float | None:
    """Mean of true-positive and true-negative rates with ``score >= threshold`` predicted positive."""
    pos = labels == 1
    neg = ~pos
    if not pos.any() or not neg.any():
        return None
    pred = scores >= threshold
    return float(((pred & pos).sum() / pos.sum() + (~pred & neg).sum() / neg.sum()) / 2.0)


def tune_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float] | None:
    """Best (threshold, balanced accuracy) on these items; None when they hold one class only."""
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    uniq = np.unique(scores)
    candidates = np.concatenate([uniq[:1], (uniq[:-1] + uniq[1:]) / 2.0])
    # Vectorised: predicted positive where score >= candidate.
    pred = scores[None, :] >= candidates[:, None]
    tpr = (pred & pos[None, :]).sum(axis=1) / n_pos
    tnr = (~pred & ~pos[None, :]).sum(axis=1) / n_neg
    bacc = (tpr + tnr) / 2.0
    best = int(np.argmax(bacc))  # first maximum = lowest threshold among ties
    return float(candidates[best]), float(bacc[best])


def balanced_accuracy_tuned(
    scores: Sequence[float | None], labels: Sequence[int | None], *, bootstrap: int = 0, seed: int = 0
) -> ThresholdStat:
    """AggreFact protocol: tune the threshold on odd positions, report balanced accuracy on even positions.

    Positions are those of the given sequences, before items with a missing score are dropped, so verifiers that fail
    on different items still split the remaining items the same way.
    """
    pos_idx, s, y, missing = _clean_pairs(scores, labels)
    odd = pos_idx % 2 == 1
    s_t, y_t, s_e, y_e = s[odd], y[odd], s[~odd], y[~odd]
    base = dict(name="balanced_accuracy", n=len(y_e), n_tune=len(y_t), n_missing=missing)
    tuned = tune_threshold(s_t, y_t)
    if tuned is None:
        why = "no tuning items" if len(y_t) == 0 else "tuning half (odd positions) holds one class only"
        return ThresholdStat(value=None, reason=why, **base)
    threshold, tune_value = tuned
    value = balanced_accuracy(s_e, y_e, threshold)
    if value is None:
        why = "no evaluation items" if len(y_e) == 0 else "evaluation half (even positions) holds one class only"
        return ThresholdStat(value=None, reason=why, threshold=threshold, tune_value=tune_value, **base)
    stat = ThresholdStat(value=value, threshold=threshold, tune_value=tune_value, **base)
    stat.details["rule"] = "score >= threshold is predicted supported"
    return _with_ci(stat, lambda idx: balanced_accuracy(s_e[idx], y_e[idx], threshold), len(y_e), bootstrap, seed)


def _rates_raw(f: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None, float | None]:
    neg, pos = y == 0, y == 1
    det = float(f[neg].mean()) if neg.any() else None
    ff = float(f[pos].mean()) if pos.any() else None
    bacc = (det + 1.0 - ff) / 2.0 if det is not None and ff is not None else None
    return det, ff, bacc


def verdict_rates(
    flagged: Sequence[bool | None], labels: Sequence[int | None], *, bootstrap: int = 0, seed: int = 0
) -> list[Stat]:
    """Detection rate, false-flag rate and balanced accuracy of fixed yes/no decisions (flagged = "not supported").

    Items with a missing decision or label are dropped and counted. Each rate is None (with a reason) when the items
    hold no label of its class, e.g. the detection rate of a group of faithful statements.
    """
    _, f, y, missing = _clean_pairs([None if x is None else float(bool(x)) for x in flagged], labels)
    det, ff, bacc = _rates_raw(f, y)
    n_neg, n_pos = int((y == 0).sum()), int((y == 1).sum())
    out = []
    spec = (("detect_rate", det, "no items labelled 0", n_neg), ("false_flag_rate", ff, "no items labelled 1", n_pos),
            ("balanced_accuracy_verdict", bacc, "needs items labelled 0 and 1", len(y)))
    for k, (name, value, why, n) in enumerate(spec):
        stat = Stat(name=name, value=value, reason=None if value is not None else why, n=n, n_missing=missing,
                    details={"n_pos": n_pos, "n_neg": n_neg, "flagged": int(f.sum()),
                             "rule": "flagged = the verifier's own verdict is not 'supported'"})
        out.append(_with_ci(stat, lambda idx, k=k: _rates_raw(f[idx], y[idx])[k], len(y), bootstrap, seed))
    return out


# ----------------------------------------------------------------------------------------------- correlations


def _pearson_raw(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2:
        return None
    xc, yc = x - x.mean(), y - y.mean()
    den = math.sqrt(float((xc * xc).sum()) * float((yc * yc).sum()))
    if den == 0.0:
        return None
    return float(np.clip((xc * yc).sum() / den, -1.0, 1.0))


def _spearman_raw(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2:
        return None
    return _pearson_raw(_sps.rankdata(x), _sps.rankdata(y))


def _kendall_raw(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    tau = _sps.kendalltau(x, y, variant="b").statistic
    return None if tau is None or not math.isfinite(tau) else float(tau)


_CORR = {"pearson": _pearson_raw, "spearman": _spearman_raw, "kendall": _kendall_raw}


def correlation(
    method: Literal["pearson", "spearman", "kendall"],
    scores: Sequence[float | None],
    human: Sequence[float | None],
    *,
    bootstrap: int = 0,
    seed: int = 0,
) -> Stat:
    """Pearson, Spearman (Pearson of average ranks) or Kendall tau-b between scores and human values."""
    fn = _CORR[method]
    _, s, h, missing = _clean_pairs(scores, human)
    kw = dict(n=len(s), n_missing=missing)
    if len(s) < 2:
        return _none(method, f"need at least 2 scored items, have {len(s)}", **kw)
    if np.all(s == s[0]):
        return _none(method, "scores are constant", **kw)
    if np.all(h == h[0]):
        return _none(method, "human values are constant", **kw)
    stat = Stat(name=method, value=fn(s, h), **kw)
    return _with_ci(stat, lambda idx: fn(s[idx], h[idx]), len(s), bootstrap, seed)


def correlations(
    scores: Sequence[float | None], human: Sequence[float | None], *, bootstrap: int = 0, seed: int = 0
) -> Correlations:
    return Correlations(
        **{m: correlation(m, scores, human, bootstrap=bootstrap, seed=seed) for m in ("pearson", "spearman", "kendall")}
    )


# ----------------------------------------------------------------------------------------------- support levels


def _level(v: Any) -> int | None:
    if _is_missing(v):
        return None
    if isinstance(v, str):
        if v not in LEVELS:
            raise ValueError(f"unknown support level {v!r}; use full, partial or none")
        return LEVELS[v]
    iv = int(v)
    if iv not in (0, 1, 2) or iv != v:
        raise ValueError(f"support level must be 0, 1 or 2, got {v!r}")
    return iv


def _pair_auc(name: str, s: np.ndarray, lv: np.ndarray, hi: int, lo: int, bootstrap: int, seed: int) -> Stat:
    mask = (lv == hi) | (lv == lo)
    ss, yy = s[mask], (lv[mask] == hi).astype(float)
    n_hi = int(yy.sum())
    kw = dict(n=len(yy), details={f"n_{LEVEL_NAMES[hi]}": n_hi, f"n_{LEVEL_NAMES[lo]}": len(yy) - n_hi})
    if n_hi == 0 or n_hi == len(yy):
        missing = LEVEL_NAMES[lo] if n_hi else LEVEL_NAMES[hi]
        return _none(name, f"no items labelled {missing}", **kw)
    stat = Stat(name=name, value=_auc_raw(ss, yy), **kw)
    return _with_ci(stat, lambda idx: _auc_raw(ss[idx], yy[idx]), len(yy), bootstrap, seed)


def one_vs_one_auc(
    scores: Sequence[float | None], levels: Sequence[Any], *, bootstrap: int = 0, seed: int = 0
) -> OneVsOne:
    """ROC-AUC for FS-vs-NS, FS-vs-PS and PS-vs-NS, each on the items of those two levels only, and their mean.

    ``levels`` are 2/1/0 or "full"/"partial"/"none". The mean is None unless all three pairs are defined; its CI
    resamples all items and recomputes the three AUCs.
    """
    lv_in = [_level(v) for v in levels]
    _, s, lv, missing = _clean_pairs(scores, lv_in)
    lv = lv.astype(int)
    fs_ns = _pair_auc("auc_fs_ns", s, lv, 2, 0, bootstrap, seed)
    fs_ps = _pair_auc("auc_fs_ps", s, lv, 2, 1, bootstrap, seed)
    ps_ns = _pair_auc("auc_ps_ns", s, lv, 1, 0, bootstrap, seed)
    pairs = [fs_ns, fs_ps, ps_ns]
    for p in pairs:
        p.n_missing = missing
    undefined = [p.name for p in pairs if p.value is None]
    counts = {name: int((lv == k).sum()) for name, k in LEVELS.items()}
    if undefined:
        mean = _none("auc_ovo_mean", f"undefined: {', '.join(undefined)}", n=len(s), n_missing=missing,
                     details=counts)
    else:
        mean = Stat(name="auc_ovo_mean", value=float(np.mean([p.value for p in pairs])), n=len(s),
                    n_missing=missing, details=counts)

        def _mean(idx: np.ndarray) -> float | None:
            vals = []
            for hi, lo in ((2, 0), (2, 1), (1, 0)):
                m = (lv[idx] == hi) | (lv[idx] == lo)
                v = _auc_raw(s[idx][m], (lv[idx][m] == hi).astype(float))
                if v is None:
                    return None
                vals.append(v)
            return float(np.mean(vals))

        mean = _with_ci(mean, _mean, len(s), bootstrap, seed)
    return OneVsOne(fs_ns=fs_ns, fs_ps=fs_ps, ps_ns=ps_ns, mean=mean)


# ----------------------------------------------------------------------------------------------- ranking


def ndcg_at_k(scores: Sequence[float], relevance: Sequence[float], k: int) -> float | None:
    """NDCG@k of ranking items by descending score; tied scores share their group's average gain.

    Linear gain (rel / log2(rank + 1)). None when no item is relevant (the ideal DCG is 0).
    """
    if k <= 0:
        raise ValueError("k must be positive")
    s = np.asarray(scores, dtype=float)
    r = np.asarray(relevance, dtype=float)
    if len(s) != len(r):
        raise ValueError(f"{len(s)} scores but {len(r)} relevance values")
    if len(r) == 0 or not (r > 0).any():
        return None
    discount = 1.0 / np.log2(np.arange(len(r)) + 2.0)
    discount[k:] = 0.0
    ideal = float((np.sort(r)[::-1] * discount).sum())
    order = np.argsort(-s, kind="stable")
    s_sorted, r_sorted = s[order], r[order]
    dcg, start = 0.0, 0
    while start < len(s_sorted):  # walk tie groups
        end = start
        while end < len(s_sorted) and s_sorted[end] == s_sorted[start]:
            end += 1
        dcg += float(r_sorted[start:end].mean()) * float(discount[start:end].sum())
        start = end
    return dcg / ideal


def mean_ndcg(
    groups: Sequence[tuple[Sequence[float | None], Sequence[float]]],
    k: int,
    *,
    bootstrap: int = 0,
    seed: int = 0,
) -> Stat:
    """Mean NDCG@k over statements; each group is (chunk scores, chunk relevances).

    Statements with no relevant chunk, or with a missing chunk score, are skipped and counted in the details.
    """
    name = f"ndcg@{k}"
    values: list[float] = []
    no_relevant = missing = 0
    for sc, rel in groups:
        if any(_is_missing(x) for x in sc):
            missing += 1
            continue
        v = ndcg_at_k([float(x) for x in sc], rel, k)  # type: ignore[arg-type]
        if v is None:
            no_relevant += 1
            continue
        values.append(v)
    details = {"statements_without_relevant_chunk": no_relevant}
    if not values:
        return _none(name, "no statement has a relevant chunk with scores", n=0, n_missing=missing, details=details)
    arr = np.asarray(values)
    stat = Stat(name=name, value=float(arr.mean()), n=len(arr), n_missing=missing, details=details)
    return _with_ci(stat, lambda idx: float(arr[idx].mean()), len(arr), bootstrap, seed)


# ----------------------------------------------------------------------------------------------- spans


class SpanItem(BaseModel):
    """One text with predicted unsupported spans and each annotator's spans (end-exclusive character offsets)."""

    text: str
    predicted: list[tuple[int, int]] = Field(default_factory=list)
    annotators: list[list[tuple[int, int]]] = Field(
        default_factory=list, description="One list of spans per annotator who marked something."
    )
    n_annotators: int = Field(default=1, description="All annotators of this text, including those who marked nothing.")


def _mask(n: int, spans: Sequence[tuple[int, int]]) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    for a, b in spans:
        a, b = max(0, int(a)), min(n, int(b))
        if b > a:
            m[a:b] = True
    return m


def reference_mask(item: SpanItem, reference: Literal["union", "majority"]) -> np.ndarray:
    """Characters in the reference: marked by >= 1 annotator (union) or by > half of n_annotators (majority)."""
    n = len(item.text)
    votes = np.zeros(n, dtype=int)
    for spans in item.annotators:
        votes += _mask(n, spans)
    if reference == "union":
        return votes >= 1
    n_ann = max(item.n_annotators, len(item.annotators))
    return votes >= n_ann // 2 + 1


def span_counts(
    item: SpanItem, reference: Literal["union", "majority"], *, ignore_whitespace: bool = True
) -> tuple[int, int, int]:
    """(true positive, false positive, false negative) characters for one item."""
    n = len(item.text)
    pred = _mask(n, item.predicted)
    ref = reference_mask(item, reference)
    if ignore_whitespace:
        keep = ~np.array([c.isspace() for c in item.text], dtype=bool) if n else np.zeros(0, dtype=bool)
        pred, ref = pred & keep, ref & keep
    return int((pred & ref).sum()), int((pred & ~ref).sum()), int((~pred & ref).sum())


def _prf(tp: int, fp: int, fn: int) -> tuple[float | None, float | None, float | None]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return p, r, f


def span_prf(
    items: Sequence[SpanItem],
    reference: Literal["union", "majority"] = "union",
    *,
    ignore_whitespace: bool = True,
    bootstrap: int = 0,
    seed: int = 0,
) -> SpanScores:
    """Character-level precision / recall / F1, micro-averaged over all characters of all items.

    Empty cases: an item with neither predicted nor reference characters adds nothing to the counts (it is counted in
    ``details.items_both_empty``). Over the whole set, precision is None when nothing was predicted, recall is None
    when the reference is empty, and F1 (= 2TP / (2TP + FP + FN)) is None only when both are empty.
    """
    counts = np.asarray([span_counts(it, reference, ignore_whitespace=ignore_whitespace) for it in items], dtype=int)
    if len(counts) == 0:
        counts = np.zeros((0, 3), dtype=int)
    tp, fp, fn = (int(x) for x in counts.sum(axis=0)) if len(counts) else (0, 0, 0)
    p, r, f = _prf(tp, fp, fn)
    both_empty = int(((counts[:, 0] + counts[:, 1] + counts[:, 2]) == 0).sum()) if len(counts) else 0
    details = {"tp": tp, "fp": fp, "fn": fn, "items_both_empty": both_empty, "reference": reference}
    out = {}
    reasons = {
        "precision": "no characters predicted unsupported",
        "recall": "no reference characters",
        "f1": "neither predicted nor reference characters",
    }
    for k, (name, v) in enumerate((("precision", p), ("recall", r), ("f1", f))):
        stat = Stat(name=f"span_{name}", value=v, reason=None if v is not None else reasons[name],
                    n=len(items), details=dict(details))

        def fn_(idx: np.ndarray, k: int = k) -> float | None:
            t = counts[idx].sum(axis=0)
            return _prf(int(t[0]), int(t[1]), int(t[2]))[k]

        out[name] = _with_ci(stat, fn_, len(items), bootstrap, seed)
    return SpanScores(reference=reference, **out)


# ----------------------------------------------------------------------------------------------- ROUGE-1

_TOKEN = re.compile(r"[a-z0-9]+")
_SUFFIXES = ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s")


def _stem(tok: str) -> str:
    """Light suffix stripping (not Porter): enough to match plurals and simple verb forms."""
    if len(tok) <= 3:
        return tok
    for suf in _SUFFIXES:
        if tok.endswith(suf) and len(tok) - len(suf) >= 3:
            tok = tok[: -len(suf)] + ("y" if suf in ("ies", "ied") else "")
            break
    return tok[:-1] if tok.endswith("e") and len(tok) > 4 else tok  # "score" and "scored" → "scor"


def tokenize(text: str, *, stem: bool = False) -> list[str]:
    toks = _TOKEN.findall(text.lower())
    return [_stem(t) for t in toks] if stem else toks


def rouge1_f1(candidate: str, reference: str, *, stem: bool = False) -> float:
    """Unigram F1 with clipped counts; 0.0 when either side has no tokens."""
    return _f1_counts(Counter(tokenize(candidate, stem=stem)), Counter(tokenize(reference, stem=stem)))


def best_match_rouge1(generated: Sequence[str], gold: Sequence[str], *, stem: bool = False) -> float | None:
    """Mean over generated units of the ROUGE-1 F1 against the best-matching gold unit; None if either is empty."""
    if not generated or not gold:
        return None
    gold_tok = [Counter(tokenize(g, stem=stem)) for g in gold]
    vals = []
    for g in generated:
        c = Counter(tokenize(g, stem=stem))
        vals.append(max((_f1_counts(c, r) for r in gold_tok), default=0.0))
    return float(np.mean(vals))


def _f1_counts(c: Counter, r: Counter) -> float:
    if not c or not r:
        return 0.0
    overlap = sum((c & r).values())
    if overlap == 0:
        return 0.0
    p, rec = overlap / sum(c.values()), overlap / sum(r.values())
    return 2 * p * rec / (p + rec)


def acu_rouge(
    items: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    direction: Literal["generated", "gold"] = "generated",
    stem: bool = False,
    bootstrap: int = 0,
    seed: int = 0,
) -> Stat:
    """Mean over items of :func:`best_match_rouge1`; each item is (generated units, gold ACUs).

    ``direction="generated"`` (the ACUEval measure) matches each generated unit to its best gold ACU;
    ``"gold"`` matches each gold ACU to its best generated unit (coverage). An item whose decomposer produced no
    units scores 0 (counted in ``details.items_without_units``); items without gold ACUs are skipped.
    """
    name = "rouge1_best_match" if direction == "generated" else "rouge1_gold_coverage"
    vals: list[float] = []
    no_units = no_gold = 0
    for gen, gold in items:
        if not gold:
            no_gold += 1
            continue
        if not gen:
            no_units += 1
            vals.append(0.0)
            continue
        a, b = (gen, gold) if direction == "generated" else (gold, gen)
        v = best_match_rouge1(a, b, stem=stem)
        vals.append(0.0 if v is None else v)
    details = {"items_without_units": no_units, "items_without_gold": no_gold, "stem": stem}
    if not vals:
        return _none(name, "no item has gold ACUs", n=0, details=details)
    arr = np.asarray(vals)
    stat = Stat(name=name, value=float(arr.mean()), n=len(arr), details=details)
    return _with_ci(stat, lambda idx: float(arr[idx].mean()), len(arr), bootstrap, seed)
