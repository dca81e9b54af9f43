"""Synthetic (evidence, statement, label) pairs for citefix's small entailment model (training/train_entail.py).

The statements come from training/make_planted.py's generator — faithful light edits of a source sentence, and the
same sentences with one planted error (number, date, entity swap, invented attribute, negation/antonym, role swap,
unsupported addition) — but run on OTHER articles than the planted development suite and the summary datasets: the
web pages cited in WiCE and the passages of AttributionBench. So no XSumFaith / SummEval article, no planted-suite
article and no human label is ever seen in training; every figure on those sets stays held-out. (WiCE and
AttributionBench pages are seen as text only, without their claims or labels; that caveat is printed in the docs.)

Every planted error also gives its original statement as a positive pair with the same evidence (minimal pairs).
The evidence of a pair is what the offline verifier gives the model at run time: the statement's source sentence with
one sentence on each side (citefix.chunking's sentence split). A quarter of the faithful statements also appear with
an evidence region that does NOT hold their sentence (label 0): the model must not call a statement supported by
text that is merely on the same topic.

Run: nice -n 10 .venv/bin/python -m training.make_entail_pairs [--per-type 700] [--seed 1]
                                                   [--out out/entail_pairs.jsonl]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import random
import sys
from pathlib import Path

from training import make_planted as mp

REPO = Path(__file__).resolve().parent.parent


def _articles(data: Path, max_chars: int) -> list[mp.Article]:
    seen: dict[str, mp.Article] = {}

    def add(text: str, dataset: str, origin: str) -> None:
        if not isinstance(text, str):
            return
        text = text.strip()[:max_chars]
        if len(text) < 400 or text in seen:
            return
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
        seen[text] = mp.Article(id=f"{dataset}-{digest}", dataset=dataset, origin=origin, text=text, split="train",
                                tokenised=False)

    for line in open(data / "wice" / "wice_claim_dev.jsonl", encoding="utf-8"):
        r = json.loads(line)
        add(r.get("citation_text", ""), "wice", f"wice {r.get('id')}")
    for line in open(data / "attributionbench" / "ab_grouped_answers_dev.jsonl", encoding="utf-8"):
        r = json.loads(line)
        ps = r.get("passages")
        if isinstance(ps, str):
            try:
                ps = ast.literal_eval(ps)
            except (ValueError, SyntaxError):
                ps = []
        for p in ps or []:
            if isinstance(p, dict):
                add(p.get("text", ""), "attributionbench", f"ab {r.get('id')} passage {p.get('id')}")
    return list(seen.values())


def _region(doc: str, start: int, end: int, spread: int = 1) -> tuple[int, int]:
    from citefix.chunking import split_sentences

    sents = split_sentences(doc)
    idx = [k for k, s in enumerate(sents) if s.end > start and s.start < end]
    if not idx:
        return start, end
    a = max(0, idx[0] - spread)
    b = min(len(sents) - 1, idx[-1] + spread)
    return sents[a].start, sents[b].end


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--per-type", type=int, default=700)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-chars", type=int, default=6000, help="cut each page to this many characters")
    ap.add_argument("--out", default="out/entail_pairs.jsonl")
    args = ap.parse_args(argv)
    data = Path(args.data_dir)
    articles = _articles(data, args.max_chars)
    print(f"make_entail_pairs: {len(articles)} pages", file=sys.stderr)
    from citefix.nlp import load_spacy

    nlp = load_spacy()
    mp.parse_articles(articles, nlp)
    mp.MAX_PER_ARTICLE = 30
    records, counts = mp.build(articles, nlp, seed=args.seed, per_type=args.per_type,
                               log=lambda m: print(m, file=sys.stderr))
    print(f"make_entail_pairs: statements {counts}", file=sys.stderr)
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    originals: set[tuple[str, int, int]] = set()
    with out.open("w", encoding="utf-8") as fh:
        for r in records:
            doc = r["document"]
            a, b = _region(doc, r["sentence_start"], r["sentence_end"])
            row = {"id": r["id"], "article_id": r["article_id"], "evidence": doc[a:b], "statement": r["summary"],
                   "label": int(r["label"]), "error_type": r["error_type"]}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
            if r["error_type"] != "none" and r.get("original") and (r["original"], a, b) not in originals:
                # the statement before its error was planted, as a positive with the same evidence: minimal pairs
                # make the model look at the changed words, not at cues such as "holds a number" (FactCC's recipe)
                originals.add((r["original"], a, b))
                fh.write(json.dumps({**row, "id": row["id"] + "-original", "statement": r["original"], "label": 1,
                                     "error_type": "original"}, ensure_ascii=False) + "\n")
                n += 1
            if r["error_type"] == "none" and rng.random() < 0.25:
                from citefix.chunking import split_sentences

                sents = [s for s in split_sentences(doc) if s.end <= a - 200 or s.start >= b + 200]
                if sents:
                    s = sents[rng.randrange(len(sents))]
                    a2, b2 = _region(doc, s.start, s.end)
                    if not (a2 < r["sentence_end"] and r["sentence_start"] < b2):
                        fh.write(json.dumps({**row, "id": row["id"] + "-offregion", "evidence": doc[a2:b2],
                                             "label": 0, "error_type": "off_region"}, ensure_ascii=False) + "\n")
                        n += 1
    print(f"make_entail_pairs: {n} pairs written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
