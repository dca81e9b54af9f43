"""Train, measure and export the offline verifier's learned judge (citefix/verify/judge.py → citefix/data/judge.json).

Reads the per-unit features that ``python -m bench.lodo features`` caches (one file per set: every statement whole, and
cut into atomic units as ``citefix check`` cuts them), and fits a logistic model of "this unit is not supported by its
source" over citefix.verify.judge.FEATURES: the log of the three signals' geometric mean and the hard checks'
findings, each weight bounded to its sign (a finding may only raise the probability, support only lower it).

Labels: a whole statement carries its dataset's label. An atomic unit of a faithful statement is supported; of a
statement with an error, only the unit the model finds most suspect is taken as the unsupported one (multiple-instance
learning: refitted three times, the pick remade each time) and the others are left out. Each set weighs the same, its
two classes balanced. (fit_pooled, measured and not shipped, labels each statement's units through their pooled
logit instead.)

Sets: human-labelled development sets are the leave-one-dataset-out folds (XSumFaith val, SummEval, WiCE dev — full
support against partial or none —, AttributionBench dev, the four SummEdits domains of the training pool, the read
probe files); the pool's FEVER / Fool Me Twice / FactCG sample and a planted-error suite are training data only.

    eval     per held-out set: the judge trained on every other set, its ROC-AUC beside each single signal and the
             packaged verifier's, and the verdict rates at decision points chosen on the other sets' out-of-fold
             probabilities (faithful texts with a unit flagged unsupported, texts with an error flagged, faithful units
             marked partial); the planted suite's detection by type.
    ablate   the same LODO figures with each feature group left out in turn (what each check is worth on human data;
             with --planted-heldout, also the held-out planted split's detection by error type without it).
    export   fit on every set, calibrate on the LODO out-of-fold logits, choose the decision points on them, and
             write citefix/data/judge.json.

Run:  .venv/bin/python -m bench.lodo --cache out/lodo_j features --sets xsumfaith summeval wice attributionbench \\
          summedits probes pool   [--planted out/planted_sample.jsonl]
      .venv/bin/python -m training.judge --cache out/lodo_j eval | ablate | export
      .venv/bin/python -m training.judge --cache out/lodo_j eval --local-floor 0.05   # the geometric mean's log
                                                                                   # floored otherwise
"""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.lodo import _data_dir
from citefix.nlp import load_spacy
from citefix.verify.judge import CHECKS, FEATURES, LOCAL_FLOOR, REGISTRY, SIGNS, in_context, vector
from citefix.verify.pairs import invented_pair_share
from training.error_spans import known_spans, units_meeting

ROOT = Path(__file__).resolve().parent.parent

HUMAN = ("xsumfaith", "summeval", "wice", "attributionbench", "summedits:ectsum", "summedits:qmsumm",
         "summedits:scitldr", "summedits:sales_email", "probes")
TRAIN_ONLY = ("pool", "planted")
# what the decision points aim at over the training sets: faithful texts with a unit unsupported, faithful units marked
# partial (the goals: at most 15% and 25% on every set)
FF_TARGET, PARTIAL_TARGET = 0.15, 0.25
SET_SPARED = 1  # the unsupported point: … on every training set but this many
PARTIAL_QUANTILE = 1.0  # the partial point: … on every set
FORMER_PARTIAL = (0.20, 2 / 3)  # the partial point's rule before it was set apart from the cited point (reported)
# a cited answer's claim against its cited passages: the human-labelled sets of claims judged against the evidence
# cited for them (WiCE: Wikipedia claims and their cited web pages; AttributionBench: answers' statements and their
# cited passages), on which the point that calls a claim supported by its citations is chosen
CITED_SETS = ("wice", "attributionbench")
# … and their own model (citefix.verify.judge: a judge file's "profiles"): trained on whole claims against their
# evidence (the other cited set, and as training data only the pool's claim–evidence pairs and the planted suite, whose
# negations, role and name swaps it would otherwise read as supported), the geometric mean read on a linear scale, the
# hard checks, and none of the graded words-found-nowhere findings (on a whole sentence they measure how abstractive it
# is more than what it invents: docs/quality-tried.md)
CLAIM_SETS = ("pool", "planted")
CLAIM_FEATURES = ("local_log", "stands_in_source", *CHECKS)
SIGNALS = ("lexical", "alignment", "similarity")
MIL_ROUNDS = 3
# whether a statement's annotated error span, where its set gives one (training/error_spans.py), narrows the choice of
# its unsupported unit in training to the units that meet it (measured, not shipped: training/judge_variants.py
# "spans"; eval's table "Where the red falls" reads the spans either way)
PICK_BY_SPANS = False
# how sharply a statement's units are pooled into one logit by fit_pooled (measured, not shipped): 1/r·log Σ exp(r·z),
# between their log-sum (r = 1) and their maximum (large r)
POOL_SHARPNESS = 2.0
GROUPS: dict[str, tuple[str, ...]] = {"signals' geometric mean": ("local_log",), "entail (candidate)": ("entail",),
                                      **{f"{f.kind}: {f.name}": (f.name,) for f in REGISTRY if f.name != "local_log"}}
# features the ablation found to add nothing on human data, leave one dataset out (their weights are held at 0)
EXCLUDED: tuple[str, ...] = ()
L2 = 1e-4  # ridge on the weights (not the intercept), per unit of the sets' total weight
# how far a unit's doubt may be drawn toward its whole statement's (citefix.verify.judge.in_context): the values tried,
# and how much of any planted error type's detection (the dev suite, by the judge trained on every set) the chosen one
# may cost: a floor to keep, not the target
CONTEXT_GRID = (0.0, 0.25, 0.4, 0.5, 0.6, 0.75, 1.0)
PLANTED_SLACK = 0.05
PLANTED_MARGIN = 0.05  # eval also shows the planted detection at a decision point this much higher


@dataclass
class Item:
    set: str
    id: str
    label: int  # the dataset's own label (WiCE 0/1/2)
    bad: int  # 1: the statement is not (fully) supported
    group: str | None
    whole: np.ndarray  # (F,) raw features of the whole statement
    units: np.ndarray  # (U, F) raw features of its atomic units (the whole when it has none)
    raw_whole: dict[str, Any] = field(repr=False, default_factory=dict)
    raw_units: list[dict[str, Any]] = field(repr=False, default_factory=list)
    # with `bench.lodo sentences`: the features of each sentence of a multi-sentence statement (None: in error), and
    # the sentence each unit was cut from
    sentences: list[np.ndarray | None] = field(repr=False, default_factory=list)
    unit_sentence: list[int | None] = field(repr=False, default_factory=list)
    # of a statement with an error whose set says where the error lies (training/error_spans.py): the units whose own
    # span meets it (None: not known) — read by eval's "Where the red falls", and by training with PICK_BY_SPANS
    error_units: list[int] | None = field(repr=False, default=None)


def _entail_scores(cache: Path, folder: str) -> dict[tuple[str, str], float]:
    """An entailment model's score of every cached (unit, evidence region) pair, computed once and kept beside the
    cache (entail-<folder name>.json)."""
    from citefix.verify.entail import load_entail

    out_path = cache / f"entail-{Path(folder).name}.json"
    if out_path.exists():
        return {(a, b): s for a, b, s in json.loads(out_path.read_text())}
    pairs: dict[tuple[str, str], None] = {}
    for p in sorted(cache.glob("*.json")):
        if p.name.startswith("entail-"):
            continue
        for r in json.loads(p.read_text()):
            for f in [r["whole"], *r["units"]]:
                if "region_text" in f:
                    pairs[(f.get("unit_text", ""), f["region_text"])] = None
    if not pairs:
        raise SystemExit(f"{cache}: no evidence regions cached; rerun `python -m bench.lodo --cache {cache} features`")
    keys = list(pairs)
    vals = load_entail(Path(folder)).score(keys)
    out_path.write_text(json.dumps([[a, b, s] for (a, b), s in zip(keys, vals)]))
    return dict(zip(keys, vals))


def _backfill(f: dict[str, Any], nlp) -> None:
    """Raw features the verifier gained after a cache was written, computed from the cached fields it computes them
    from: the share of word pairs found nowhere (citefix.verify.pairs) from the unit's text and its invented words."""
    if "invented_pairs" not in f:
        text, inv = str(f.get("unit_text") or ""), [int(m["start"]) for m in f.get("invented") or []]
        f["invented_pairs"] = invented_pair_share(nlp()(text), inv) if inv and text.strip() else 0.0


