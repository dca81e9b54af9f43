"""A kept verdict against a fresh one: does a unit whose verdict the cache reuses in a later round get what a fresh
check of the new text gives it?

For each multi-sentence summary of a file (SummEval's layout: `document`, `summary`), the offline verifier behind the
verdict cache (citefix.revision.incremental.CachingVerifier) checks the summary cut into clause units, then an edited
summary — one sentence dropped (`--edit drop`, never the first) or one word of one sentence changed (`--edit word`);
the second check reuses what it can. Every unit of the edited summary is also checked by a plain offline verifier,
and the script counts the units whose label or probability of "not supported" (by more than 0.01) differ. The goal
is none.

With `--cited`, the file holds cited answers (AttributionBench's grouped layout: `answer` with its [n] marks,
`passages` with `id` and `text`), and each is checked as `check` checks a cited answer (citefix.evaluate.evaluate:
claims from the parse, each judged against its citations, one at a time and together); every verdict of the edited
answer is compared, claim and citations alike.

    .venv/bin/python -m bench.reuse_fresh ../shared/data/summeval/summeval_balanced_300.jsonl --edit drop --limit 60
    .venv/bin/python -m bench.reuse_fresh ../shared/data/attributionbench/ab_grouped_answers_dev.jsonl --cited
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source
from citefix.revision.incremental import CachingVerifier
from citefix.verify.offline import OfflineVerifier


def edited(sentences: list[str], how: str, rng: random.Random) -> str:
    if how == "drop":
        k = rng.randrange(1, len(sentences))
        return " ".join(s for i, s in enumerate(sentences) if i != k)
    k = rng.randrange(0, len(sentences))
    words = sentences[k].split()
    j = rng.randrange(0, len(words))
    if words[j].isalpha():
        words[j] = "several"
    return " ".join(" ".join(words) if i == k else s for i, s in enumerate(sentences))


def _p(v) -> float | None:
    return (v.details or {}).get("p_unsupported")


def _differs(kept, fresh) -> bool:
    """Do a kept and a fresh verdict disagree: another unit, target or label, a probability of "not supported" on one
    side only, or the two more than 0.01 apart?"""
    pk, pf = _p(kept), _p(fresh)
    if (kept.unit_id, kept.target, kept.label) != (fresh.unit_id, fresh.target, fresh.label) or (pk is None) != (pf is None):
        return True
    return pk is not None and pf is not None and abs(pk - pf) > 0.01


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path, help="a JSONL file with `document` and `summary` per line")
    ap.add_argument("--edit", choices=("drop", "word"), default="drop")
    ap.add_argument("--start", type=int, default=0, help="the first line used")
    ap.add_argument("--limit", type=int, default=60, help="how many lines from there")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cited", action="store_true", help="the file holds cited answers (`answer`, `passages`)")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"error: {args.data}: no such file; give a JSONL file with `document` and `summary` per line",
              file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = rows[args.start:args.start + args.limit]
    dec, plain, rng = ClauseDecomposer(), OfflineVerifier(), random.Random(args.seed)
    if args.cited:
        return _cited(rows, args.edit, plain, rng)
    texts = units = reused = differ = 0
    for r in rows:
        doc, text = str(r.get("document") or ""), str(r.get("summary") or "")
        sentences = [s.text for s in dec.nlp(text).sents]
        if not doc.strip() or len(sentences) < 2:
            continue
        before = Case(id="a", sources=[Source(id="doc", text=doc)], text=text, kind="summary")
        after = before.model_copy(update={"text": edited(sentences, args.edit, rng)})
        cached = CachingVerifier(plain)
        cached.verify(dec.units(before), before)
        cut = dec.units(after)
        kept, fresh = cached.verify(cut, after), plain.verify(cut, after)
        texts += 1
        units += len(cut)
        reused += cached.last.reused
        for u, k, f in zip(cut, kept, fresh):
            if _differs(k, f):
                differ += 1
                print(f"differs: {r.get('id')} {u.id} {u.text[:70]!r}: kept {k.label} p={_p(k)}, fresh {f.label} "
                      f"p={_p(f)}")
    print(f"{texts} summaries edited ({args.edit}), {units} units, {reused} verdicts reused, {differ} differ from a "
          "fresh check")
    return 0 if differ == 0 else 1


def _cited(rows: list[dict], how: str, plain: OfflineVerifier, rng: random.Random) -> int:
    from citefix.decompose.claims import ClaimDecomposer
    from citefix.evaluate import evaluate

    dec, nlp = ClaimDecomposer(), ClauseDecomposer().nlp
    texts = verdicts = reused = differ = 0
    for r in rows:
        passages = [Source(id=str(p["id"]), text=str(p["text"])) for p in r.get("passages") or []
                    if str(p.get("text", "")).strip()]
        answer = str(r.get("answer") or "")
        sentences = [s.text for s in nlp(answer).sents] if passages and answer.strip() else []
        if len(sentences) < 2:
            continue
        before = Case(id="a", sources=passages, text=answer, kind="cited_answer")
        after = before.model_copy(update={"text": edited(sentences, how, rng)})
        cached = CachingVerifier(plain)
        evaluate(before, decomposer=dec, verifier=cached)
        kept = evaluate(after, decomposer=dec, verifier=cached)
        fresh = evaluate(after, decomposer=dec, verifier=plain)
        texts += 1
        verdicts += len(fresh.verdicts)
        reused += sum(bool((v.details or {}).get("reused")) for v in kept.verdicts)
        for k, f in zip(kept.verdicts, fresh.verdicts):
            if _differs(k, f):
                differ += 1
                print(f"differs: {r.get('id')} {f.unit_id} {f.target}: kept {k.label} p={_p(k)}, fresh {f.label} "
                      f"p={_p(f)}")
        differ += abs(len(kept.verdicts) - len(fresh.verdicts))
    print(f"{texts} cited answers edited ({how}), {verdicts} verdicts, {reused} reused, {differ} differ from a fresh "
          "check")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
