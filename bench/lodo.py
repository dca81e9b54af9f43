"""Leave-one-dataset-out (LODO) comparison of the offline verifier's combinations and its single signals.

Two steps:
  features  run the offline verifier once over every development set (each statement whole, and cut into atomic
            units by the offline decomposer) and cache the per-unit features in out/lodo/<set>.json (slow: CPU models).
  eval      from the cache: ROC-AUC (WiCE: mean one-vs-one AUC over full/partial/none) of each single signal and of
            each combination, per set, for whole statements and for units (item score = min over its units, or their mean as `check` aggregates); then,
            per held-out set, the decision threshold chosen on the other sets and the balanced accuracy it gives on
            the held-out one. A combination with no fitted weights has nothing else to choose, so its per-set AUC is
            already a held-out figure; the thresholds are the only thing fitted, and only on the other sets.

Data: the development files in ../shared/data (XSumFaith val, SummEval, WiCE dev, AttributionBench dev as cited
answers) and, with --planted FILE, a planted-error suite made by training/make_planted.py.

Run:  .venv/bin/python -m bench.lodo features [--limit N] [--planted out/planted_dev.jsonl]
      .venv/bin/python -m bench.lodo eval
      .venv/bin/python -m bench.lodo simplex   # any weighting of the three signals ≥ the best single one everywhere?
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.tune_offline import FILES, auc, one_vs_one

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "out" / "lodo"

SETS = ("xsumfaith", "summeval", "wice", "attributionbench", "planted")
# Further sets the learned judge is trained and measured on (training/judge.py): the SummEdits domains of the training
# pool (human labels; one LODO fold each), the faithful hard paraphrases and one-error statements of the read probe
# files, and a sample of the pool's claim-evidence pairs (training only: never a quality figure).
EXTRA_SETS = ("summedits", "probes", "pool")
POOL_SAMPLE = {"fever": 700, "fool_me_twice": 500, "factcg": 500}
# (files 5-11, read since, stay out: trained on, they weigh the negation finding down until the held-out planted
# negations fall below their floor; docs/quality-tried.md)
READ_PROBES = tuple(f"bench/probes/{n}" for n in ("dev_probes.jsonl", "heldout_probes_1.jsonl", "heldout_probes_2.jsonl",
                                                   "heldout_probes_3.jsonl", "heldout_probes_4.jsonl"))
SIGNALS = ("lexical", "alignment", "similarity", "entail")
# Combinations compared: name → parameter overlay (None: the packaged parameters as they are).
VARIANTS: dict[str, dict[str, Any] | None] = {
    "packaged": None,
    "logistic": {"combined": {"method": "logistic"}, "profiles": {"cited_answer": {"combined": {"method": "logistic"}}}},
    "local": {"combined": {"method": "local"}, "profiles": {"cited_answer": {"combined": {"method": "local"}}}},
    "local3": {"combined": {"method": "local", "signals": ["lexical", "alignment", "similarity"]},
               "profiles": {"cited_answer": {"combined": {"method": "local", "signals": ["lexical", "alignment", "similarity"]}}}},
    "local4": {"combined": {"method": "local", "signals": ["lexical", "alignment", "similarity", "entail"]},
               "profiles": {"cited_answer": {"combined": {"method": "local",
                                                          "signals": ["lexical", "alignment", "similarity", "entail"]}}}},
    "local4h": {"combined": {"method": "local", "signals": ["lexical", "lexical", "alignment", "alignment", "similarity", "similarity", "entail"]},
                "profiles": {"cited_answer": {"combined": {"method": "local", "signals": ["lexical", "lexical", "alignment", "alignment", "similarity", "similarity", "entail"]}}}},
    "local-inv": {"cap": {"invented_words": 0}},  # without the invented-words cap
    # the invented-words cap only when the invented words are at least this share of the unit's content words
    "inv-share-0": {"cap": {"invented_share": 0}},  # the count alone, as before cap.invented_share
    "inv-share-25": {"cap": {"invented_share": 0.25}},
    "inv-share-34": {"cap": {"invented_share": 0.34}},
    "inv-share-50": {"cap": {"invented_share": 0.5}},
    # a clause's core counts its invented words against its own words only, not the whole clause's
    "inv-core-own": {"cap": {"invented_of_clause": False}},
    "local-sub": {"cap": {"substitution": False}},  # without the name-substitution check
    # what a unit says of an entity: its words found only away from the evidence not counted as invented
    "attr-misplaced-off": {"cap": {"attribute_misplaced": False}},
    "local-copy": {"combined": {"copy": False}, "profiles": {"cited_answer": {"combined": {"copy": False}}}},  # similarity kept for copies
    "local2": {"combined": {"method": "local", "signals": ["lexical", "alignment"]},
               "profiles": {"cited_answer": {"combined": {"method": "local", "signals": ["lexical", "alignment"]}}}},
}


def _data_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    return (ROOT.parent / "shared" / "data") if (ROOT.parent / "shared" / "data").exists() else Path("../shared/data")


def _items(name: str, data: Path, planted: str | None, limit: int | None):
    from citefix.models import Case, Source
    from citefix.nlp import strip_citations

    if name in EXTRA_SETS:
        yield from _extra_items(name, data, limit)
        return
    path = Path(planted) if name == "planted" else data / FILES[name]
    n = 0
    for line in open(path, encoding="utf-8"):
        if limit and n >= limit:
            return
        r = json.loads(line)
        if name in ("xsumfaith", "summeval", "planted"):
            if not isinstance(r.get("document"), str) or not r["document"].strip() or not str(r.get("summary", "")).strip():
                continue
            if r.get("label") is None:
                continue
            case = Case(id=str(r["id"]), sources=[Source(id="doc", text=r["document"])], text=r["summary"], kind="summary")
            yield {"id": case.id, "label": int(r["label"]), "case": case, "targets": None,
                   "group": r.get("error_type")}
            n += 1
        elif name == "wice":
            level = {"full": 2, "partial": 1, "none": 0, "supported": 2, "partially_supported": 1,
                     "not_supported": 0}[r["support"]]
            case = Case(id=str(r["id"]), sources=[Source(id="page", text=r["citation_text"])], text=r["statement"],
                        kind="summary")
            yield {"id": case.id, "label": level, "case": case, "targets": None, "group": None}
            n += 1
        else:
            passages = [Source(id=str(p["id"]), text=p["text"]) for p in r["passages"] if str(p.get("text", "")).strip()]
            have = {p.id for p in passages}
            for k, s in enumerate(r["human"]["labelled_sentences"]):
                cited = [str(c) for c in s["cited"] if str(c) in have] or sorted(have)
                text = strip_citations(s["text"]).strip()
                if not cited or not text or not passages:
                    continue
                case = Case(id=f"{r['id']}#{k}", sources=passages, text=text, kind="cited_answer")
                yield {"id": case.id, "label": int(s["attributable"]), "case": case, "targets": cited, "group": None}
                n += 1


def _extra_items(name: str, data: Path, limit: int | None):
    """The SummEdits domains and a per-source sample of the training pool (../shared/data/train/pool.jsonl), or the
    read probe files; each statement against its one document, as summaries are checked."""
    import random

    from citefix.models import Case, Source

    if name == "probes":
        recs = [json.loads(line) for f in READ_PROBES for line in open(ROOT / f, encoding="utf-8")]
        recs = [{"id": r["id"], "evidence": r["document"], "claim": r["summary"], "label": r["label"],
                 "domain": r.get("error_type")} for r in recs]
    else:
        pool = [json.loads(line) for line in open(data / "train" / "pool.jsonl", encoding="utf-8")]
        if name == "summedits":
            recs = [r for r in pool if r["source"] == "summedits"]
        else:
            rng = random.Random(13)
            recs = []
            for src, k in POOL_SAMPLE.items():
                mine = [r for r in pool if r["source"] == src]
                recs += rng.sample(mine, min(k, len(mine)))
            recs = [{**r, "domain": r["source"]} for r in recs]
    for n, r in enumerate(recs):
        if limit and n >= limit:
            return
        case = Case(id=str(r["id"]), sources=[Source(id="doc", text=r["evidence"])], text=r["claim"], kind="summary")
        yield {"id": case.id, "label": int(r["label"]), "case": case, "targets": None, "group": r.get("domain")}


# left out of the cache (large, and read by nothing downstream); the words found nowhere ("invented") stay, for
# features read from them after the pass (training/judge_variants.py "invented-kinds")
_DROP = {"evidence", "missing", "missing_words", "low_tokens", "misplaced", "structure"}


def _slim(f: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in f.items() if k not in _DROP}


def features(args) -> None:
    from citefix.decompose.clauses import ClauseDecomposer
    from citefix.models import Unit
    from citefix.verify.offline import OfflineVerifier

    CACHE.mkdir(parents=True, exist_ok=True)
    from citefix.verify.offline import load_params

    params = load_params()
    params.setdefault("entail", {})["always"] = True  # cache the entailment score too, whatever the packaged mix
    v = OfflineVerifier(params=params)
    dec = ClauseDecomposer()
    data = _data_dir(args.data_dir)
    for name in args.sets:
        if name == "planted" and not args.planted:
            continue
        t0 = time.time()
        rows = []
        kept: dict[str, dict[str, Any]] = {}
        source_pattern = re.compile(args.recompute_source) if args.recompute_source else None
        ids = set(Path(args.recompute_ids).read_text().split()) if args.recompute_ids else None
        if args.recompute_where or args.recompute_text or source_pattern or ids is not None:
            # only the cached items where the feature fired anywhere (or whose statement matches, or that the ids file
            # names) are computed again; the others are kept as cached
            pattern = re.compile(args.recompute_text) if args.recompute_text else None
            for r in json.loads((CACHE / f"{name}.json").read_text()):
                fired = bool(args.recompute_where) and any(f.get(args.recompute_where) for f in [r["whole"], *r["units"]])
                matches = pattern is not None and bool(pattern.search(str(r["whole"].get("unit_text") or "")))
                named = ids is not None and str(r["id"]) in ids
                if not (fired or matches or named):
                    kept[str(r["id"])] = r  # with a source pattern, dropped below where the sources match
        for it in _items(name, data, args.planted, None if name == "planted" else args.limit):
            if str(it["id"]) in kept and not (
                    source_pattern and any(source_pattern.search(x.text) for x in it["case"].sources)):
                rows.append(kept[str(it["id"])])
                continue
            kept.pop(str(it["id"]), None)
            case = it["case"]
            whole = Unit(id="u0", text=case.text, kind="sentence", decomposer="whole", start=0, end=len(case.text))
            units = [whole] + dec.units(case)
            tg = None if it["targets"] is None else [it["targets"]] * len(units)
            feats = v.features(units, case, targets=tg, tokens=True, keep_region=True)
            for u, f in zip(units, feats):
                if "region_text" in f:
                    f["unit_text"] = u.text  # the (unit, region) pair, for scoring another entailment model later
            rows.append({"id": it["id"], "label": it["label"], "group": it["group"],
                         "whole": _slim(feats[0]), "units": [_slim(f) for f in feats[1:]],
                         "roles": [(u.meta or {}).get("role") for u in units[1:]],
                         "spans": [[u.start, u.end] for u in units[1:]]})
            if len(rows) % 50 == 0:
                print(f"  {name}: {len(rows)} items, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
        (CACHE / f"{name}.json").write_text(json.dumps(rows))
        print(f"{name}: {len(rows)} items ({len(rows) - len(kept)} computed) in {time.time() - t0:.0f}s", flush=True)


def sentences(args) -> None:
    """Add to each cached item of a multi-sentence statement the features of its sentences, each judged as one unit
    against the sources as the whole statement is ("sentences"), and the sentence each cached unit was cut from
    ("unit_sentence"): what a unit would be read against if its context were its sentence rather than its text."""
    from citefix.decompose.clauses import ClauseDecomposer, _strip_marks
    from citefix.models import Unit
    from citefix.verify.offline import OfflineVerifier

    v = OfflineVerifier()
    dec = ClauseDecomposer()
    data = _data_dir(args.data_dir)
    for name in args.sets:
        path = CACHE / f"{name}.json"
        rows = {str(r["id"]): r for r in json.loads(path.read_text())}
        t0, done = time.time(), 0
        for it in _items(name, data, args.planted, None):
            r = rows.get(str(it["id"]))
            if r is None:
                continue
            case = it["case"]
            units = dec.units(case)
            if [u.text for u in units] != [f.get("unit_text") for f in r["units"]]:
                continue  # the decomposer cuts this text otherwise now: left without sentences
            doc = dec.nlp(_strip_marks(case.text).text)
            sents = [s for s in doc.sents if s.text.strip()]
            r["unit_sentence"] = [u.sentence for u in units]
            if len(sents) < 2:
                r["sentences"] = []
                continue
            su = [Unit(id=f"s{i}", text=s.text, kind="sentence", decomposer="sentence") for i, s in enumerate(sents)]
            tg = None if it["targets"] is None else [it["targets"]] * len(su)
            r["sentences"] = [_slim(f) for f in v.features(su, case, targets=tg, tokens=True)]
            done += 1
        path.write_text(json.dumps(list(rows.values())))
        print(f"{name}: sentences of {done} multi-sentence items in {time.time() - t0:.0f}s", flush=True)


def _verifier(overlay: dict[str, Any] | None):
    from citefix.verify.offline import OfflineVerifier, _overlay, load_params

    p = load_params()
    if overlay:
        _overlay(p, json.loads(json.dumps(overlay)))
    return OfflineVerifier(params=p)


def _item_scores(v, rows, signal: str, mode: str) -> np.ndarray:
    out = []
    for r in rows:
        fs = [r["whole"]] if mode == "whole" else (r["units"] or [r["whole"]])
        sc = [v.score(f, signal) for f in fs if "error" not in f]
        out.append((float(np.mean(sc)) if mode == "units-mean" else min(sc)) if sc else 0.5)
    return np.asarray(out, dtype=float)


def _agreement(name: str, scores: np.ndarray, labels: np.ndarray) -> float:
    if name == "wice":
        return one_vs_one(scores, labels)["mean"]
    return auc(scores, labels)


def _bacc(scores: np.ndarray, labels: np.ndarray, th: float) -> float:
    y = labels >= (2 if labels.max() == 2 else 1)
    pred = scores >= th
    tpr = (pred & y).sum() / max(1, y.sum())
    tnr = (~pred & ~y).sum() / max(1, (~y).sum())
    return float((tpr + tnr) / 2)


def evaluate(args) -> None:
    sets = {n: json.loads((CACHE / f"{n}.json").read_text()) for n in SETS if (CACHE / f"{n}.json").exists()}
    systems: dict[str, tuple[Any, str]] = {s: (_verifier(None), s) for s in SIGNALS}
    for name, ov in VARIANTS.items():
        if name == "logistic" and ov is not None:
            # the logistic combination as packaged before the local checks (no method key)
            systems[name] = (_verifier({"combined": {"method": None}, "profiles": {"cited_answer": {"combined": {"method": None}}}}), "combined")
        else:
            systems[name] = (_verifier(ov), "combined")
    for mode in ("whole", "units", "units-mean"):
        print(f"\n## {mode}: agreement (ROC-AUC; WiCE one-vs-one mean)\n")
        print("| system | " + " | ".join(sets) + " |")
        print("|---|" + "---|" * len(sets))
        table: dict[str, dict[str, np.ndarray]] = {}
        for sname, (v, sig) in systems.items():
            table[sname] = {n: _item_scores(v, rows, sig, mode) for n, rows in sets.items()}
            cells = []
            for n, rows in sets.items():
                labels = np.array([r["label"] for r in rows])
                cells.append(f"{_agreement(n, table[sname][n], labels):.3f}")
            print(f"| {sname} | " + " | ".join(cells) + " |")
        print(f"\n### {mode}: LODO thresholds (chosen on the other sets: best mean balanced accuracy) → held-out BAcc\n")
        print("| system | " + " | ".join(sets) + " | all sets |")
        print("|---|" + "---|" * (len(sets) + 1))
        grid = np.linspace(0.02, 0.98, 97)
        for sname in systems:
            cells = []
            for held in sets:
                others = [n for n in sets if n != held]
                best_t, best_b = 0.5, -1.0
                for t in grid:
                    b = np.mean([_bacc(table[sname][n], np.array([r["label"] for r in sets[n]]), t) for n in others])
                    if b > best_b:
                        best_t, best_b = t, b
                hb = _bacc(table[sname][held], np.array([r["label"] for r in sets[held]]), best_t)
                cells.append(f"{hb:.3f} @{best_t:.2f}")
            # the threshold to ship: the same rule over all sets
            all_t = max(grid, key=lambda t: np.mean([_bacc(table[sname][n], np.array([r["label"] for r in sets[n]]), t)
                                                     for n in sets]))
            cells.append(f"{all_t:.2f}")
            print(f"| {sname} | " + " | ".join(cells) + " |")
        if mode == "whole":
            _refit_table(sets)
        if "planted" in sets:
            rows = sets["planted"]
            groups = sorted({r["group"] for r in rows if r["group"]})
            print(f"\n### {mode}: planted suite, share flagged at the packaged threshold (score < supported)\n")
            print("| system | " + " | ".join(groups) + " |")
            print("|---|" + "---|" * len(groups))
            for sname, (v, sig) in systems.items():
                th = v.params["thresholds"].get(sig, v.params["thresholds"]["combined"])["supported"]
                sc = table[sname]["planted"]
                cells = []
                for g in groups:
                    m = np.array([r["group"] == g for r in rows])
                    cells.append(f"{float((sc[m] < th).mean()):.2f}")
                print(f"| {sname} | " + " | ".join(cells) + " |")


def _refit_table(sets: dict[str, list]) -> None:
    """A logistic combination of the three signals refitted on the other datasets (each weighted equally, the
    verifier's caps applied after), scored on the held-out one: the fitted alternative to the packaged geometric
    mean."""
    from sklearn.linear_model import LogisticRegression

    v = _verifier(None)

    def x(f: dict[str, Any]) -> list[float]:
        return [max(-10.0, f["lexical_log"]), f.get("local_alignment", f["alignment"]), f["similarity"]]

    def y(name: str, r: dict[str, Any]) -> int:
        return int(r["label"] >= (2 if name == "wice" else 1))

    cells = []
    for held in sets:
        xs, ys, ws = [], [], []
        for n, rows in sets.items():
            if n == held:
                continue
            ok = [r for r in rows if "error" not in r["whole"]]
            for r in ok:
                xs.append(x(r["whole"]))
                ys.append(y(n, r))
                ws.append(1.0 / len(ok))
        m = LogisticRegression(C=1.0).fit(np.array(xs), np.array(ys), sample_weight=np.array(ws) * len(ws))
        sc = []
        for r in sets[held]:
            f = r["whole"]
            s = float(1.0 / (1.0 + np.exp(-m.decision_function([x(f)])[0])))
            if v._capped(f):
                s = min(s, float(v.params["cap"]["score"]))
            sc.append(s)
        cells.append(f"{_agreement(held, np.array(sc), np.array([r['label'] for r in sets[held]])):.3f}")
    print("\n### whole: logistic combination refitted on the other datasets → held-out agreement\n")
    print("| system | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    print("| logistic (LODO refit) | " + " | ".join(cells) + " |")


def caps(args) -> None:
    """How often each hard check fires on items labelled supported / unsupported, per set (whole text and units):
    the share of each, and how many items."""
    from citefix.verify.offline_signals import POLARITY_READINGS

    names = [n for n in SETS + EXTRA_SETS if n != "pool"]  # the pool is training data only
    sets = {n: json.loads((CACHE / f"{n}.json").read_text()) for n in names if (CACHE / f"{n}.json").exists()}
    need = int(_verifier(None).params["cap"].get("invented_words") or 0)
    checks = ("missing_numbers", "missing_dates", "missing_entities", "value_conflict", "polarity_mismatch",
              *POLARITY_READINGS, "role_swap", "name_substitution", "invented_words", "misplaced_numbers",
              "misplaced_dates", "misplaced_entities")
    for mode in ("whole", "units"):
        print(f"\n## {mode}: share (and number) of supported / unsupported items on which the check fires\n")
        print("| check | " + " | ".join(sets) + " |")
        print("|---|" + "---|" * len(sets))
        for c in checks:
            cells = []
            for n, rows in sets.items():
                pos, neg = [], []
                for r in rows:
                    fs = [r["whole"]] if mode == "whole" else (r["units"] or [r["whole"]])
                    fire = any(_fires(f, c, need) for f in fs if "error" not in f)
                    (pos if r["label"] >= (2 if n == "wice" else 1) else neg).append(fire)
                cells.append(f"{np.mean(pos):.2f} ({sum(pos)}) / {np.mean(neg):.2f} ({sum(neg)})")
            print(f"| {c} | " + " | ".join(cells) + " |")


def plateau(args) -> None:
    """Balanced accuracy of the packaged combination at each supported threshold in a band, per set and on average
    (the quantity the LODO rule maximises), for whole texts and atomic units: how flat the choice is."""
    sets = {n: json.loads((CACHE / f"{n}.json").read_text()) for n in SETS if (CACHE / f"{n}.json").exists()}
    v = _verifier(None)
    for mode in ("whole", "units"):
        print(f"\n## {mode}: balanced accuracy by threshold\n")
        print("| threshold | " + " | ".join(sets) + " | mean |")
        print("|---|" + "---|" * (len(sets) + 1))
        sc = {n: _item_scores(v, rows, "combined", mode) for n, rows in sets.items()}
        for t in np.arange(0.17, 0.47, 0.04):
            b = [_bacc(sc[n], np.array([r["label"] for r in sets[n]]), float(t)) for n in sets]
            print(f"| {t:.2f} | " + " | ".join(f"{x:.3f}" for x in b) + f" | {np.mean(b):.3f} |")


def simplex(args) -> None:
    """Is there any weighted geometric mean of the three signals (weights on a 1/12 grid of the simplex, the packaged
    caps applied) whose whole-text agreement reaches the best single signal on every set? Chosen *in-sample*, the most
    favourable case for the "≥ best single signal on every held-out fold" goal: if no weighting gets there in-sample,
    none will out of sample."""
    sets = {n: json.loads((CACHE / f"{n}.json").read_text()) for n in SETS if (CACHE / f"{n}.json").exists()}
    v = _verifier(None)
    cap = float(v.params["cap"]["score"])
    data, best = {}, {}
    for n, rows in sets.items():
        fs = [r["whole"] for r in rows if "error" not in r["whole"]]
        lab = np.array([r["label"] for r in rows if "error" not in r["whole"]])
        sig = {k: np.array([v.score(f, k) for f in fs]) for k in ("lexical", "alignment", "similarity")}
        best[n] = max(_agreement(n, sig[k], lab) for k in sig)
        local = np.array([f.get("local_alignment", f["alignment"]) for f in fs])  # what the mean uses
        data[n] = (np.log(np.maximum(sig["lexical"], 1e-6)), np.log(np.maximum(local, 1e-6)),
                   np.log(np.maximum(sig["similarity"], 1e-6)), np.array([v._capped(f) for f in fs]), lab)
    print("best single signal: " + ", ".join(f"{n} {b:.3f}" for n, b in best.items()))
    found = []
    for i in range(13):
        for j in range(13 - i):
            w = (i / 12, j / 12, (12 - i - j) / 12)
            row = {}
            for n, (lx, al, sm, capped, lab) in data.items():
                s = np.exp(w[0] * lx + w[1] * al + w[2] * sm)
                row[n] = _agreement(n, np.where(capped, np.minimum(s, cap), s), lab)
            found.append((min(row[n] - best[n] for n in row), w, row))
    found.sort(key=lambda x: -x[0])
    print("\n| weights lexical / alignment / similarity | worst margin | " + " | ".join(sets) + " |")
    print("|---|---|" + "---|" * len(sets))
    for m, w, row in found[:5]:
        print(f"| {w[0]:.3f} / {w[1]:.3f} / {w[2]:.3f} | {m:+.3f} | " + " | ".join(f"{row[n]:.3f}" for n in sets) + " |")


def _fires(f: dict[str, Any], check: str, need: int) -> bool:
    """Whether one check fires on one unit's features: invented words as the verifier applies them (atomic units,
    at least the packaged count), every other check at 1 or more."""
    if check == "invented_words":
        return bool(need) and bool(f.get("atomic")) and f.get(check, 0) >= need
    return f.get(check, 0) >= 1


def paired(args) -> None:
    """The shipped combination against one signal on one set: the difference of their ROC-AUCs with a paired bootstrap
    over the set's groups (a cited answer's sentences are not independent: resampled by answer)."""
    from citefix.metaeval.statbase import bootstrap_ci

    rows = json.loads((CACHE / f"{args.set}.json").read_text())
    v = _verifier(None)
    y = np.array([r["label"] for r in rows])
    a, b = _item_scores(v, rows, "combined", "whole"), _item_scores(v, rows, args.signal, "whole")
    groups = np.array([str(r["id"]).split("#")[0] for r in rows])
    members = [np.where(groups == g)[0] for g in np.unique(groups)]

    def diff(pick: np.ndarray) -> float | None:
        i = np.concatenate([members[k] for k in pick])
        return auc(a[i], y[i]) - auc(b[i], y[i]) if len(set(y[i])) == 2 else None

    lo, hi, _, valid = bootstrap_ci(diff, len(members), resamples=args.resamples)
    d = diff(np.arange(len(members)))
    print(f"{args.set}: shipped {auc(a, y):.4f}, {args.signal} {auc(b, y):.4f}, difference {d:+.4f} "
          f"[{lo:+.3f}, {hi:+.3f}] ({valid} resamples of {len(members)} groups)")


def antonym_ids(args) -> None:
    """The ids of the cached items where the antonym check's reading across parts of speech could fire: some unit (or
    the whole statement) holds a noun or verb of the antonym table whose antonym a word of its evidence region says,
    one of the two a noun (citefix.verify.relations.cross_flip asks more: the same thing, no negation). A superset,
    for `features --recompute-ids`: computing these again is computing every item where the reading can change."""
    from citefix.nlp import load_spacy
    from citefix.verify.relations import antonyms, verb_forms

    nlp, table, memo = load_spacy(), antonyms()["verb"], {}

    def forms(text: str) -> list[tuple[str, frozenset[str]]]:
        if text not in memo:
            memo[text] = [(t.pos_, f) for t in nlp(text) if (f := verb_forms(t))]
        return memo[text]

    ids = []
    for path in sorted(CACHE.glob("*.json")):
        for r in json.loads(path.read_text()):
            for f in [r["whole"], *r["units"]]:
                if not f.get("unit_text") or not f.get("region_text"):
                    continue
                theirs = forms(f["region_text"])
                if any(fr & frozenset().union(*(table.get(x, ()) for x in fu)) and "NOUN" in (pu, pr)
                       for pu, fu in forms(f["unit_text"]) for pr, fr in theirs):
                    ids.append(str(r["id"]))
                    break
    Path(args.out).write_text("".join(i + "\n" for i in ids))
    print(f"{len(ids)} items written to {args.out}")


def main() -> None:
    global CACHE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=None, help="where the features are cached (default out/lodo); one folder per "
                    "sample size, e.g. out/lodo_full for the whole dev sets")
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("features")
    f.add_argument("--limit", type=int, default=None)
    f.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS + EXTRA_SETS))
    f.add_argument("--planted", default=None, help="a planted-error suite (training/make_planted.py)")
    f.add_argument("--data-dir", default=None, help="the shared data folder (default ../shared/data)")
    f.add_argument("--recompute-where", default=None, metavar="FEATURE",
                   help="compute again only the cached items where FEATURE fired (a change that can only silence it)")
    f.add_argument("--recompute-text", default=None, metavar="REGEX",
                   help="compute again only the cached items whose statement matches REGEX (a change that can only "
                        "touch such statements, e.g. how the decomposer cuts a range)")
    f.add_argument("--recompute-source", default=None, metavar="REGEX",
                   help="compute again only the cached items whose sources match REGEX (a change to how the sources "
                        "are read, e.g. numbers said in words)")
    f.add_argument("--recompute-ids", default=None, metavar="FILE",
                   help="compute again only the cached items whose ids FILE lists, one a line (those a screen of the "
                        "cached units and regions found a change could touch)")
    se = sub.add_parser("sentences", help="add each multi-sentence item's sentences, judged as units, to the cache")
    se.add_argument("--sets", nargs="+", default=["summeval"], choices=list(SETS + EXTRA_SETS))
    se.add_argument("--planted", default=None)
    se.add_argument("--data-dir", default=None)
    sub.add_parser("eval")
    ai = sub.add_parser("antonym-ids", help="the cached items where the antonym check's reading across parts of "
                        "speech could fire, for features --recompute-ids")
    ai.add_argument("--out", required=True)
    sub.add_parser("caps", help="how often each hard check fires on supported / unsupported items")
    sub.add_parser("plateau", help="balanced accuracy by supported threshold (how flat the LODO choice is)")
    sub.add_parser("simplex", help="can any weighting of the three signals beat the best single one on every set?")
    pp = sub.add_parser("paired", help="shipped vs one signal on one set: AUC difference, paired bootstrap by group")
    pp.add_argument("--set", default="attributionbench", choices=[s for s in SETS if s != "wice"])
    pp.add_argument("--signal", default="similarity", choices=["lexical", "alignment", "similarity"])
    pp.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args()
    if args.cache:
        CACHE = Path(args.cache)
    {"features": features, "sentences": sentences, "eval": evaluate, "caps": caps, "plateau": plateau, "simplex": simplex,
     "paired": paired, "antonym-ids": antonym_ids}[args.cmd](args)


if __name__ == "__main__":
    main()