def _ok(f: dict[str, Any]) -> bool:
    return "error" not in f


def _verifier(overlay: dict[str, Any] | None = None):
    """An offline verifier with the packaged parameters under the "local" combination (whose geometric mean and
    findings the judge reads), `overlay` laid over them."""
    from citefix.verify.offline import OfflineVerifier, _overlay, load_params

    p = load_params()
    _overlay(p, {"combined": {"method": "local"}, "profiles": {"cited_answer": {"combined": {"method": "local"}}}})
    if overlay:
        _overlay(p, json.loads(json.dumps(overlay)))
    return OfflineVerifier(params=p)


# The model's columns: the judge's features, and a candidate signal tried beside them (eval, ablate: --entail-model).
COLUMNS: list[str] = list(FEATURES)
COLUMN_SIGNS: list[int] = list(SIGNS)


def load(cache: Path, overlay: dict[str, Any] | None = None, entail: str | None = None) -> dict[str, list[Item]]:
    """The cached sets as items, each unit read as the judge reads it (`overlay`: parameters laid over the packaged
    ones, e.g. a check switched off). `entail`: an entailment model's folder (training/train_entail.py --out); its score
    of each unit against its cached evidence region becomes a further column, "entail" (sign: support)."""
    v = _verifier(overlay)
    scores = _entail_scores(cache, entail) if entail else {}
    if entail and "entail" not in COLUMNS:
        COLUMNS.append("entail")
        COLUMN_SIGNS.append(-1)

    def row(f: dict[str, Any]) -> list[float]:
        _backfill(f, load_spacy)
        p = v.profile_params(f.get("profile"))
        x = vector(v._local_score(f, p), v.findings(f, p), f)
        extra = [scores.get((f.get("unit_text", ""), f.get("region_text", "")), 0.5)] if entail else []
        return [x[k] for k in FEATURES] + extra

    spans = known_spans(_data_dir(None))
    out: dict[str, list[Item]] = {}
    for name in ("xsumfaith", "summeval", "wice", "attributionbench", "summedits", "probes", "pool", "planted"):
        p = cache / f"{name}.json"
        if not p.exists():
            continue
        for r in json.loads(p.read_text()):
            if not _ok(r["whole"]):
                continue
            sname = f"summedits:{r['group']}" if name == "summedits" else name
            for u, role in zip(r["units"], r.get("roles") or []):
                u.setdefault("role", role)  # the decomposer's role of the unit (core, modifier, clause, …)
            kept = [k for k, u in enumerate(r["units"]) if _ok(u)]
            units = [r["units"][k] for k in kept] or [r["whole"]]
            bad = int(r["label"] < 2) if name == "wice" else int(r["label"] == 0)
            item = Item(sname, str(r["id"]), int(r["label"]), bad, r.get("group"), np.array(row(r["whole"])),
                        np.array([row(u) for u in units]), r["whole"], units)
            if bad and str(r["id"]) in spans and kept:
                own = [tuple(r["spans"][k]) for k in kept] if len(r.get("spans") or []) == len(r["units"]) else []
                item.error_units = units_meeting(spans[str(r["id"])], own) or None
            if r.get("sentences") and len(r.get("unit_sentence") or []) == len(r["units"]) == len(units):
                item.sentences = [np.array(row(f)) if _ok(f) else None for f in r["sentences"]]
                item.unit_sentence = list(r["unit_sentence"])
            out.setdefault(sname, []).append(item)
    return out


# --- fitting ----------------------------------------------------------------------------------------------------


class Model:
    def __init__(self, coef: np.ndarray, intercept: float):
        self.coef, self.intercept = coef, intercept

    def logit(self, x: np.ndarray) -> np.ndarray:
        return x @ self.coef + self.intercept


def _design(items: list[Item], model: Model | None):
    """Training rows of one set: (X, y, w) with the two classes each summing to weight 1."""
    xs, ys, ws = [], [], []
    for it in items:
        xs.append(it.whole)
        ys.append(it.bad)
        ws.append(1.0)
        if it.bad:
            # the unit taken as the unsupported one: the most suspect under the model (first round: the weakest mean
            # of the signals, raised by any finding)
            z = model.logit(it.units) if model is not None else -it.units[:, 0] + 3.0 * it.units[:, 1:].sum(1)
            among = (PICK_BY_SPANS and it.error_units) or list(range(len(z)))  # where the set says the error lies
            xs.append(it.units[among[int(np.argmax(z[among]))]])
            ys.append(1)
            ws.append(1.0)
        else:
            n = len(it.units)
            for u in it.units:
                xs.append(u)
                ys.append(0)
                ws.append(1.0 / math.sqrt(n))
    X, y = np.array(xs), np.array(ys)
    return X, y, _balanced(y, np.array(ws, dtype=float))


