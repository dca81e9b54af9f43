"""The units the offline verifier marks unsupported in a meta-eval file of summaries (document + summary + label), with
what flagged each: for reading why faithful text is flagged (a read probe file's faithful statements, a development
set's), and a count of the reasons by kind.

    .venv/bin/python -m bench.flagged bench/probes/heldout_probes_17.jsonl --faithful          # every flagged unit
    .venv/bin/python -m bench.flagged bench/probes/heldout_probes_17.jsonl --faithful --counts # the counts only

Kinds: "said otherwise" (the evidence gives another value, name or speaker in the slot), "polarity or antonym",
"not in the source" (a figure or date the sources lack), "certainty", and "little found" (the signals: few of its
words matched, words found nowhere). On a held-out probe file, only with --counts: the units it prints are what
reading the file means.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter

KINDS = (("opposite of", "polarity or antonym"), ("the source says", "said otherwise"),
         ("the source has no", "not in the source"), ("less certain", "certainty"))


def kind_of(reason: str) -> str:
    return next((k for cue, k in KINDS if cue in reason), "little found")


def main() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from citefix.decompose.clauses import ClauseDecomposer
    from citefix.models import Case, Source
    from citefix.verify.offline import OfflineVerifier

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path")
    side = ap.add_mutually_exclusive_group(required=True)
    side.add_argument("--faithful", action="store_true", help="the statements labelled 1")
    side.add_argument("--errors", action="store_true", help="the statements labelled 0")
    ap.add_argument("--counts", action="store_true", help="print only the counts")
    args = ap.parse_args()
    v, dec = OfflineVerifier(), ClauseDecomposer()
    counts: Counter[str] = Counter()
    texts = flagged = 0
    for line in open(args.path, encoding="utf-8"):
        r = json.loads(line)
        if (int(r["label"]) == 1) != args.faithful:
            continue
        case = Case(id=str(r["id"]), sources=[Source(id="doc", text=r["document"])], text=r["summary"], kind="summary")
        units = dec.units(case)
        bad = [(u, x) for u, x in zip(units, v.verify(units, case)) if x.label == "unsupported"]
        texts += 1
        flagged += bool(bad)
        if bad and not args.counts:
            print(f"== {r['id']}: {len(bad)} of {len(units)} units unsupported")
        for u, x in bad:
            reason = str((x.details or {}).get("why") or "")
            counts[kind_of(reason)] += 1
            if not args.counts:
                print(f"   [{x.score:.2f}] {u.text!r}\n        {reason[:300]}")
    print(f"{flagged} of {texts} statements with a unit unsupported; {sum(counts.values())} units: "
          + ", ".join(f"{k} {n}" for k, n in counts.most_common()))


if __name__ == "__main__":
    main()
