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

The typed results and shared helpers live in `statbase.py`, the span protocol in `spans.py`, ROUGE-1 in `rouge.py`;
all are re-exported here, so `protocols.<name>` keeps working.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal, Sequence

import numpy as np
from scipy import stats as _sps

from citefix.metaeval.statbase import (
    Correlations,
    OneVsOne,
    Stat,
    ThresholdStat,
    _clean_pairs,
    _is_missing,
    _none,
    _with_ci,
)

LEVELS: dict[str, int] = {"none": 0, "partial": 1, "full": 2}
LEVEL_NAMES: dict[int, str] = {v: k for k, v in LEVELS.items()}


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
    kw: dict[str, Any] = dict(n=len(y), n_missing=missing, details={"n_pos": n_pos, "n_neg": len(y) - n_pos})
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
    base: dict[str, Any] = dict(name="balanced_accuracy", n=len(y_e), n_tune=len(y_t), n_missing=missing)
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
    flagged: Sequence[bool | None], labels: Sequence[int | None], *, bootstrap: int = 0, seed: int = 0,
    rule: str = "flagged = the verifier's own verdict is not 'supported'",
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
                             "rule": rule})
        rate: Callable[..., float | None] = lambda idx, k=k: _rates_raw(f[idx], y[idx])[k]  # noqa: E731
        out.append(_with_ci(stat, rate, len(y), bootstrap, seed))
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
    kw: dict[str, Any] = dict(n=len(s), n_missing=missing)
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
    kw: dict[str, Any] = dict(n=len(yy), details={f"n_{LEVEL_NAMES[hi]}": n_hi, f"n_{LEVEL_NAMES[lo]}": len(yy) - n_hi})
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