def _balanced(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """`w` scaled so that each class of `y` sums to weight 1."""
    for c in (0, 1):
        m = y == c
        if m.any():
            w[m] /= w[m].sum()
    return w


def _set_weight(name: str) -> float:
    """A set's share of the training weight: one for each dataset, the SummEdits domains sharing one between them."""
    return 0.25 if name.startswith("summedits:") else 1.0


def _ridge(w: np.ndarray) -> float:
    """The ridge penalty on the weights `w`: L2 one strength for all, or (training/judge_variants.py) one per column."""
    return float(L2 * (w ** 2).sum()) if np.isscalar(L2) else float((L2 * w ** 2).sum())


def _bounds(drop: tuple[str, ...] | None,
            least: dict[str, float] | None = None) -> list[tuple[float | None, float | None]]:
    """L-BFGS-B bounds: the intercept free, each weight to its sign (COLUMN_SIGNS), features in `drop` held at 0, a
    finding in `least` held at or above its weight there."""
    bounds: list[tuple[float | None, float | None]] = [(None, None)] + [
        (None, 0.0) if sg < 0 else (0.0, None) if sg > 0 else (None, None) for sg in COLUMN_SIGNS]
    for k, lo in (least or {}).items():
        bounds[1 + COLUMNS.index(k)] = (max(0.0, lo), None)
    for k in EXCLUDED if drop is None else drop:
        bounds[1 + COLUMNS.index(k)] = (0.0, 0.0)
    return bounds


def fit_pooled(sets: dict[str, list[Item]], names: list[str], drop: tuple[str, ...] | None = None,
               least: dict[str, float] | None = None) -> Model:
    """Measured, not shipped (training/judge_variants.py "pooled"; docs/quality-tried.md).
    Logistic regression with each weight bounded to its sign (COLUMN_SIGNS), ridge L2, on two terms of equal
    weight, each set weighing the same and its two classes balanced: every whole statement against its label, and
    every statement cut into its atomic units against its label through the units' pooled logit — a soft maximum,
    (1/POOL_SHARPNESS)·log Σ exp(POOL_SHARPNESS·z). The second term is what `check` decides: a text with an error
    needs one unit that reads it, a faithful text needs every unit to read supported; no unit is labelled on its
    own. Features in `drop` are held at 0."""
    from scipy.optimize import minimize

    r = POOL_SHARPNESS
    xw, yw, ww, xu, owner, yt, wt = [], [], [], [], [], [], []
    for n in names:
        for cls in (1, 0):
            group = [it for it in sets[n] if it.bad == cls]
            for it in group:
                share = _set_weight(n) / len(group)
                xw.append(it.whole)
                yw.append(cls)
                ww.append(share)
                owner += [len(yt)] * len(it.units)
                xu.append(it.units)
                yt.append(cls)
                wt.append(share)
    Xw, Xu = np.array(xw), np.concatenate(xu)
    yw_, yt_ = np.array(yw, dtype=float), np.array(yt, dtype=float)
    ww_, wt_ = np.array(ww) / sum(ww), np.array(wt) / sum(wt)
    own = np.array(owner)
    texts = len(yt)

    def loss(v: np.ndarray) -> tuple[float, np.ndarray]:
        b, w = v[0], v[1:]
        zw = np.clip(Xw @ w + b, -50, 50)
        pw = 1.0 / (1.0 + np.exp(-zw))
        zu = Xu @ w + b
        top = np.full(texts, -np.inf)
        np.maximum.at(top, own, zu)
        e = np.exp(r * (zu - top[own]))
        tot = np.bincount(own, weights=e, minlength=texts)
        pooled = np.clip(top + np.log(tot) / r, -50, 50)
        pt = 1.0 / (1.0 + np.exp(-pooled))
        ll = -(ww_ * (yw_ * np.log(pw + 1e-12) + (1 - yw_) * np.log(1 - pw + 1e-12))).sum() \
            - (wt_ * (yt_ * np.log(pt + 1e-12) + (1 - yt_) * np.log(1 - pt + 1e-12))).sum()
        gw = ww_ * (pw - yw_)  # d/dz of each whole statement's term
        gu = (wt_ * (pt - yt_))[own] * e / tot[own]  # … of each unit's, through the soft maximum
        grad = np.concatenate([[gw.sum() + gu.sum()], Xw.T @ gw + Xu.T @ gu + 2 * L2 * w])
        return float(ll + _ridge(w)), grad

    bounds = _bounds(drop, least)
    v0 = np.array([0.0] + [lo or 0.0 for lo, _ in bounds[1:]])
    v = minimize(loss, v0, jac=True, bounds=bounds, method="L-BFGS-B").x
    return Model(v[1:].copy(), float(v[0]))


def fit(sets: dict[str, list[Item]], names: list[str], drop: tuple[str, ...] | None = None, design=None,
        rounds: int = MIL_ROUNDS) -> Model:
    """Logistic regression with each weight bounded to its sign (COLUMN_SIGNS), ridge L2, features in `drop` held at
    0: every whole statement against its label, and each unit labelled on its own — a faithful statement's units
    supported, of a statement with an error the unit the model finds most suspect taken as the unsupported one
    (multiple-instance learning, MIL_ROUNDS refits)."""
    from scipy.optimize import minimize

    bounds = _bounds(drop)
    w = np.zeros(len(COLUMNS) + 1)
    model: Model | None = None
    for _ in range(rounds):
        parts = [(design or _design)(sets[n], model) for n in names]
        X = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        sw = np.concatenate([p[2] * _set_weight(n) for n, p in zip(names, parts)])
        sw = sw / sw.sum()

        def loss(v: np.ndarray) -> tuple[float, np.ndarray]:
            z = X @ v[1:] + v[0]
            pz = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
            ll = -(sw * (y * np.log(pz + 1e-12) + (1 - y) * np.log(1 - pz + 1e-12))).sum()
            g = np.concatenate([[(sw * (pz - y)).sum()], X.T @ (sw * (pz - y)) + 2 * L2 * v[1:]])
            return float(ll + _ridge(v[1:])), g

        w = minimize(loss, w, jac=True, bounds=bounds, method="L-BFGS-B").x
        model = Model(w[1:].copy(), float(w[0]))
    assert model is not None
    return model


def _claims_x(items: list[Item]) -> np.ndarray:
    """Whole statements' rows as the claims model reads them: the geometric mean less 1 in place of its log (exact above
    LOCAL_FLOOR, as citefix.verify.judge.vector(..., linear=True) computes it)."""
    X = np.array([it.whole for it in items], dtype=float)
    k = FEATURES.index("local_log")
    X[:, k] = np.maximum(LOCAL_FLOOR, np.exp(X[:, k])) - 1.0
    return X


def _claims_design(items: list[Item], model: Model | None):
    y = np.array([it.bad for it in items])
    return _claims_x(items), y, _balanced(y, np.ones(len(y)))


def fit_claims(sets: dict[str, list[Item]], names: list[str]) -> Model:
    """The model of a cited answer's claims: whole statements of `names` only, CLAIM_FEATURES only."""
    # whole claims only: no unit to pick, so one fit (the multiple-instance rounds would refit the same rows)
    return fit(sets, names, tuple(k for k in FEATURES if k not in CLAIM_FEATURES), design=_claims_design, rounds=1)


def claims_oof(sets: dict[str, list[Item]]) -> dict[str, np.ndarray]:
    """Out-of-fold logits of each cited set's statements: the claims model trained on the other cited set(s) and the
    training-only CLAIM_SETS."""
    cited = [n for n in CITED_SETS if n in sets]
    extra = [n for n in CLAIM_SETS if n in sets]
    return {h: fit_claims(sets, [n for n in cited if n != h] + extra).logit(_claims_x(sets[h])) for h in cited}


def claims_model(sets: dict[str, list[Item]], zc: dict[str, np.ndarray] | None = None
                 ) -> tuple[Model, float, float, float, float]:
    """The claims model as export packages it: fitted on every cited set and CLAIM_SETS, calibrated on the out-of-fold
    logits `zc` (claims_oof), its decision points chosen on them: (model, a, b, cited point, unsupported point)."""
    zc = claims_oof(sets) if zc is None else zc
    a, b = claims_platt(zc, sets)
    pc, pu = claims_points({n: _sig(zc[n], a, b) for n in zc}, sets)
    cited = [n for n in CITED_SETS if n in sets]
    return fit_claims(sets, cited + [n for n in CLAIM_SETS if n in sets]), a, b, pc, pu


def claims_platt(z: dict[str, np.ndarray], sets: dict[str, list[Item]]) -> tuple[float, float]:
    """Platt scaling of the claims model's out-of-fold logits, each set weighing the same."""
    from sklearn.linear_model import LogisticRegression

    zs = np.concatenate([z[n] for n in z])
    ys = np.concatenate([[it.bad for it in sets[n]] for n in z])
    ws = np.concatenate([np.full(len(z[n]), 1.0 / len(z[n])) for n in z])
    lr = LogisticRegression(C=1e4).fit(zs[:, None], ys, sample_weight=ws / ws.mean())
    return float(lr.coef_[0][0]), float(lr.intercept_[0])


def claims_points(p: dict[str, np.ndarray], sets: dict[str, list[Item]]) -> tuple[float, float]:
    """(cited, unsupported): the point below which a claim is supported by its citations, with the best mean balanced
    accuracy over the sets in `p` (calibrated probabilities), and the lowest point at or above it at which no set flags
    more than FF_TARGET of its faithful claims unsupported."""
    bad = {n: np.array([it.bad for it in sets[n]]) for n in p}
    grid = np.round(np.arange(0.20, 0.901, 0.01), 2)
    pc = float(grid[int(np.argmax([np.mean([balanced_accuracy(p[n], bad[n], t) for n in p]) for t in grid]))])
    ok = [t for t in grid if t >= pc and all(np.mean(p[n][bad[n] == 0] >= t) <= FF_TARGET for n in p)]
    return pc, float(ok[0] if ok else grid[-1])


# --- measuring --------------------------------------------------------------------------------------------------


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores)) if len(set(labels.tolist())) == 2 else float("nan")


def agreement(name: str, support: np.ndarray, items: list[Item]) -> float:
    """ROC-AUC of a support score against the human labels (WiCE: mean one-vs-one over full / partial / none)."""
    lab = np.array([it.label for it in items])
    if name == "wice":
        vals = []
        for a, b in ((2, 0), (2, 1), (1, 0)):
            m = (lab == a) | (lab == b)
            vals.append(auc(support[m], (lab[m] == a).astype(int)))
        return float(np.mean(vals))
    return auc(support, (lab != 0).astype(int) if name != "wice" else lab)


@dataclass
class OOF:
    """Out-of-fold logits of one held-out set."""
    whole: np.ndarray
    units: list[np.ndarray]

    def in_context(self, shrink: float) -> "OOF":
        """The units' logits read in the context of their whole statement (citefix.verify.judge.in_context)."""
        return OOF(self.whole, [np.asarray(in_context(u, w, shrink)) for u, w in zip(self.units, self.whole)])


def _context_auc(oof: dict[str, OOF], sets: dict[str, list[Item]], names: list[str], shrink: float) -> float:
    """The mean atomic ROC-AUC (weakest unit) over `names` with the units read in context at `shrink`."""
    return float(np.mean([agreement(n, -np.array([u.max() for u in oof[n].in_context(shrink).units]), sets[n])
                          for n in names]))


