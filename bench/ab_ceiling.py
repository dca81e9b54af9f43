"""How far can the offline features go on a development set? A logistic regression on more raw features than the
shipped combination uses, in-sample and 5-fold cross-validated (mean of the held-out folds' agreement).

Reads the feature cache of bench/tune_offline.py (run `tune_offline.py features` first).

Run:  .venv/bin/python bench/ab_ceiling.py [--dataset attributionbench]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tune_offline as T  # noqa: E402

FEATURE_SETS = {
    "three signals (lexical log, alignment, similarity)": None,
    "alignment, similarity, missing words/entities/numbers": (
        "alignment_raw", "similarity_raw", "missing_word_frac", "missing_entities", "missing_numbers"),
    "all twelve raw features": T.NUM_KEYS,
}


def _matrix(rows, keys, w) -> np.ndarray:
    if keys is None:
        s = T._Set("x", rows, {"alignment": 0.35, "similarity": 0.1})
        return np.c_[np.maximum(-10.0, -(s.lex @ w)), s.al, s.sim]
    return np.array([[float(r["whole"].get(k, 0.0)) if "error" not in r["whole"] else 0.0 for k in keys] for r in rows])


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from scipy.optimize import minimize

    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd

    def nll(c):
        t = c[0] + z @ c[1:]
        return float(np.mean(np.logaddexp(0, t) - y * t)) + 1e-2 * float(np.sum(c[1:] ** 2))

    return minimize(nll, np.zeros(x.shape[1] + 1), method="L-BFGS-B").x, mu, sd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="attributionbench", choices=list(T.FILES))
    args = ap.parse_args()
    from citefix.verify.offline import load_params

    rows = T._load().get(args.dataset)
    if not rows:
        sys.exit(f"no cached features for {args.dataset}: run bench/tune_offline.py features first")
    p = load_params()
    w = np.array([p["lexical"][n] for n in T.LEX_NAMES], dtype=float)
    s = T._Set(args.dataset, rows, {"alignment": 0.35, "similarity": 0.1})
    y = s.positives().astype(float)
    print(f"{args.dataset}: {len(rows)} items; logistic regression (L2), agreement = {'one-vs-one mean' if args.dataset == 'wice' else 'ROC-AUC'}")
    for name, keys in FEATURE_SETS.items():
        x = _matrix(rows, keys, w)
        c, mu, sd = _fit(x, y)
        ins = s.stat(c[0] + ((x - mu) / sd) @ c[1:])
        per = []
        for te in T._folds(s, 5):
            tr = np.setdiff1d(np.arange(len(y)), te)
            c, mu, sd = _fit(x[tr], y[tr])
            per.append(s.subset(te).stat(c[0] + ((x[te] - mu) / sd) @ c[1:]))
        print(f"  {name:<56} in-sample {ins:.3f}   5-fold {np.mean(per):.3f}")
    for sig in T.SIGNAL_NAMES:
        print(f"  single signal {sig:<42} {s.stat(s.scores(sig, w)):.3f}")


if __name__ == "__main__":
    main()
