"""citefix's entailment model trained on human-labelled pairs, leave one dataset out: does a 4th signal make the offline
verifier's geometric mean reach the best single signal on every held-out set?

Three steps:
  pairs  run the offline verifier over EVERY item of the four human development files (XSumFaith val, SummEval,
         WiCE dev, AttributionBench dev as cited answers: bench/lodo.py's items) and the planted sample, and write, per
         item, the pair the verifier gives the entailment model in whole-text mode — the statement and the evidence
         region the verifier picks for it (the `_region_text` of citefix.verify.offline_signals) — with its label,
         to out/entail_lodo/pairs.jsonl.
  train  per held-out set H, train an entailment model (citefix.verify.entail's head on the packaged MiniLM, the
         same recipe as bench/train_entail.py) on the synthetic pairs (out/entail_pairs.jsonl) and the human pairs of
         the OTHER sets, then score H's items of the LODO cache (out/lodo/H.json) with that model only:
         out/entail_lodo/scores/H.json. What a fold's model never sees:
           * any item of H (and for the WiCE and AttributionBench folds also the synthetic pairs built on H's
             pages: bench/make_entail_pairs.py drew its articles from those two dev files);
           * for the planted fold (trained on all four human sets), the human items whose document is the document
             of a planted item (the planted suite is built on XSumFaith and SummEval documents).
         `--fold all` trains on every human pair (no held-out figure; the model one would ship), saved under out/.
  eval   from the LODO cache with the entail feature replaced by the fold model's score: held-out ROC-AUC (WiCE:
         mean one-vs-one AUC over full / partial / none) of each single signal, the packaged combination, entail
         alone, the geometric mean with entail as a 4th signal (local4) and at half weight (local4h).

Labels: XSumFaith, SummEval, AttributionBench binary as bench/lodo.py reads them; WiCE full = 1, none = 0 and partial =
0.5 (a soft target: the WiCE score is the one-vs-one ranking of the three levels, so partial belongs between).
Pairs are whole statements (a summary is ONE pair, its evidence the regions of its sentences joined), the same pair
the verifier scores in whole-text mode, so the whole-summary label is the pair's own label, not a noisy guess at one
sentence's.

Run:  nice -n 10 .venv/bin/python bench/entail_lodo.py pairs [--data-dir ../shared/data] [--planted out/planted_sample2.jsonl]
      nice -n 10 .venv/bin/python bench/entail_lodo.py train --folds summeval attributionbench planted xsumfaith wice \
          --max-length 384 --synthetic-limit 3000 --threads 1
      nice -n 10 .venv/bin/python bench/entail_lodo.py eval
      nice -n 10 .venv/bin/python bench/entail_lodo.py insample   # fit on the training sets (not held-out)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
OUT = ROOT / "out" / "entail_lodo"
HUMAN = ("xsumfaith", "summeval", "wice", "attributionbench")

import lodo  # noqa: E402
from train_entail import optimizer_step  # noqa: E402


def _doc_key(case) -> str:
    return hashlib.sha256("\n\n".join(s.text for s in case.sources).encode("utf-8")).hexdigest()[:16]


def _region_verifier():
    """The offline verifier with the packaged parameters, keeping each unit's evidence region text in its features."""
    from citefix.verify.offline import OfflineVerifier, load_params

    class RegionVerifier(OfflineVerifier):
        def _unit_features(self, *a, **kw):
            f = super()._unit_features(*a, **kw)
            f["region_text"] = f.get("_region_text", "")
            return f

    return RegionVerifier(params=load_params())