def planted_detection(m: Model, items: list[Item], shrink: float, a: float, b: float,
                      p_uns: float) -> dict[str, float]:
    """The share of a planted suite's statements with an error that `m`, read in context at `shrink` and calibrated
    by (a, b), flags unsupported at `p_uns`, by error type."""
    bad = [it for it in items if it.bad]
    hit = [_sig(in_context(m.logit(it.units), float(m.logit(it.whole[None, :])[0]), shrink), a, b).max() >= p_uns
           for it in bad]
    groups = sorted({it.group or "none" for it in bad})
    return {g: float(np.mean([h for it, h in zip(bad, hit) if (it.group or "none") == g])) for g in groups}


def planted_by_context(sets: dict[str, list[Item]], oof: dict[str, OOF], drop: tuple[str, ...] | None = None,
                       fitter=None) -> dict[float, dict[str, float]]:
    """The planted dev suite's detection by error type at each CONTEXT_GRID share, by the judge trained on every set
    (the one export writes), at the decision point chosen on the human sets' out-of-fold logits: a floor to keep,
    measured where the judge has seen the suite (the held-out split stays for reporting)."""
    if "planted" not in sets:
        return {c: {} for c in CONTEXT_GRID}
    folds = [n for n in HUMAN if n in sets]
    m = (fitter or fit)(sets, folds + [n for n in TRAIN_ONLY if n in sets], drop)
    out = {}
    for c in CONTEXT_GRID:
        ctx = {n: oof[n].in_context(c) for n in folds}
        a, b = platt(ctx, sets)
        pu, _ = choose({n: [_sig(u, a, b) for u in ctx[n].units] for n in folds}, sets)
        out[c] = planted_detection(m, sets["planted"], c, a, b, pu)
    return out


def lodo_rates(oof: dict[str, OOF], sets: dict[str, list[Item]],
               quantile: float | None = None) -> list[dict[str, float]]:
    """Each held-out set's verdict rates at the decision points chosen on the other sets' out-of-fold logits."""
    out = []
    for h in oof:
        others = [n for n in oof if n != h]
        a, b = platt({n: oof[n] for n in others}, sets)
        pu, pp = choose({n: [_sig(u, a, b) for u in oof[n].units] for n in others}, sets, quantile)
        out.append(rates(sets[h], [_sig(u, a, b) for u in oof[h].units], pu, pp))
    return out


def choose_context(oof: dict[str, OOF], sets: dict[str, list[Item]], names: list[str],
                   planted: dict[float, dict[str, float]] | None = None) -> float:
    """How far a unit's doubt is drawn toward its whole statement's: the CONTEXT_GRID value with the best mean atomic
    ROC-AUC over the sets `names`, among those that cost no planted error type more than PLANTED_SLACK of its
    detection with units alone (`planted`: planted_by_context's rates, computed once)."""
    planted = planted if planted is not None else planted_by_context(sets, oof)
    base = planted.get(0.0) or {}
    ok = [c for c in CONTEXT_GRID if all(planted[c].get(g, 0.0) >= r - PLANTED_SLACK for g, r in base.items())]
    return max(ok or [0.0], key=lambda c: (round(_context_auc(oof, sets, names, c), 4), -c))


def lodo(sets: dict[str, list[Item]], drop: tuple[str, ...] | None = None, fitter=None) -> dict[str, OOF]:
    """Out-of-fold logits of each human-labelled set from a model fitted on every other set and the training-only
    ones (`fitter`: another model than `fit`, with its signature; training/judge_variants.py)."""
    folds = [n for n in HUMAN if n in sets]
    extra = [n for n in TRAIN_ONLY if n in sets]
    out = {}
    for held in folds:
        m = (fitter or fit)(sets, [n for n in folds if n != held] + extra, drop)
        out[held] = OOF(m.logit(np.array([it.whole for it in sets[held]])), [m.logit(it.units) for it in sets[held]])
    return out


def platt(oof: dict[str, OOF], sets: dict[str, list[Item]]) -> tuple[float, float]:
    """Platt scaling of out-of-fold logits: whole statements (their label) and units (faithful: supported; with an
    error: the most suspect unit), each set weighing the same."""
    from sklearn.linear_model import LogisticRegression

    zs, ys, ws = [], [], []
    for n, o in oof.items():
        z, y = list(o.whole), [it.bad for it in sets[n]]
        for it, u in zip(sets[n], o.units):
            if it.bad:
                z.append(float(u.max()))
                y.append(1)
            else:
                z += list(u)
                y += [0] * len(u)
        zs += z
        ys += y
        ws += [1.0 / len(z)] * len(z)
    w = np.array(ws)
    lr = LogisticRegression(C=1e4).fit(np.array(zs)[:, None], np.array(ys), sample_weight=w / w.mean())
    return float(lr.coef_[0][0]), float(lr.intercept_[0])


def _sig(z: np.ndarray | float, a: float, b: float):
    return 1.0 / (1.0 + np.exp(-np.clip(a * np.asarray(z) + b, -50, 50)))


def rates(items: list[Item], units: list[np.ndarray], p_uns: float, p_part: float) -> dict[str, float]:
    """Verdict rates at two decision points on calibrated unit probabilities."""
    faithful = [u for it, u in zip(items, units) if not it.bad]
    bad = [u for it, u in zip(items, units) if it.bad]
    fu = np.concatenate(faithful) if faithful else np.zeros(0)
    return {
        "faithful_flagged": float(np.mean([u.max() >= p_uns for u in faithful])) if faithful else float("nan"),
        "bad_flagged": float(np.mean([u.max() >= p_uns for u in bad])) if bad else float("nan"),
        "partial_units": float(np.mean((fu >= p_part) & (fu < p_uns))) if len(fu) else float("nan"),
    }


def _within(flagged: list[float], quantile: float | None) -> bool:
    """Do the training sets' faithful-flagged rates meet the unsupported point's rule: every set but SET_SPARED at
    most FF_TARGET, or (`quantile`, the rules the docs compare it with) their np.quantile at most FF_TARGET?"""
    if quantile is not None:
        return float(np.quantile(flagged, quantile)) <= FF_TARGET
    kept = sorted(flagged)[:max(1, len(flagged) - SET_SPARED)]
    return kept[-1] <= FF_TARGET


def choose(probs: dict[str, list[np.ndarray]], sets: dict[str, list[Item]],
           quantile: float | None = None, partial: tuple[float, float] | None = None) -> tuple[float, float]:
    """The decision points: `unsupported` the lowest probability at which every training set but one (SET_SPARED)
    flags at most FF_TARGET of its faithful texts (`quantile`: instead, a quantile of the sets' rates, as the docs
    compare); `partial` the lowest at which every set (PARTIAL_QUANTILE) marks at most PARTIAL_TARGET of its faithful
    units partial (`partial`: another (target, quantile)). Not every set for `unsupported`: one set whose faithful
    texts no threshold clears (long meeting transcripts) must not push every other set's decisions out of reach; not
    a quantile such as two sets in three, which lets the point fall as the easy sets get easier until the hardest
    ones flag a third of their faithful texts (docs/quality.md, "Context share and decision rule"). The planted suite
    is not consulted: held to detect every planted type at 0.85, the decision point fell to 0.30 and flagged more
    faithful human texts than the rules did (docs/quality-tried.md). A cited answer's claims have their own point
    (choose_cited)."""
    target, pq = partial or (PARTIAL_TARGET, PARTIAL_QUANTILE)
    grid = np.round(np.arange(0.20, 0.991, 0.01), 2)
    p_uns = float(grid[-1])
    for t in grid:
        if _within([rates(sets[n], probs[n], t, t)["faithful_flagged"] for n in probs], quantile):
            p_uns = float(t)
            break
    p_part = p_uns
    for t in grid[grid <= p_uns]:
        if np.quantile([rates(sets[n], probs[n], p_uns, t)["partial_units"] for n in probs], pq) <= target:
            p_part = float(t)
            break
    return p_uns, p_part


def balanced_accuracy(p: np.ndarray, bad: np.ndarray, at: float) -> float:
    """The mean of the share of statements with an error at or above `at` and of faithful ones below it."""
    return float(0.5 * (np.mean(p[bad == 1] >= at) + np.mean(p[bad == 0] < at)))


