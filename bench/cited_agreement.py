"""Agreement of stored cited-answer verdicts with human sentence labels (AttributionBench grouped answers).

Reads the runs of `citefix check ab_grouped_answers_*.jsonl --db DB` from the store alone: for every answer, each
sentence listed in the case's metadata `human.labelled_sentences` is matched to the evaluated sentence with the same
text (citation marks removed, whitespace collapsed; containment either way as a fallback), and its scores are compared
with the human `attributable` label:

* ALCE: the whole sentence judged against its cited passages (the sentence unit's own verdict);
* ALiiCE: the least supported of the sentence's claims (a sentence is attributable when all its claims are).

Prints ROC-AUC (with a bootstrap 95% interval) and balanced accuracy at the verifier's threshold.

    python -m bench.cited_agreement --db /tmp/ab.db
"""

from __future__ import annotations

import argparse
import re
import sys

_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    from citefix.marks import parse_citations

    clean = " ".join(s.clean for s in parse_citations(text).sentences)
    return _WS.sub(" ", clean).strip().lower()


def collect(db: str):
    from citefix.store import Store

    store = Store(db)
    runs = store.list_runs(command="check", limit=1_000_000)
    rows, unmatched, answers = [], 0, 0
    for run in sorted(runs, key=lambda r: r.id):
        if run.kind != "cited_answer" or not store.rounds(run.id):
            continue
        case = store.case_for_run(run.id)
        labelled = ((case.metadata.get("human") or {}).get("labelled_sentences")) or []
        if not labelled:
            continue
        answers += 1
        ev = store.evaluation(run.id, 0)
        m = ev.metrics.get("citations") or {}
        sents = m.get("sentences") or []
        alce = {r["unit_id"]: r for r in m.get("alce_sentences") or []}
        claims = {r["unit_id"]: r for r in m.get("groups") or []}
        keyed = [(_WS.sub(" ", s["clean"]).strip().lower(), s) for s in sents]
        for lab in labelled:
            key = norm(lab["text"])
            hit = next((s for k, s in keyed if k == key), None)
            if hit is None:
                hit = next((s for k, s in keyed if k and (k in key or key in k)), None)
            if hit is None or not hit.get("alce"):
                unmatched += 1
                continue
            a = alce.get(hit["alce"]) or {}
            cl = [claims[u] for u in hit.get("claims") or [] if u in claims]
            cl_scores = [0.0 if c.get("missing") else c.get("score") for c in cl]
            rows.append({
                "case": case.id, "label": int(lab["attributable"]),
                "alce": 0.0 if a.get("missing") else a.get("score"),
                "aliice": min(cl_scores) if cl_scores and None not in cl_scores else None,
                "threshold": m.get("threshold", 0.5),
            })
    return rows, unmatched, answers


def main(argv=None) -> int:
    import numpy as np

    from citefix.metaeval.protocols import balanced_accuracy, roc_auc

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args(argv)
    rows, unmatched, answers = collect(args.db)
    if not rows:
        print("no labelled sentences matched in the stored runs", file=sys.stderr)
        return 1
    pos = sum(r["label"] for r in rows)
    print(f"answers with labels: {answers}   labelled sentences matched: {len(rows)} "
          f"(attributable {pos}, not {len(rows) - pos})   unmatched: {unmatched}")
    for name in ("alce", "aliice"):
        sc = [r[name] for r in rows]
        auc = roc_auc(sc, [r["label"] for r in rows], bootstrap=args.bootstrap, seed=0)
        keep = [(s, r["label"]) for s, r in zip(sc, rows) if s is not None]
        th = rows[0]["threshold"]
        bacc = balanced_accuracy(np.array([s for s, _ in keep]), np.array([y for _, y in keep]), th)
        ci = f" [{auc.ci_low:.3f}, {auc.ci_high:.3f}]" if getattr(auc, "ci_low", None) is not None else ""
        what = "whole sentence vs its passages" if name == "alce" else "least supported claim of the sentence"
        print(f"{name:>6} ({what}): ROC-AUC {auc.value:.3f}{ci}   balanced accuracy at {th:.2f}: "
              f"{bacc:.3f}   n={auc.n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