def pairs(args) -> None:
    from citefix.models import Unit

    v = _region_verifier()
    data = lodo._data_dir(args.data_dir)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "pairs.jsonl"
    done = set()
    if path.exists():
        done = {(r["set"], r["id"]) for r in map(json.loads, open(path, encoding="utf-8"))}
    with open(path, "a", encoding="utf-8") as fh:
        for name in args.sets:
            t0, n = time.time(), 0
            for it in lodo._items(name, data, args.planted, None):
                if (name, it["id"]) in done:
                    continue
                case = it["case"]
                whole = Unit(id="u0", text=case.text, kind="sentence", decomposer="whole", start=0, end=len(case.text))
                f = v.features([whole], case, targets=None if it["targets"] is None else [it["targets"]], tokens=True,
                               entail=False)[0]
                if "error" in f:
                    continue
                fh.write(json.dumps({"set": name, "id": it["id"], "label": it["label"], "doc": _doc_key(case),
                                     "statement": case.text, "evidence": f["region_text"],
                                     "local_alignment": round(f["local_alignment"], 6)}) + "\n")
                fh.flush()
                n += 1
                if n % 50 == 0:
                    print(f"  {name}: {n} items, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
            print(f"{name}: {n} new pairs in {time.time() - t0:.0f}s", flush=True)


def _target(name: str, label: int) -> float:
    if name == "wice":
        return {2: 1.0, 1: 0.5, 0: 0.0}[int(label)]
    return float(label >= 1)


def _training_rows(fold: str, synth: list[dict], human: list[dict], share: float) -> list[dict]:
    """The fold's training rows with their loss weights: each source (the synthetic pairs, each human set) classes
    balanced inside it; the human sets together carry `share` of the loss, each of them the same part of it."""
    planted_docs = {r["doc"] for r in human if r["set"] == "planted"}
    syn = [r for r in synth if fold not in ("wice", "attributionbench") or not r["article_id"].startswith(fold + "-")]
    sets = [s for s in HUMAN if s != fold]
    hum = [r for r in human if r["set"] in sets and not (fold == "planted" and r["doc"] in planted_docs)]
    out: list[dict] = []

    def add(rows: list[dict], total: float, src: str) -> None:
        ys = [r["y"] for r in rows]
        pos = sum(ys)
        neg = len(ys) - pos
        for r, y in zip(rows, ys):
            # soft targets (WiCE partial) count half to each class
            w = total / 2 * (y / max(pos, 1e-9) + (1 - y) / max(neg, 1e-9))
            out.append({**r, "w": w, "src": src})

    syn = [{**r, "y": float(r["label"])} for r in syn]
    add(syn, (1 - share) * len(syn), "synthetic")
    for s in sets:
        rows = [{**r, "y": _target(s, r["label"])} for r in hum if r["set"] == s]
        add(rows, share * len(syn) / len(sets), s)
    return out


def _encode_all(rows: list[dict], tok, model, split: int, max_length: int, cache: dict) -> None:
    """The frozen lower layers' output of every pair not yet cached (keyed by statement and evidence), in fp16."""
    from citefix.verify.entail import lower_layers

    todo = sorted({(r["statement"], r["evidence"]) for r in rows} - cache.keys(), key=lambda p: len(p[0]) + len(p[1]))
    t0 = time.time()
    for k in range(0, len(todo), 64):
        batch = todo[k : k + 64]
        h, mask, stmt = lower_layers(tok, model, split, batch, max_length)
        for j, p in enumerate(batch):
            n = int(mask[j].sum())
            cache[p] = (h[j, :n].half().clone(), stmt[j, :n].clone())
    print(f"  lower {split} layers of {len(todo)} new pairs in {time.time() - t0:.0f}s", flush=True)


def _collate(rows: list[dict], cache: dict):
    import torch

    items = [cache[(r["statement"], r["evidence"])] for r in rows]
    n = max(h.shape[0] for h, _ in items)
    h = torch.zeros(len(items), n, items[0][0].shape[1])
    mask = torch.zeros(len(items), n, dtype=torch.long)
    stmt = torch.zeros(len(items), n, dtype=torch.bool)
    for j, (hj, sj) in enumerate(items):
        h[j, : hj.shape[0]] = hj.float()
        mask[j, : hj.shape[0]] = 1
        stmt[j, : sj.shape[0]] = sj
    y = torch.tensor([r["y"] for r in rows], dtype=torch.float32)
    w = torch.tensor([r["w"] for r in rows], dtype=torch.float32)
    return h, mask, stmt, y, w


def _fit(rows: list[dict], model, cache: dict, args):
    """Train a fresh head (the base model's top layers and a one-logit head) on the fold's rows: weighted BCE,
    AdamW, warm-up then linear decay, length-bucketed batches in shuffled order (bench/train_entail.py's recipe)."""
    import torch

    from citefix.verify.entail import EntailHead

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    rows = sorted(rows, key=lambda r: len(r["statement"]) + len(r["evidence"]))
    batches = [rows[i : i + args.batch] for i in range(0, len(rows), args.batch)]
    head = EntailHead.from_base(model, args.layers)
    params = [p for p in head.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * len(batches)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) * max(0.0, 1 - s / steps))
    mean_w = float(np.mean([r["w"] for r in rows]))
    head.train()
    for ep in range(args.epochs):
        rng.shuffle(batches)
        tot, t1 = 0.0, time.time()
        for b in batches:
            h, mask, stmt, y, w = _collate(b, cache)
            logit = head(h, mask, stmt)
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(logit, y, reduction="none") * w).sum() / (
                mean_w * len(b))
            tot += optimizer_step(loss, opt, sched, params)
        print(f"  epoch {ep + 1}: loss {tot / len(batches):.4f} ({time.time() - t1:.0f}s)", flush=True)
    head.eval()
    return head


