"""How well the offline reviser corrects planted errors (the correction table).

Reads a planted-error suite (training/make_planted.py), runs one offline revision round on each statement (atomic units,
offline verifier, ACU feedback, offline reviser: corrections first, deletions after) and reports per error type:

* fixed — the revision holds the source's value (the record's `source_value`; for negations and role swaps, the
  revision equals the original statement up to case and spacing) and no longer holds the planted words;
* supported — the revision's offline re-check has no unit below the supported threshold;
* words changed per fix (word-level diff size), and deletions (the reviser cut instead of correcting);
* faithful statements changed (should be 0) and words introduced that are in neither the text nor the source (0).

Usage:  .venv/bin/python -m bench.correct_planted out/planted_dev.jsonl [--limit-per-type 40] [--out out/correct.json]
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TYPES = ("number", "date", "entity_swap", "negation", "role_swap", "invented_attribute", "unsupported_addition", "none")


def _words(s: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+(?:[.,][0-9]+)?", s.lower())


def _norm(s: str) -> str:
    return " ".join(_words(s))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite")
    ap.add_argument("--limit-per-type", type=int, default=40)
    ap.add_argument("--out", default=None)
    ap.add_argument("--ids", nargs="+", default=None, help="only the statements whose id ends with one of these")
    args = ap.parse_args()

    from citefix.decompose.clauses import ClauseDecomposer
    from citefix.evaluate import evaluate
    from citefix.models import Case, Source
    from citefix.revision.feedback import build_strategy
    from citefix.revision.offline import OfflineReviser
    from citefix.verify.offline import OfflineVerifier

    dec, ver, rev, strategy = ClauseDecomposer(), OfflineVerifier(), OfflineReviser(), build_strategy("acu")
    th = ver.params["thresholds"]["combined"]["supported"]
    recs = [json.loads(x) for x in Path(args.suite).read_text().splitlines() if x.strip()]
    per: dict[str, list] = collections.defaultdict(list)
    for r in recs:
        if args.ids and not any(str(r["id"]).endswith(i) for i in args.ids):
            continue
        if len(per[r["error_type"]]) < args.limit_per_type:
            per[r["error_type"]].append(r)
    rows = []
    t0 = time.time()
    for typ in TYPES:
        for r in per.get(typ, []):
            case = Case(id=r["id"], sources=[Source(id="1", text=r["document"])], text=r["summary"])
            ev = evaluate(case, decomposer=dec, verifier=ver)
            fb = strategy.feedback(case, ev)
            out = rev.revise(case, fb, ev)
            new = out.text if out.text is not None else r["summary"]
            changed = _norm(new) != _norm(r["summary"])
            known = set(_words(r["summary"])) | set(_words(r["document"]))
            introduced = sorted(set(_words(new)) - known)
            kinds = collections.Counter(e.get("kind", "?") for e in (out.edits or []))
            planted = [h["text"] for h in r.get("hallucination_spans") or []]
            if typ in ("negation", "role_swap"):
                fixed = _norm(new) == _norm(r["original"])
            elif r.get("source_value"):
                fixed = _norm(r["source_value"]) in _norm(new) and not any(
                    p and _norm(p) not in _norm(r["original"]) and _norm(p) in _norm(new) for p in planted)
            else:
                fixed = False
            supported = None
            if changed:
                ev2 = evaluate(Case(id=r["id"] + "-r", sources=case.sources, text=new), decomposer=dec, verifier=ver)
                supported = all(v.score >= th for v in ev2.verdicts) if ev2.verdicts else True
            sm = difflib.SequenceMatcher(a=_words(r["summary"]), b=_words(new))
            words_changed = sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal")
            rows.append({"id": r["id"], "type": typ, "changed": changed, "fixed": fixed, "supported": supported,
                         "words_changed": words_changed, "introduced": introduced, "edits": dict(kinds),
                         "before": r["summary"], "after": new})
        print(f"  {typ}: {len(per.get(typ, []))} statements, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)

    print("\n| type | n | fixed with the source's value | revision supported | words changed per fix | "
          "with a correction | with a deletion | changed | words introduced |")
    print("|---|---|---|---|---|---|---|---|---|")
    for typ in TYPES:
        rs = [x for x in rows if x["type"] == typ]
        if not rs:
            continue
        fixed = [x for x in rs if x["fixed"]]
        sup = [x for x in rs if x["changed"] and x["supported"]]
        wpf = sum(x["words_changed"] for x in fixed) / len(fixed) if fixed else float("nan")
        corr = sum(1 for x in rs if any(k.startswith("correction") for k in x["edits"]))
        # a deletion: any edit that is neither a correction nor a note ("kept": a partly supported unit left as it is)
        dele = sum(1 for x in rs if any(not k.startswith("correction") and k not in ("note", "kept") for k in x["edits"]))
        ch = sum(1 for x in rs if x["changed"])
        intro = sum(len(x["introduced"]) for x in rs)
        # an invented attribute or an added clause has no source value to put back: it is deleted, not fixed
        fx = "—" if typ in ("none", "invented_attribute", "unsupported_addition") else f"{len(fixed) / len(rs):.2f}"
        wp = "—" if not fixed else f"{wpf:.1f}"
        print(f"| {typ} | {len(rs)} | {fx} | {len(sup) / len(rs):.2f} | {wp} | {corr} | {dele} | {ch} | {intro} |")
    core = [x for x in rows if x["type"] in ("number", "date", "entity_swap", "negation")]
    if core:
        print(f"\nnumber/date/entity/negation fixed with the source's value: "
              f"{sum(x['fixed'] for x in core)}/{len(core)} = {sum(x['fixed'] for x in core) / len(core):.2f}")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
