"""Character-span agreement (the span protocol of `citefix.metaeval.protocols`): micro precision, recall and F1 over
characters, against the union or the majority of the annotators' spans. Re-exported by `protocols`.
"""

from __future__ import annotations

from typing import Literal, Sequence

import numpy as np
from pydantic import BaseModel, Field

from citefix.metaeval.statbase import SpanScores, Stat, _with_ci

# ----------------------------------------------------------------------------------------------- spans


class SpanItem(BaseModel):
    """One text with predicted unsupported spans and each annotator's spans (end-exclusive character offsets)."""

    text: str
    predicted: list[tuple[int, int]] = Field(default_factory=list)
    annotators: list[list[tuple[int, int]]] = Field(
        default_factory=list, description="One list of spans per annotator who marked something."
    )
    n_annotators: int = Field(default=1, description="All annotators of this text, including those who marked nothing.")


def _mask(n: int, spans: Sequence[tuple[int, int]]) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    for a, b in spans:
        a, b = max(0, int(a)), min(n, int(b))
        if b > a:
            m[a:b] = True
    return m


def reference_mask(item: SpanItem, reference: Literal["union", "majority"]) -> np.ndarray:
    """Characters in the reference: marked by >= 1 annotator (union) or by > half of n_annotators (majority)."""
    n = len(item.text)
    votes = np.zeros(n, dtype=int)
    for spans in item.annotators:
        votes += _mask(n, spans)
    if reference == "union":
        return votes >= 1
    n_ann = max(item.n_annotators, len(item.annotators))
    return votes >= n_ann // 2 + 1


def span_counts(
    item: SpanItem, reference: Literal["union", "majority"], *, ignore_whitespace: bool = True
) -> tuple[int, int, int]:
    """(true positive, false positive, false negative) characters for one item."""
    n = len(item.text)
    pred = _mask(n, item.predicted)
    ref = reference_mask(item, reference)
    if ignore_whitespace:
        keep = ~np.array([c.isspace() for c in item.text], dtype=bool) if n else np.zeros(0, dtype=bool)
        pred, ref = pred & keep, ref & keep
    return int((pred & ref).sum()), int((pred & ~ref).sum()), int((~pred & ref).sum())


def _prf(tp: int, fp: int, fn: int) -> tuple[float | None, float | None, float | None]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return p, r, f


def span_prf(
    items: Sequence[SpanItem],
    reference: Literal["union", "majority"] = "union",
    *,
    ignore_whitespace: bool = True,
    bootstrap: int = 0,
    seed: int = 0,
) -> SpanScores:
    """Character-level precision / recall / F1, micro-averaged over all characters of all items.

    Empty cases: an item with neither predicted nor reference characters adds nothing to the counts (it is counted in
    ``details.items_both_empty``). Over the whole set, precision is None when nothing was predicted, recall is None
    when the reference is empty, and F1 (= 2TP / (2TP + FP + FN)) is None only when both are empty.
    """
    counts = np.asarray([span_counts(it, reference, ignore_whitespace=ignore_whitespace) for it in items], dtype=int)
    if len(counts) == 0:
        counts = np.zeros((0, 3), dtype=int)
    tp, fp, fn = (int(x) for x in counts.sum(axis=0)) if len(counts) else (0, 0, 0)
    p, r, f = _prf(tp, fp, fn)
    both_empty = int(((counts[:, 0] + counts[:, 1] + counts[:, 2]) == 0).sum()) if len(counts) else 0
    details = {"tp": tp, "fp": fp, "fn": fn, "items_both_empty": both_empty, "reference": reference}
    out = {}
    reasons = {
        "precision": "no characters predicted unsupported",
        "recall": "no reference characters",
        "f1": "neither predicted nor reference characters",
    }
    for k, (name, v) in enumerate((("precision", p), ("recall", r), ("f1", f))):
        stat = Stat(name=f"span_{name}", value=v, reason=None if v is not None else reasons[name],
                    n=len(items), details=dict(details))

        def fn_(idx: np.ndarray, k: int = k) -> float | None:
            t = counts[idx].sum(axis=0)
            return _prf(int(t[0]), int(t[1]), int(t[2]))[k]

        out[name] = _with_ci(stat, fn_, len(items), bootstrap, seed)
    return SpanScores(reference=reference, **out)