def train(args) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    from citefix.encoder import MINILM_SHA256, packaged_minilm_dir
    from citefix.verify.entail import load_entail, save_delta

    torch.set_num_threads(args.threads)
    synth = [json.loads(x) for x in open(args.synthetic, encoding="utf-8")]
    if args.synthetic_limit and args.synthetic_limit < len(synth):
        # one fixed random subset for every fold (then each fold drops what it must): CPU time
        synth = random.Random(args.seed).sample(synth, args.synthetic_limit)
    human = [json.loads(x) for x in open(OUT / "pairs.jsonl", encoding="utf-8")]
    base_dir = packaged_minilm_dir()
    tok = AutoTokenizer.from_pretrained(str(base_dir))
    model = AutoModel.from_pretrained(str(base_dir))
    model.eval()
    split = len(model.encoder.layer) - args.layers
    cache: dict = {}
    for fold in args.folds:
        t0 = time.time()
        rows = _training_rows(fold, synth, human, args.human_share)
        counts = {s: sum(1 for r in rows if r["src"] == s) for s in dict.fromkeys(r["src"] for r in rows)}
        print(f"fold {fold}: training rows {counts}", flush=True)
        _encode_all(rows, tok, model, split, args.max_length, cache)
        head = _fit(rows, model, cache, args)
        folder = OUT / "models" / fold
        prov = {"fold": fold, "held_out": fold, "rows": counts, "human_share": args.human_share,
                "epochs": args.epochs, "lr": args.lr, "batch": args.batch, "seed": args.seed,
                "command": f"bench/entail_lodo.py train --folds {fold} --layers {args.layers} --epochs {args.epochs} "
                           f"--max-length {args.max_length} --human-share {args.human_share} "
                           f"--synthetic-limit {args.synthetic_limit}"}
        path = save_delta(head, folder, base_sha256=MINILM_SHA256, max_length=args.max_length, provenance=prov)
        minutes = (time.time() - t0) / 60
        print(f"fold {fold}: trained in {minutes:.1f} min; {path} {path.stat().st_size / 1e6:.1f} MB", flush=True)
        if fold == "all":
            continue
        # the held-out items of the LODO cache, scored by this fold's model only (loaded back from its files)
        ent = load_entail(folder)
        ids = {r["id"] for r in json.loads((lodo.CACHE / f"{fold}.json").read_text())}
        test = [r for r in human if r["set"] == fold and r["id"] in ids]
        scores = ent.score([(r["statement"], r["evidence"]) for r in test])
        (OUT / "scores").mkdir(parents=True, exist_ok=True)
        (OUT / "scores" / f"{fold}.json").write_text(json.dumps(
            {"model": str(folder.relative_to(ROOT)), "train_minutes": round(minutes, 2),
             "scores": {r["id"]: round(s, 6) for r, s in zip(test, scores)}}, indent=0))
        print(f"fold {fold}: scored {len(test)} of {len(ids)} held-out items", flush=True)


def evaluate(args) -> None:
    systems: dict[str, tuple[Any, str]] = {s: (lodo._verifier(None), s) for s in ("lexical", "alignment", "similarity")}
    systems["packaged"] = (lodo._verifier(None), "combined")
    systems["entail (fold model)"] = (lodo._verifier(None), "entail")
    systems["local4 (fold model)"] = (lodo._verifier(lodo.VARIANTS["local4"]), "combined")
    systems["local4h (fold model)"] = (lodo._verifier(lodo.VARIANTS["local4h"]), "combined")
    shipped = {"entail (shipped, synthetic only)": (lodo._verifier(None), "entail"),
               "local4 (shipped entail)": (lodo._verifier(lodo.VARIANTS["local4"]), "combined")}
    systems.update(shipped)
    table: dict[str, dict[str, float]] = {s: {} for s in systems}
    best: dict[str, float] = {}
    best_sig: dict[str, str] = {}
    lab: dict[str, np.ndarray] = {}
    sc: dict[tuple[str, str], np.ndarray] = {}
    for name in lodo.SETS:
        sp = OUT / "scores" / f"{name}.json"
        if not sp.exists() or not (lodo.CACHE / f"{name}.json").exists():
            continue
        scores = json.loads(sp.read_text())["scores"]
        rows = json.loads((lodo.CACHE / f"{name}.json").read_text())
        missing = [r["id"] for r in rows if "error" not in r["whole"] and r["id"] not in scores]
        if missing:
            raise SystemExit(f"{sp}: no fold-model score for {len(missing)} items (e.g. {missing[0]}); "
                             "fix: rerun bench/entail_lodo.py pairs and train")
        labels = np.array([r["label"] for r in rows])
        lab[name] = labels
        for sname, (v, sig) in shipped.items():  # the cache's entail: the shipped synthetic-only model
            table[sname][name] = lodo._agreement(name, lodo._item_scores(v, rows, sig, "whole"), labels)
        rows = [{**r, "whole": {**r["whole"], "entail": scores.get(r["id"], 0.5)}} for r in rows]
        for sname, (v, sig) in systems.items():
            if sname not in shipped:
                sc[(sname, name)] = lodo._item_scores(v, rows, sig, "whole")
                table[sname][name] = lodo._agreement(name, sc[(sname, name)], labels)
        best[name] = max(table[s][name] for s in ("lexical", "alignment", "similarity"))
        best_sig[name] = max(("lexical", "alignment", "similarity"), key=lambda s: table[s][name])
    sets = list(best)
    print("## whole: held-out agreement (ROC-AUC; WiCE one-vs-one mean), entail from each fold's own model\n")
    print("| system | " + " | ".join(sets) + " | worst margin to best single |")
    print("|---|" + "---|" * (len(sets) + 1))
    for sname in systems:
        margin = min(table[sname][n] - best[n] for n in sets)
        print(f"| {sname} | " + " | ".join(f"{table[sname][n]:.3f}" for n in sets) + f" | {margin:+.3f} |")
    print("| best single signal | " + " | ".join(f"{best[n]:.3f}" for n in sets) + " | |")
    _bootstrap(sets, sc, lab, best_sig, ["packaged", "local4 (fold model)", "local4h (fold model)"])