def choose_cited(whole: dict[str, np.ndarray], sets: dict[str, list[Item]], p_uns: float) -> float | None:
    """The probability below which a cited answer's claim counts as supported by its citations: the point, at most
    `p_uns`, with the best mean balanced accuracy over the CITED_SETS in `whole` (calibrated probabilities of their
    statements, each judged whole against the evidence cited for it, as a claim is); None without such a set."""
    names = [n for n in CITED_SETS if n in whole]
    if not names:
        return None
    grid = np.round(np.arange(0.20, p_uns + 0.001, 0.01), 2)
    bad = {n: np.array([it.bad for it in sets[n]]) for n in names}
    score = [np.mean([balanced_accuracy(whole[n], bad[n], t) for n in names]) for t in grid]
    return float(grid[int(np.argmax(score))])


def _packaged_scores(items: list[Item]):
    """The rules' scores (the "local" combination, capped: the verifier before the judge) of each whole statement and
    unit, and the single signals' scores."""
    v = _verifier()
    res: dict[str, tuple[np.ndarray, list[np.ndarray]]] = {}
    for sig in ("combined",) + SIGNALS:
        w = np.array([v.score(it.raw_whole, sig) for it in items])
        u = [np.array([v.score(f, sig) for f in it.raw_units]) for it in items]
        res[sig] = (w, u)
    labels = [[_label(v, f) for f in it.raw_units] for it in items]
    return res, labels


def _label(v, f: dict[str, Any]) -> str:
    th = v.profile_params(f.get("profile"))["thresholds"]["combined"]
    s = v.score(f, "combined")
    if s >= th["supported"]:
        return "supported"
    return "unsupported" if s < th["partial"] or v._capped(f) else "partial"


def evaluate(args) -> None:
    if args.local_floor is not None:  # the floor of the geometric mean's log (judge.LOCAL_FLOOR), tried otherwise
        import citefix.verify.judge as packaged

        packaged.LOCAL_FLOOR = args.local_floor
    sets = load(Path(args.cache), entail=args.entail_model)
    raw = lodo(sets)
    folds = list(raw)
    print(f"judge columns: {', '.join(COLUMNS)}\n")
    # the context share, chosen for each held-out set on the others (and the planted dev suite's floor)
    floor = planted_by_context(sets, raw)
    shrink = {h: choose_context(raw, sets, [n for n in folds if n != h], floor) for h in folds}
    print("## A unit read in the context of its whole statement: mean atomic ROC-AUC over the sets, the planted dev "
          "suite's detection by type (by the judge trained on every set)\n")
    print("| context share | " + " | ".join(f"{c:g}" for c in CONTEXT_GRID) + " |")
    print("|---|" + "---|" * len(CONTEXT_GRID))
    print("| mean atomic ROC-AUC | " + " | ".join(f"{_context_auc(raw, sets, folds, c):.4f}" for c in CONTEXT_GRID) + " |")
    for g in sorted(floor[0.0]):
        print(f"| planted {g} | " + " | ".join(f"{floor[c][g]:.2f}" for c in CONTEXT_GRID) + " |")
    print("\nchosen for each held-out set on the others: " + ", ".join(f"{h} {shrink[h]:g}" for h in folds) + "\n")
    oof = {h: raw[h].in_context(shrink[h]) for h in folds}
    print("## Leave-one-dataset-out: ROC-AUC of the support score (WiCE: one-vs-one mean)\n")
    print("whole = the statement as one unit; units-min = its weakest atomic unit; units-mean = their mean "
          "(what `check` reports)\n")
    rows: dict[str, dict[str, float]] = {}
    pk = {n: _packaged_scores(sets[n]) for n in folds}
    for n in folds:
        o, items = oof[n], sets[n]
        s = pk[n][0]
        r = {
            "judge whole": agreement(n, -o.whole, items),
            "judge units-min": agreement(n, -np.array([u.max() for u in o.units]), items),
            "judge units-mean": agreement(n, -np.array([u.mean() for u in o.units]), items),
            "judge units-min, units alone": agreement(n, -np.array([u.max() for u in raw[n].units]), items),
            "rules whole": agreement(n, s["combined"][0], items),
            "rules units-min": agreement(n, np.array([u.min() for u in s["combined"][1]]), items),
            "rules units-mean": agreement(n, np.array([u.mean() for u in s["combined"][1]]), items),
        }
        for sig in SIGNALS:
            r[f"{sig} whole"] = agreement(n, s[sig][0], items)
            r[f"{sig} units-min"] = agreement(n, np.array([u.min() for u in s[sig][1]]), items)
        if "entail" in COLUMNS:  # the candidate signal alone
            j = COLUMNS.index("entail")
            r["entail whole"] = agreement(n, np.array([it.whole[j] for it in items]), items)
            r["entail units-min"] = agreement(n, np.array([it.units[:, j].min() for it in items]), items)
        rows[n] = r
    names = list(next(iter(rows.values())))
    print("| score | " + " | ".join(folds) + " |")
    print("|---|" + "---|" * len(folds))
    for k in names:
        print(f"| {k} | " + " | ".join(f"{rows[n][k]:.3f}" for n in folds) + " |")
    print("\n| margin over the best single signal | " + " | ".join(folds) + " |")
    print("|---|" + "---|" * len(folds))
    for mode in ("whole", "units-min"):
        cells = []
        for n in folds:
            best = max(rows[n][f"{s} whole"] for s in SIGNALS) if mode == "whole" else \
                max(max(rows[n][f"{s} whole"], rows[n][f"{s} units-min"]) for s in SIGNALS)
            cells.append(f"{rows[n]['judge ' + mode] - best:+.3f}")
        print(f"| judge {mode} | " + " | ".join(cells) + " |")

    # verdict rates, decision points chosen on the other sets' out-of-fold probabilities
    print("\n## Verdicts in check's atomic mode (decision points chosen on the other sets, LODO)\n")
    print("| set | p unsupported / partial | faithful texts flagged | texts with an error flagged | faithful units "
          "partial (at the former partial point) | rules: faithful flagged | rules: with an error flagged | rules: faithful units partial |")
    print("|---|---|---|---|---|---|---|---|")
    for held in folds:
        ctx, a, b, probs = _held_out(raw, sets, folds, held, shrink[held])
        pu, pp = choose(probs, sets)
        r = rates(sets[held], [_sig(u, a, b) for u in ctx[held].units], pu, pp)
        labs = pk[held][1]
        items = sets[held]
        pf = np.mean([any(x == "unsupported" for x in lab) for it, lab in zip(items, labs) if not it.bad])
        pb = np.mean([any(x == "unsupported" for x in lab) for it, lab in zip(items, labs) if it.bad])
        fl = [x for it, lab in zip(items, labs) if not it.bad for x in lab]
        ppart = np.mean([x == "partial" for x in fl]) if fl else float("nan")
        _, former = choose(probs, sets, partial=FORMER_PARTIAL)
        r0 = rates(sets[held], [_sig(u, a, b) for u in ctx[held].units], pu, former)
        print(f"| {held} | {pu:.2f} / {pp:.2f} | {r['faithful_flagged']:.2f} | {r['bad_flagged']:.2f} | "
              f"{r['partial_units']:.2f} ({r0['partial_units']:.2f} at {former:.2f}) | {pf:.2f} | {pb:.2f} | "
              f"{ppart:.2f} |")
    document_table(raw, sets, folds, shrink)
    length_table(raw, sets, folds, shrink)
    localization_table(raw, sets, folds, shrink)
    held = load(Path(args.planted_heldout)) if args.planted_heldout else {}
    cited_table(raw, sets, folds, shrink, pk, held.get("planted"))
    operating_points(raw, sets, sorted({0.0, *shrink.values()}), held.get("planted"))
    share_rows(raw, sets, floor)
    if "planted" in held or "planted" in sets:
        # measured on a planted suite the judge never saw: the held-out split when given (the judge trained on every
        # set, the planted dev suite too), else the dev suite with the judge trained without it
        train = folds + [n for n in TRAIN_ONLY if n in sets and (held or n != "planted")]
        items = held["planted"] if held else sets["planted"]
        m = fit(sets, train)
        c = choose_context(raw, sets, folds, floor)
        ctx = {n: raw[n].in_context(c) for n in folds}
        a, b = platt(ctx, sets)
        pu, pp = choose({n: [_sig(u, a, b) for u in ctx[n].units] for n in folds}, sets)
        probs = [_sig(in_context(m.logit(it.units), float(m.logit(it.whole[None, :])[0]), c), a, b) for it in items]
        which = "the held-out planted split (judge trained on every set)" if held else \
            "the planted dev suite (judge trained without it)"
        print(f"\n## Planted errors: share flagged unsupported in atomic mode, {which}\n")
        groups = sorted({it.group or "none" for it in items})
        print("| | " + " | ".join(groups) + " |")
        print("|---|" + "---|" * len(groups))
        def detected(at: float) -> str:
            return " | ".join(f"{np.mean([p.max() >= at for it, p in zip(items, probs) if (it.group or 'none') == g]):.2f}"
                              for g in groups)

        print(f"| judge | {detected(pu)} |")
        # how close to the edge: the same, were the decision point PLANTED_MARGIN higher
        print(f"| judge at p ≥ {pu + PLANTED_MARGIN:.2f} (the decision point {PLANTED_MARGIN:g} higher) | "
              f"{detected(pu + PLANTED_MARGIN)} |")
        labs = _packaged_scores(items)[1]
        cells = [f"{np.mean([any(x == 'unsupported' for x in lab) for it, lab in zip(items, labs) if (it.group or 'none') == g]):.2f}"
                 for g in groups]
        print("| rules (before the judge) | " + " | ".join(cells) + " |")


