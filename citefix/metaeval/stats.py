"""Statistics of a meta-eval run: every protocol the labels allow, per verifier and per ``--by`` group."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from citefix.metaeval import protocols as P
from citefix.metaeval.loaders import MetaItem
from citefix.metaeval.results import ItemScore, MetaEvalResult, group_value
from citefix.metaeval.rouge import acu_rouge
from citefix.metaeval.spans import SpanItem, span_prf

NDCG_KS = (5, 10, 20)


def _tag(stats: Sequence[P.Stat], protocol: str, system: str) -> list[P.Stat]:
    for s in stats:
        s.protocol, s.system = protocol, system
    return list(stats)


def compute_stats(
    result: MetaEvalResult, items: Sequence[MetaItem], *, bootstrap: int = 1000, seed: int = 0, stem: bool = False,
    by: Sequence[str] | None = None,
) -> list[P.Stat]:
    """Every protocol the labels allow, for every verifier (or the decomposer, for RoSE); then the same per group of
    each ``by`` field (default ``result.by``)."""
    kw = dict(bootstrap=bootstrap, seed=seed)
    out: list[P.Stat] = []
    if result.shape == "rose":
        ok = [d for d in result.decompositions if d.error is None]
        pairs = [(d.units, d.gold) for d in ok]
        system = result.decomposer or ""
        gen = acu_rouge(pairs, direction="generated", stem=stem, **kw)
        cov = acu_rouge(pairs, direction="gold", stem=stem, **kw)
        for s in (gen, cov):
            s.n_missing = len(result.decompositions) - len(ok)
        return _tag([gen, cov], "decomposition", system)
    by_id = {i.id: i for i in items}
    fields = list(result.by if by is None else by)
    # With one annotator per item the majority reference is the union: groups then show it once.
    majority = any((i.n_annotators or 1) > 1 for i in items if i.spans is not None)
    for name in result.verifiers:
        rows = sorted((r for r in result.scores if r.verifier == name), key=lambda r: r.index)
        out += _system_stats(name, rows, by_id, kw)
        for f in fields:
            groups: dict[str, list[ItemScore]] = {}
            for r in rows:
                groups.setdefault(group_value(r.by.get(f)), []).append(r)
            for g in sorted(groups):
                stats = _system_stats(name, groups[g], by_id, kw, majority=majority, whole=rows)
                for s in stats:
                    s.by, s.group = f, g
                out += stats
    return out


def flagged(row: ItemScore) -> bool | None:
    """The verifier's own decision: True when some unit's verdict is not "supported"; None without a score."""
    if row.error is not None or row.score is None or not row.unit_labels:
        return None
    return any(label != "supported" for label in row.unit_labels)


def flagged_unsupported(row: ItemScore) -> bool | None:
    """True when some unit's verdict is "unsupported" (a "partial" verdict asks for a look, it does not flag)."""
    if row.error is not None or row.score is None or not row.unit_labels:
        return None
    return any(label == "unsupported" for label in row.unit_labels)


def _partial_share(rows: Sequence[ItemScore]) -> P.Stat:
    """The share of the units of faithful (label 1) items whose verdict is "partial"."""
    labels = [lab for r in rows if r.label == 1 and r.error is None for lab in r.unit_labels]
    if not labels:
        return P.Stat(name="partial_unit_rate", value=None, reason="no units of items labelled 1")
    return P.Stat(name="partial_unit_rate", value=sum(lab == "partial" for lab in labels) / len(labels),
                  n=len(labels), details={"rule": "units of label-1 items whose verdict is 'partial'"})


def _system_stats(
    name: str, rows: Sequence[ItemScore], by_id: Mapping[str, MetaItem], kw: dict[str, Any], *,
    majority: bool = True, whole: Sequence[ItemScore] | None = None,
) -> list[P.Stat]:
    """The statistics of one verifier on these rows (all items, or one group of them with ``whole`` = all rows)."""
    out: list[P.Stat] = []
    scores = [r.score for r in rows]
    labels = [r.label for r in rows]
    if any(y is not None for y in labels):
        classes = {y for y, sc in zip(labels, scores) if y is not None and sc is not None}
        binary = [P.roc_auc(scores, labels, **kw), P.balanced_accuracy_tuned(scores, labels, **kw)]
        if whole is not None and len(classes) == 1:
            binary.append(_auc_vs_other(rows, whole, classes.pop(), kw))
        out += _tag(binary, "binary", name)
        out += _tag(P.verdict_rates([flagged(r) for r in rows], labels, **kw), "decision", name)
        rule = "flagged = the verifier's own verdict for some unit is 'unsupported' ('partial' is not counted)"
        out += _tag(P.verdict_rates([flagged_unsupported(r) for r in rows], labels, rule=rule, **kw)
                    + [_partial_share(rows)], "decision-unsupported", name)
    if any(r.rating is not None for r in rows):
        out += _tag(P.correlations(scores, [r.rating for r in rows], **kw).all(), "rating", name)
    if any(r.level is not None for r in rows):
        levels = [r.level for r in rows]
        out += _tag(P.correlations(scores, levels, **kw).all() + P.one_vs_one_auc(scores, levels, **kw).all(),
                    "levels", name)
    ranked = [r for r in rows if r.chunk_relevance is not None]
    if ranked:
        groups = [(r.chunk_scores, r.chunk_relevance) for r in ranked if r.chunk_scores is not None]
        skipped = len(ranked) - len(groups)
        for k in NDCG_KS:
            s = P.mean_ndcg(groups, k, **kw)  # type: ignore[arg-type]
            s.details["statements_without_relevant_chunk"] = (
                s.details.get("statements_without_relevant_chunk", 0) + skipped)
            out += _tag([s], "ranking", name)
    span_rows = [r for r in rows if by_id.get(r.item_id) is not None and by_id[r.item_id].spans is not None]
    if whole is not None and not any(by_id[r.item_id].spans for r in span_rows):
        span_rows = []  # a group without any reference span (e.g. faithful statements): no span statistics
    if span_rows:
        good = [r for r in span_rows if r.error is None]
        span_items = []
        for r in good:
            it = by_id[r.item_id]
            ann, n_ann = it.annotator_spans()
            span_items.append(SpanItem(text=it.case.text, predicted=r.predicted_spans, annotators=ann,
                                         n_annotators=n_ann))
        for ref in ("union", "majority") if majority else ("union",):
            stats = span_prf(span_items, ref, **kw).all()  # type: ignore[arg-type]
            for s in stats:
                s.n_missing = len(span_rows) - len(good)
            out += _tag(stats, f"spans-{ref}", name)
    return out


def _auc_vs_other(rows: Sequence[ItemScore], whole: Sequence[ItemScore], label: int, kw: dict[str, Any]) -> P.Stat:
    """ROC-AUC of a one-label group against every item of the other label in the whole file."""
    inside = {id(r) for r in rows}
    other = [r for r in whole if id(r) not in inside and r.label is not None and r.label != label]
    both = list(rows) + other
    s = P.roc_auc([r.score for r in both], [r.label for r in both], **kw)
    s.name = "roc_auc_vs_other"
    s.details["rule"] = f"this group's items (label {label}) against the {len(other)} items labelled {1 - label} " \
                        "of the whole file"
    return s