def _bootstrap(sets: list[str], sc: dict, lab: dict, best_sig: dict, names: list[str], n: int = 1000) -> None:
    """Paired bootstrap over items (seed 0): the 90% interval of AUC(system) − AUC(the set's best single signal)."""
    rng = np.random.default_rng(0)
    print(f"\n### paired bootstrap ({n} resamples): 5th–95th percentile of system − best single signal\n")
    print("| system | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    idx = {s: [rng.integers(0, len(lab[s]), len(lab[s])) for _ in range(n)] for s in sets}
    for name in names:
        cells = []
        for s in sets:
            d = [lodo._agreement(s, sc[(name, s)][i], lab[s][i]) - lodo._agreement(s, sc[(best_sig[s], s)][i], lab[s][i])
                 for i in idx[s] if len(set(lab[s][i].tolist())) == len(set(lab[s].tolist()))]
            cells.append(f"{np.percentile(d, 5):+.3f} … {np.percentile(d, 95):+.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def insample(args) -> None:
    """A diagnostic, not a held-out figure: each fold model's ROC-AUC on the LODO samples of the sets it WAS trained
    on (did it fit the human labels at all?)."""
    from citefix.verify.entail import load_entail

    human = {(r["set"], r["id"]): r for r in map(json.loads, open(OUT / "pairs.jsonl", encoding="utf-8"))}
    print("| model (held-out set) | " + " | ".join(HUMAN) + " |")
    print("|---|" + "---|" * len(HUMAN))
    for fold in args.folds:
        ent = load_entail(OUT / "models" / fold)
        cells = []
        for name in HUMAN:
            rows = [human[(name, r["id"])] for r in json.loads((lodo.CACHE / f"{name}.json").read_text())
                    if (name, r["id"]) in human]
            sc = np.array(ent.score([(r["statement"], r["evidence"]) for r in rows]))
            a = lodo._agreement(name, sc, np.array([r["label"] for r in rows]))
            cells.append(f"({a:.3f})" if name == fold else f"{a:.3f}")
        print(f"| {fold} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pairs")
    p.add_argument("--sets", nargs="+", default=["summeval", "attributionbench", "xsumfaith", "wice", "planted"])
    p.add_argument("--data-dir", default=None, help="the shared data folder (default ../shared/data)")
    p.add_argument("--planted", default=str(ROOT / "out" / "planted_sample2.jsonl"))
    t = sub.add_parser("train")
    t.add_argument("--folds", nargs="+", default=["summeval", "attributionbench", "planted", "xsumfaith", "wice"])
    t.add_argument("--synthetic", default=str(ROOT / "out" / "entail_pairs.jsonl"))
    t.add_argument("--synthetic-limit", type=int, default=3000, help="a random subset of the synthetic pairs")
    t.add_argument("--layers", type=int, default=3)
    t.add_argument("--epochs", type=int, default=2)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=1e-4)
    t.add_argument("--max-length", type=int, default=384)
    t.add_argument("--human-share", type=float, default=0.5, help="the human pairs' part of the loss")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1)
    sub.add_parser("eval")
    i = sub.add_parser("insample", help="each fold model on the sets it was trained on (a fit diagnostic)")
    i.add_argument("--folds", nargs="+", default=["summeval", "attributionbench", "planted", "xsumfaith", "wice"])
    args = ap.parse_args()
    {"pairs": pairs, "train": train, "eval": evaluate, "insample": insample}[args.cmd](args)


if __name__ == "__main__":
    main()