def _held_out(raw: dict[str, OOF], sets: dict[str, list[Item]], folds: list[str], held: str, share: float):
    """One held-out set's view: every set's out-of-fold logits read in context at `share`, the Platt calibration
    (a, b) fitted on the other sets, and the other sets' calibrated unit probabilities (what decision points are
    chosen on)."""
    others = [n for n in folds if n != held]
    ctx = {n: raw[n].in_context(share) for n in folds}
    a, b = platt({n: ctx[n] for n in others}, sets)
    return ctx, a, b, {n: [_sig(u, a, b) for u in ctx[n].units] for n in others}


def _document(item_id: str) -> str:
    """The source document of a SummEdits item: its id less the suffix "_og" (the original summary) or "_N" (an edit)."""
    return re.sub(r"_(?:og|\d+)$", "", item_id)


def document_table(raw: dict[str, OOF], sets: dict[str, list[Item]], folds: list[str], shrink: dict[str, float]) -> None:
    """The SummEdits domains by source document: their faithful summaries are variants of a few documents' summaries,
    so a flag on one is mostly a flag on its variants; how many documents have a faithful summary flagged (LODO)."""
    rows = [h for h in folds if h.startswith("summedits:")]
    if not rows:
        return
    print("\n## The SummEdits domains by source document (LODO, the verdicts above)\n")
    print("| set | source documents | with a faithful summary flagged | faithful summaries | flagged |")
    print("|---|---|---|---|---|")
    for held in rows:
        ctx, a, b, probs = _held_out(raw, sets, folds, held, shrink[held])
        pu, _ = choose(probs, sets)
        docs: dict[str, list[int]] = {}
        for it, u in zip(sets[held], ctx[held].units):
            d = docs.setdefault(_document(it.id), [0, 0])
            if not it.bad:
                d[0] += 1
                d[1] += int(_sig(u, a, b).max() >= pu)
        n = sum(v[0] for v in docs.values())
        print(f"| {held} | {len(docs)} | {sum(1 for v in docs.values() if v[1])} | {n} | "
              f"{sum(v[1] for v in docs.values())} |")


LENGTH_BINS = ((1, 1), (2, 3), (4, 6), (7, 10), (11, 15), (16, 10_000))


def length_table(raw: dict[str, OOF], sets: dict[str, list[Item]], folds: list[str], shrink: dict[str, float]) -> None:
    """The verdicts by how many atomic units a text has, over every human-labelled set (LODO, the verdicts above): a
    text of many units has more chances of one unit read unsupported, so the share of faithful texts flagged rises
    with the count unless the share of units flagged falls."""
    rows: list[tuple[int, int, bool, float]] = []  # (units, with an error, flagged, share of its units flagged)
    for held in folds:
        ctx, a, b, probs = _held_out(raw, sets, folds, held, shrink[held])
        pu, _ = choose(probs, sets)
        for it, u in zip(sets[held], ctx[held].units):
            p = _sig(u, a, b)
            rows.append((len(u), it.bad, bool(p.max() >= pu), float(np.mean(p >= pu))))
    print("\n## The verdicts by the number of atomic units in a text (every human-labelled set, LODO)\n")
    print("| units | faithful texts | flagged | their units flagged | texts with an error | flagged | their units flagged |")
    print("|---|---|---|---|---|---|---|")
    for lo, hi in LENGTH_BINS:
        cells = []
        for bad in (0, 1):
            r = [x for x in rows if x[1] == bad and lo <= x[0] <= hi]
            cells += [str(len(r)), f"{np.mean([x[2] for x in r]):.3f}" if r else "–",
                      f"{np.mean([x[3] for x in r]):.3f}" if r else "–"]
        span = f"{lo} or more" if hi >= 10_000 else str(lo) if lo == hi else f"{lo}–{hi}"
        print(f"| {span} | " + " | ".join(cells) + " |")


def localization_table(raw: dict[str, OOF], sets: dict[str, list[Item]], folds: list[str],
                       shrink: dict[str, float]) -> None:
    """Where the red falls in a text with an error, on the sets that say where its error lies (training/error_spans.py:
    XSumFaith's annotated spans, the words a SummEdits edit changed), LODO at the verdicts above: of the texts with an
    error flagged, how often a unit marked unsupported meets the error, and the share of their unsupported units
    that do; and how often the unit with the highest probability is one that meets it, against the share of units
    that meet it (what a unit picked at random would score)."""
    rows = [h for h in folds if any(it.error_units for it in sets[h])]
    if not rows:
        return
    cols = ("set", "texts with the error marked", "flagged", "of those, a unit marked unsupported meets the error",
            "unsupported units that meet it", "the most suspect unit meets it", "units that meet it (chance)")
    print("\n## Where the red falls: texts with an error whose set marks where it lies (LODO, the verdicts above)\n\n"
          + "| " + " | ".join(cols) + " |\n" + "|---" * len(cols) + "|")
    for held in rows:
        ctx, a, b, probs = _held_out(raw, sets, folds, held, shrink[held])
        n = top = flagged = hit = red = red_on = 0
        pu, _ = choose(probs, sets)
        chance = []
        for it, u in zip(sets[held], ctx[held].units):
            if not it.bad or not it.error_units:
                continue
            p, on = _sig(u, a, b), set(it.error_units)
            n += 1
            top += int(np.argmax(p)) in on
            chance.append(len(on) / len(p))
            marked = [k for k in range(len(p)) if p[k] >= pu]
            flagged += bool(marked)
            hit += any(k in on for k in marked)
            red += len(marked)
            red_on += sum(k in on for k in marked)
        print(f"| {held} | {n} | {flagged / n:.2f} | {hit / max(flagged, 1):.2f} | {red_on / max(red, 1):.2f} | "
              f"{top / n:.2f} | {np.mean(chance):.2f} |")


