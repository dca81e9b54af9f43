"""ROUGE-1 between generated units and gold ACUs (the ACUEval measure of `citefix.metaeval.protocols`): lower-cased
``[a-z0-9]+`` tokens, clipped unigram counts, optional light suffix stemming. Re-exported by `protocols`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal, Sequence

import numpy as np

from citefix.metaeval.statbase import Stat, _none, _with_ci

# ----------------------------------------------------------------------------------------------- ROUGE-1

_TOKEN = re.compile(r"[a-z0-9]+")
_SUFFIXES = ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s")


def _stem(tok: str) -> str:
    """Light suffix stripping (not Porter): enough to match plurals and simple verb forms."""
    if len(tok) <= 3:
        return tok
    for suf in _SUFFIXES:
        if tok.endswith(suf) and len(tok) - len(suf) >= 3:
            tok = tok[: -len(suf)] + ("y" if suf in ("ies", "ied") else "")
            break
    return tok[:-1] if tok.endswith("e") and len(tok) > 4 else tok  # "score" and "scored" → "scor"


def tokenize(text: str, *, stem: bool = False) -> list[str]:
    toks = _TOKEN.findall(text.lower())
    return [_stem(t) for t in toks] if stem else toks


def rouge1_f1(candidate: str, reference: str, *, stem: bool = False) -> float:
    """Unigram F1 with clipped counts; 0.0 when either side has no tokens."""
    return _f1_counts(Counter(tokenize(candidate, stem=stem)), Counter(tokenize(reference, stem=stem)))


def best_match_rouge1(generated: Sequence[str], gold: Sequence[str], *, stem: bool = False) -> float | None:
    """Mean over generated units of the ROUGE-1 F1 against the best-matching gold unit; None if either is empty."""
    if not generated or not gold:
        return None
    gold_tok = [Counter(tokenize(g, stem=stem)) for g in gold]
    vals = []
    for g in generated:
        c = Counter(tokenize(g, stem=stem))
        vals.append(max((_f1_counts(c, r) for r in gold_tok), default=0.0))
    return float(np.mean(vals))


def _f1_counts(c: Counter, r: Counter) -> float:
    if not c or not r:
        return 0.0
    overlap = sum((c & r).values())
    if overlap == 0:
        return 0.0
    p, rec = overlap / sum(c.values()), overlap / sum(r.values())
    return 2 * p * rec / (p + rec)


def acu_rouge(
    items: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    direction: Literal["generated", "gold"] = "generated",
    stem: bool = False,
    bootstrap: int = 0,
    seed: int = 0,
) -> Stat:
    """Mean over items of :func:`best_match_rouge1`; each item is (generated units, gold ACUs).

    ``direction="generated"`` (the ACUEval measure) matches each generated unit to its best gold ACU;
    ``"gold"`` matches each gold ACU to its best generated unit (coverage). An item whose decomposer produced no
    units scores 0 (counted in ``details.items_without_units``); items without gold ACUs are skipped.
    """
    name = "rouge1_best_match" if direction == "generated" else "rouge1_gold_coverage"
    vals: list[float] = []
    no_units = no_gold = 0
    for gen, gold in items:
        if not gold:
            no_gold += 1
            continue
        if not gen:
            no_units += 1
            vals.append(0.0)
            continue
        a, b = (gen, gold) if direction == "generated" else (gold, gen)
        v = best_match_rouge1(a, b, stem=stem)
        vals.append(0.0 if v is None else v)
    details = {"items_without_units": no_units, "items_without_gold": no_gold, "stem": stem}
    if not vals:
        return _none(name, "no item has gold ACUs", n=0, details=details)
    arr = np.asarray(vals)
    stat = Stat(name=name, value=float(arr.mean()), n=len(arr), details=details)
    return _with_ci(stat, lambda idx: float(arr[idx].mean()), len(arr), bootstrap, seed)