def cited_table(raw: dict[str, OOF], sets: dict[str, list[Item]], folds: list[str], shrink: dict[str, float],
                pk: dict[str, Any], planted: list[Item] | None = None) -> None:
    """A cited answer's claims, leave one dataset out, each statement judged whole against the evidence cited for it:
    the claims model (trained on the other cited set and the pool's claim–evidence pairs; calibration and decision
    points chosen on the other set's out-of-fold probabilities) beside the summaries' judge (the point chosen on the
    other cited set by choose_cited, calibration on every other set), the rules and the best single signal: ROC-AUC,
    balanced accuracy at the cited point, and the shares of statements with and without an error that read
    supported, and of faithful ones unsupported."""
    cited = [n for n in CITED_SETS if n in folds]
    if len(cited) < 2:
        return
    zc = claims_oof(sets)
    print("\n## A cited answer's claims, each judged whole against its cited evidence (LODO)\n")
    print("| set | model | ROC-AUC | cited point | balanced accuracy | faithful supported | with an error supported | "
          "faithful unsupported |")
    print("|---|---|---|---|---|---|---|---|")
    for held in cited:
        bad = np.array([it.bad for it in sets[held]])
        others = [n for n in cited if n != held]
        a, b = claims_platt({n: zc[n] for n in others}, sets)
        pc, pu = claims_points({n: _sig(zc[n], a, b) for n in others}, sets)
        p = _sig(zc[held], a, b)
        print(f"| {held} | claims model | {agreement(held, -zc[held], sets[held]):.3f} | {pc:.2f} | "
              f"{balanced_accuracy(p, bad, pc):.3f} | {np.mean(p[bad == 0] < pc):.2f} | {np.mean(p[bad == 1] < pc):.2f} | "
              f"{np.mean(p[bad == 0] >= pu):.2f} (at {pu:.2f}) |")
        _, a, b, probs = _held_out(raw, sets, folds, held, shrink[held])
        pu, _ = choose(probs, sets)
        pc = choose_cited({n: _sig(raw[n].whole, a, b) for n in probs}, sets, pu)
        if pc is None:
            continue
        p = _sig(raw[held].whole, a, b)
        print(f"| {held} | the summaries' judge | {agreement(held, -raw[held].whole, sets[held]):.3f} | {pc:.2f} | "
              f"{balanced_accuracy(p, bad, pc):.3f} | {np.mean(p[bad == 0] < pc):.2f} | {np.mean(p[bad == 1] < pc):.2f} | "
              f"{np.mean(p[bad == 0] >= pu):.2f} (at {pu:.2f}) |")
        s = pk[held][0]  # the rules' and the single signals' scores (_packaged_scores)
        by_signal = {k: agreement(held, s[k][0], sets[held]) for k in SIGNALS}
        best = max(by_signal, key=lambda k: by_signal[k])
        print(f"| {held} | rules / best single signal ({best}) | {agreement(held, s['combined'][0], sets[held]):.3f} / "
              f"{by_signal[best]:.3f} | | | | | |")
    if not planted:
        return
    # the planted statements as claims of their article: the share of each error type not supported by it (at or above
    # the cited point) and unsupported, by the claims model as export fits it and by the summaries' judge
    m, a, b, pc, pu = claims_model(sets, zc)
    pm = _sig(m.logit(_claims_x(planted)), a, b)
    share = max(set(shrink.values()), key=list(shrink.values()).count)  # the share export would choose
    ctx = {n: raw[n].in_context(share) for n in folds}
    a2, b2 = platt(ctx, sets)
    pu2, _ = choose({n: [_sig(u, a2, b2) for u in ctx[n].units] for n in folds}, sets)
    pc2 = choose_cited({n: _sig(raw[n].whole, a2, b2) for n in folds}, sets, pu2) or pu2
    mj = fit(sets, folds + [n for n in TRAIN_ONLY if n in sets])
    pj = _sig(mj.logit(np.array([it.whole for it in planted])), a2, b2)
    groups = sorted({it.group or "none" for it in planted})

    def flagged(p: np.ndarray, at: float, g: str) -> str:
        return f"{np.mean([q >= at for it, q in zip(planted, p) if (it.group or 'none') == g]):.2f}"

    print("\n| the held-out planted split as claims: not supported by their article / unsupported | "
          + " | ".join(groups) + " |")
    print("|---|" + "---|" * len(groups))
    print(f"| claims model (p ≥ {pc:.2f} / {pu:.2f}) | " + " | ".join(f"{flagged(pm, pc, g)} / {flagged(pm, pu, g)}" for g in groups)
          + " |")
    print(f"| the summaries' judge (p ≥ {pc2:.2f} / {pu2:.2f}) | "
          + " | ".join(f"{flagged(pj, pc2, g)} / {flagged(pj, pu2, g)}" for g in groups) + " |")


def operating_points(raw: dict[str, OOF], sets: dict[str, list[Item]], shares: list[float],
                     planted: list[Item] | None = None) -> None:
    """What the context share and the decision rule each do: the LODO verdict rates (decision points chosen on the
    other sets) at each share in `shares` under four rules — the median, two sets in three, three in four, and every set but one (shipped) — and,
    with `planted` (the held-out split), its lowest detection over the error types."""
    folds = list(raw)
    print("\n## Context share and decision rule (LODO; means over the sets)\n")
    print("| context share | sets that must keep faithful flags ≤ 15% | faithful texts flagged | sets ≤ 15% | "
          "texts with an error flagged | faithful units partial | planted held-out, lowest type |")
    print("|---|---|---|---|---|---|---|")
    m = fit(sets, folds + [n for n in TRAIN_ONLY if n in sets]) if planted else None
    for c in shares:
        ctx = {n: raw[n].in_context(c) for n in folds}
        for q, name in ((0.5, "half (median)"), (2 / 3, "two in three"), (0.75, "three in four"),
                        (None, "every set but one")):
            r = lodo_rates(ctx, sets, q)
            ff = [x["faithful_flagged"] for x in r]
            low = "–"
            if planted and m is not None:
                a, b = platt(ctx, sets)
                pu, _ = choose({n: [_sig(u, a, b) for u in ctx[n].units] for n in folds}, sets, q)
                low = f"{min(planted_detection(m, planted, c, a, b, pu).values()):.2f}"
            print(f"| {c:g} | {name} | {np.mean(ff):.3f} | {sum(x <= FF_TARGET for x in ff)} of {len(ff)} | "
                  f"{np.mean([x['bad_flagged'] for x in r]):.3f} | {np.mean([x['partial_units'] for x in r]):.3f} | "
                  f"{low} |")


def share_rows(raw: dict[str, OOF], sets: dict[str, list[Item]], floor: dict[float, dict[str, float]]) -> None:
    """Every context share at the shipped decision rule (every set but one): the mean atomic ROC-AUC the share is
    chosen by, the LODO verdict rates, the set with the most faithful texts flagged, and whether the planted dev
    suite's floor (choose_context) lets the share be chosen."""
    folds = list(raw)
    base = floor.get(0.0) or {}
    print("\n## Each context share at the shipped decision rule (LODO; means over the sets)\n")
    print("| context share | mean atomic ROC-AUC | faithful texts flagged | sets ≤ 15% | most faithful texts flagged | "
          "texts with an error flagged | within the planted floor |")
    print("|---|---|---|---|---|---|---|")
    for c in CONTEXT_GRID:
        r = lodo_rates({n: raw[n].in_context(c) for n in folds}, sets)
        ff = [x["faithful_flagged"] for x in r]
        worst = int(np.argmax(ff))
        ok = all(floor[c].get(g, 0.0) >= v - PLANTED_SLACK for g, v in base.items())
        print(f"| {c:g} | {_context_auc(raw, sets, folds, c):.4f} | {np.mean(ff):.3f} | "
              f"{sum(x <= FF_TARGET for x in ff)} of {len(ff)} | {ff[worst]:.2f} ({folds[worst]}) | "
              f"{np.mean([x['bad_flagged'] for x in r]):.3f} | {'yes' if ok else 'no'} |")


def lodo_summary(sets: dict[str, list[Item]], drop: tuple[str, ...] = (), fitter=None,
                 held: list[Item] | None = None) -> dict[str, Any]:
    """LODO ROC-AUC per set (atomic: the weakest unit; whole statements) and the mean verdict rates at decision points
    chosen on the out-of-fold probabilities; with `held` (the held-out planted split), its detection by error type at
    those decision points by the model trained on every set."""
    folds = [n for n in HUMAN if n in sets]
    raw = lodo(sets, drop, fitter)
    c = choose_context(raw, sets, folds, planted_by_context(sets, raw, drop, fitter))
    oof = {n: raw[n].in_context(c) for n in folds}
    a, b = platt(oof, sets)
    probs = {n: [_sig(u, a, b) for u in oof[n].units] for n in folds}
    pu, pp = choose(probs, sets)
    r = {n: rates(sets[n], probs[n], pu, pp) for n in folds}
    planted = {}
    if held:
        m = (fitter or fit)(sets, folds + [n for n in TRAIN_ONLY if n in sets], drop)
        planted = planted_detection(m, held, c, a, b, pu)
    return {
        "planted": planted,
        "units": {n: agreement(n, -np.array([u.max() for u in oof[n].units]), sets[n]) for n in folds},
        "whole": {n: agreement(n, -oof[n].whole, sets[n]) for n in folds},
        "ff": float(np.mean([r[n]["faithful_flagged"] for n in folds])),
        "bf": float(np.mean([r[n]["bad_flagged"] for n in folds])),
        "context": c,
    }


def ablate(args) -> None:
    sets = load(Path(args.cache), entail=args.entail_model)
    folds = [n for n in HUMAN if n in sets]
    held = load(Path(args.planted_heldout), entail=args.entail_model).get("planted") if args.planted_heldout else None
    rows: list[tuple[str, dict[str, float]]] = []

    def summary(drop: tuple[str, ...]) -> dict[str, Any]:
        return lodo_summary(sets, drop, held=held)

    base_drop = tuple(k for k in EXCLUDED if not args.all_features)
    base = summary(base_drop)
    print("## Each feature left out in turn: change in LODO ROC-AUC (atomic units: the weakest unit) per set, the "
          "mean change in atomic and in whole-statement mode, and in the mean verdict rates at the decision points "
          "chosen LODO\n")
    print("| left out | " + " | ".join(folds) + " | mean Δ units | mean Δ whole | Δ faithful flagged | "
          "Δ with an error flagged |")
    print("|---|" + "---|" * len(folds) + "---|---|---|---|")
    print("| (none: the judge) | " + " | ".join(f"{base['units'][n]:.3f}" for n in folds) +
          f" | {np.mean(list(base['units'].values())):.3f} | {np.mean(list(base['whole'].values())):.3f} | "
          f"{base['ff']:.3f} | {base['bf']:.3f} |")
    rows.append(("(none: the judge)", base["planted"]))
    for g, keys in GROUPS.items():
        if set(keys) <= set(base_drop) or not set(keys) <= set(COLUMNS):
            continue
        r = summary(tuple(dict.fromkeys(base_drop + keys)))
        d = [r["units"][n] - base["units"][n] for n in folds]
        dw = np.mean([r["whole"][n] - base["whole"][n] for n in folds])
        print(f"| {g} | " + " | ".join(f"{x:+.3f}" for x in d) + f" | {np.mean(d):+.3f} | {dw:+.3f} | "
              f"{r['ff'] - base['ff']:+.3f} | {r['bf'] - base['bf']:+.3f} |", flush=True)
        rows.append((g, r["planted"]))
    if held:
        types = sorted(base["planted"])
        print("\n## The held-out planted split: share of each error type flagged unsupported with each feature left out "
              "(the model trained on every set, at its own context share and decision point)\n")
        print("| left out | " + " | ".join(types) + " | lowest |")
        print("|---|" + "---|" * (len(types) + 1))
        for g, det in rows:
            print(f"| {g} | " + " | ".join(f"{det[t]:.2f}" for t in types) + f" | {min(det.values()):.2f} |")
    if base_drop and not args.all_features:
        print(f"\nLeft out of the judge by this table's rule (no gain on human data): {', '.join(base_drop)}; "
              "`ablate --all-features` measures them too.")


def export(args) -> None:
    sets = load(Path(args.cache))
    folds = [n for n in HUMAN if n in sets]
    raw = lodo(sets)
    shrink = choose_context(raw, sets, folds)
    oof = {n: raw[n].in_context(shrink) for n in folds}
    a, b = platt(oof, sets)
    m = fit(sets, folds + [n for n in TRAIN_ONLY if n in sets])
    pu, pp = choose({n: [_sig(u, a, b) for u in oof[n].units] for n in folds}, sets)
    pc = choose_cited({n: _sig(oof[n].whole, a, b) for n in folds}, sets, pu)
    counts = {n: len(sets[n]) for n in sets}
    spec = {
        "_provenance": (
            "Fitted by training/judge.py export on the features bench/lodo.py caches: a logistic model of 'not "
            "supported' (multiple-instance labels for the atomic units of statements with an error), each set "
            "weighing the same, on the human-labelled development sets (XSumFaith val, SummEval, WiCE dev, "
            "AttributionBench dev, the SummEdits domains ectsum, qmsumm, scitldr and sales_email, the read probe "
            "files) and a sample of the training pool (FEVER, Fool Me Twice, FactCG; CC BY-SA 3.0, Apache-2.0, MIT)"
            + (" and a planted-error suite" if "planted" in sets else "") +
            "; Platt calibration and the decision points chosen on leave-one-dataset-out out-of-fold logits (a cited "
            "answer's claim on WiCE and AttributionBench)."),
        "trained_on": counts,
        "features": [k for k in FEATURES if k not in EXCLUDED],
        "mean": [0.0] * (len(FEATURES) - len(EXCLUDED)),
        "scale": [1.0] * (len(FEATURES) - len(EXCLUDED)),
        "coef": [round(float(x), 6) for k, x in zip(FEATURES, m.coef) if k not in EXCLUDED],
        "intercept": round(m.intercept, 6),
        "context": {"shrink": shrink},
        "calibration": {"a": round(a, 6), "b": round(b, 6)},
        "thresholds": {"unsupported": pu, "partial": pp, **({"cited": pc} if pc is not None else {})},
    }
    if all(n in sets for n in CITED_SETS):
        mc, ca, cb, cpc, cpu = claims_model(sets)
        spec["profiles"] = {"cited_answer": {
            "_provenance": (
                "A cited answer's claims: a logistic model of 'not supported' fitted on whole claims against their "
                "cited evidence (WiCE dev, AttributionBench dev), the pool's claim–evidence pairs and the planted "
                "suite's statements, the geometric mean on a linear scale and the hard checks; Platt calibration and "
                "the decision points chosen on out-of-fold logits (each cited set scored by the model trained "
                "without it)."),
            "trained_on": {n: len(sets[n]) for n in (*CITED_SETS, *CLAIM_SETS) if n in sets},
            "local_scale": "linear",
            "features": list(CLAIM_FEATURES),
            "mean": [0.0] * len(CLAIM_FEATURES),
            "scale": [1.0] * len(CLAIM_FEATURES),
            "coef": [round(float(mc.coef[FEATURES.index(k)]), 6) for k in CLAIM_FEATURES],
            "intercept": round(mc.intercept, 6),
            "context": {"shrink": 0.0},
            "calibration": {"a": round(ca, 6), "b": round(cb, 6)},
            "thresholds": {"unsupported": cpu, "partial": cpc, "cited": cpc},
        }}
    out = Path(args.out)
    out.write_text(json.dumps(spec, indent=1) + "\n")
    print(f"wrote {out}: unsupported at p >= {pu}, partial at p >= {pp}, a cited claim supported below p = "
          f"{pc if pc is not None else pp}; calibration a={a:.3f} b={b:.3f}; "
          f"context share {shrink:g}")
    for k, w in sorted(zip(FEATURES, m.coef), key=lambda t: -abs(t[1])):
        print(f"  {k:22s} {w:+.3f}")
    c = (spec.get("profiles") or {}).get("cited_answer")
    if c:
        print(f"a cited answer's claims: supported below p = {c['thresholds']['cited']}, unsupported at p >= "
              f"{c['thresholds']['unsupported']}; calibration a={c['calibration']['a']:.3f} b={c['calibration']['b']:.3f}")
        for k, w in zip(c["features"], c["coef"]):
            print(f"  {k:22s} {w:+.3f}")


def table(args) -> None:
    """The judge's features as a Markdown table (what each stands for, an example, its weight in the packaged judge)."""
    from citefix.verify.judge import markdown_table

    print(markdown_table())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=str(ROOT / "out" / "lodo"), help="bench/lodo.py's feature cache")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ev = sub.add_parser("eval")
    ev.add_argument("--entail-model", default=None, help="an entailment model's folder (training/train_entail.py "
                    "--out): its score of each unit against its evidence region is tried as a further feature")
    ev.add_argument("--planted-heldout", default=None, help="a bench/lodo.py cache folder holding planted.json made "
                    "from the held-out planted split (training/make_planted.py --split heldout)")
    ev.add_argument("--local-floor", type=float, default=None, help="read the signals' geometric mean on a log scale "
                    "floored here instead of the packaged floor (citefix.verify.judge.LOCAL_FLOOR)")
    ab = sub.add_parser("ablate")
    ab.add_argument("--all-features", action="store_true", help="start from every feature, the excluded ones too")
    ab.add_argument("--entail-model", default=None, help="as for eval")
    ab.add_argument("--planted-heldout", default=None, help="as for eval: adds the held-out planted split's detection "
                    "by error type with each feature left out")
    sub.add_parser("table", help="the packaged judge's features, examples and weights as a Markdown table")
    e = sub.add_parser("export")
    e.add_argument("--out", default=str(ROOT / "citefix" / "data" / "judge.json"))
    args = ap.parse_args()
    {"eval": evaluate, "ablate": ablate, "export": export, "table": table}[args.cmd](args)


if __name__ == "__main__":
    main()
