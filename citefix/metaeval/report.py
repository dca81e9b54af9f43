"""A meta-eval result as text: the terminal table, the Markdown report and the JSON file (views only)."""

from __future__ import annotations

from pathlib import Path

from citefix.metaeval import protocols as P
from citefix.metaeval.results import MetaEvalResult

_LABELS = {
    "roc_auc": "ROC-AUC", "balanced_accuracy": "BAcc (tuned)", "pearson": "Pearson", "spearman": "Spearman",
    "kendall": "Kendall tau-b", "auc_fs_ns": "AUC FS-vs-NS", "auc_fs_ps": "AUC FS-vs-PS", "auc_ps_ns": "AUC PS-vs-NS",
    "auc_ovo_mean": "AUC one-vs-one mean", "span_precision": "char precision", "span_recall": "char recall",
    "span_f1": "char F1", "detect_rate": "detected (label 0 flagged)",
    "false_flag_rate": "false flags (label 1 flagged)", "balanced_accuracy_verdict": "BAcc (verdict)",
    "roc_auc_vs_other": "ROC-AUC vs other label", "partial_unit_rate": "partial (share of label-1 units)", "ndcg@5": "NDCG@5", "ndcg@10": "NDCG@10", "ndcg@20": "NDCG@20", "rouge1_best_match": "ROUGE-1 best match", "rouge1_gold_coverage": "ROUGE-1 gold coverage",
}
_PROTOCOLS = {
    "binary": "binary label", "rating": "expert rating", "levels": "support level", "ranking": "chunk ranking",
    "spans-union": "spans (union)", "spans-majority": "spans (majority)", "decomposition": "decomposition",
    "decision": "verdict",
    "decision-unsupported": "verdict 'unsupported'",
}
VERDICT_NOTE = ("verdict: an item counts as flagged when the verifier's own verdict for one of its units is not "
                "'supported', i.e. at each verifier's packaged 'supported' threshold (offline signals: "
                "citefix/data/offline_params.json), not a threshold tuned on this file")


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _cell(s: P.Stat | None, notes: dict[str, int], ci: bool = True) -> str:
    if s is None:
        return ""
    if s.value is None:
        key = s.reason or "undefined"
        notes.setdefault(key, len(notes) + 1)
        return f"— [{notes[key]}]"
    text = _fmt(s.value)
    if ci and s.ci_low is not None and s.ci_high is not None:
        text += f" [{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]"
    if ci and isinstance(s, P.ThresholdStat) and s.threshold is not None:
        text += f" @{s.threshold:.3g}"
    return text


def _systems(result: MetaEvalResult) -> list[str]:
    return list(dict.fromkeys(s.system for s in result.stats if s.by is None)) or result.verifiers


def _rows(result: MetaEvalResult) -> tuple[list[str], list[list[str]], dict[str, int]]:
    systems = _systems(result)
    notes: dict[str, int] = {}
    body: list[list[str]] = []
    overall = [s for s in result.stats if s.by is None]
    for proto in result.protocols():
        names = list(dict.fromkeys(s.name for s in overall if s.protocol == proto))
        for name in names:
            cells = [_cell(result.stat(proto, name, sys_), notes) for sys_ in systems]
            n = max((s.n for s in overall if s.protocol == proto and s.name == name), default=0)
            body.append([_PROTOCOLS.get(proto, proto), _LABELS.get(name, name), str(n)] + cells)
    perf = {p.system: p for p in result.performance}
    speed = lambda v: "—" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.3g}")  # noqa: E731
    body.append(["speed", "items/s", ""] + [speed(perf[s].items_per_s) if s in perf else "" for s in systems])
    body.append(["speed", "items/s after first", ""]
                + [speed(perf[s].items_per_s_after_first) if s in perf else "" for s in systems])
    body.append(["memory", "peak RSS MiB", ""] + [f"{perf[s].peak_rss_mb:.0f}" if s in perf else "" for s in systems])
    return ["protocol", "statistic", "n"] + systems, body, notes


def _group_rows(result: MetaEvalResult, by: str, notes: dict[str, int], *, ci: bool
                ) -> tuple[list[str], list[list[str]]]:
    """One row per (statistic, group value) of a --by field, one column per verifier; rows that no verifier can
    compute (e.g. the ROC-AUC of a group with one label) are left out."""
    systems = _systems(result)
    mine = [s for s in result.stats if s.by == by]
    index = {(s.protocol, s.name, s.group, s.system): s for s in mine}
    body: list[list[str]] = []
    for proto, name in dict.fromkeys((s.protocol, s.name) for s in mine):
        for g in result.groups(by):
            stats = [index.get((proto, name, g, sys_)) for sys_ in systems]
            if not any(st is not None and st.value is not None for st in stats):
                continue
            n = max((st.n for st in stats if st is not None), default=0)
            label = f"{_PROTOCOLS.get(proto, proto)}: {_LABELS.get(name, name)}"
            body.append([label, g, str(n)] + [_cell(st, notes, ci) for st in stats])
    return ["statistic", by, "n"] + systems, body


def _align(head: list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return [line(head), line(["-" * w for w in widths])] + [line(r) for r in body]


def _header_lines(result: MetaEvalResult) -> list[str]:
    parts = [f"{result.shape}", f"{result.records} records", f"{result.items} items"]
    if result.skipped:
        parts.append(f"{len(result.skipped)} skipped")
    if result.shape == "wice":
        parts.append("unit=statement")
    elif result.shape == "attributionbench":
        parts.append("units=labelled sentences")
    elif result.shape != "rose":
        parts.append(f"decomposer={result.decomposer or 'none (whole text)'}")
        if result.decomposer:
            parts.append(f"aggregate={result.aggregate}")
    if result.chunk_words:
        parts.append(f"chunks≤{result.chunk_words} words")
    ci = f"95% CI: {result.bootstrap} bootstrap resamples, seed {result.seed}" if result.bootstrap else "no CI"
    return [f"meta-eval {result.path}", ", ".join(parts), ci + f"; {result.duration_s:.1f}s"]


def render_table(result: MetaEvalResult) -> str:
    """A plain-text table for the terminal: one row per statistic, one column per verifier."""
    head, body, notes = _rows(result)
    out = _header_lines(result) + [""] + _align(head, body)
    for by in result.by:
        ghead, gbody = _group_rows(result, by, notes, ci=False)
        out += ["", f"by {by} ({len(result.groups(by))} groups; values only, 95% CIs in --json and --report)"]
        out += _align(ghead, gbody)
    if any(isinstance(s, P.ThresholdStat) for s in result.stats):
        out.append("BAcc: threshold (@) tuned on odd-indexed items, reported on even-indexed items")
    if any(s.protocol == "decision" for s in result.stats):
        out.append(VERDICT_NOTE)
    for reason, k in notes.items():
        out.append(f"[{k}] {reason}")
    out += [f"note: {n}" for n in _extra_notes(result)]
    for u in result.unscorable[:20]:
        out.append(f"not scored: {u['item_id']} (line {u['line']}): {u['problem']}")
    if len(result.unscorable) > 20:
        out.append(f"not scored: … and {len(result.unscorable) - 20} more (all in the JSON result, key 'unscorable')")
    return "\n".join(out) + "\n"


def _extra_notes(result: MetaEvalResult) -> list[str]:
    notes = list(result.notes)
    perf = {p.system: p for p in result.performance}
    if result.decomposer and result.shape != "rose" and result.decomposer in perf:
        d = perf[result.decomposer]
        rate = "—" if d.items_per_s is None else f"{d.items_per_s:,.1f}"
        notes.append(f"decomposer {result.decomposer}: {d.items} records in {d.seconds:.1f}s ({rate} records/s, "
                     "not included in the verifiers' items/s)")
    return notes


def to_markdown(result: MetaEvalResult, command: str) -> str:
    """A markdown report that names the command which produced it."""
    head, body, notes = _rows(result)
    esc = lambda c: c.replace("|", "\\|")  # noqa: E731
    out = [f"# citefix meta-eval: {Path(result.path).name}", "", "```", command, "```", ""]
    out += [f"- {h}" for h in _header_lines(result)[1:]]
    out += [f"- started {result.started_at}, citefix {result.version}", ""]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---" for _ in head) + "|")
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in body]
    out.append("")
    for by in result.by:
        ghead, gbody = _group_rows(result, by, notes, ci=True)
        out += [f"## By {by}", ""]
        out.append("| " + " | ".join(ghead) + " |")
        out.append("|" + "|".join("---" for _ in ghead) + "|")
        out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in gbody]
        out += ["", "Rows that no verifier can compute for a group (e.g. the ROC-AUC of a group with one label) are "
                "left out; such a group gets the ROC-AUC of its items against the other-label items of the file.", ""]
    out.append("Cells: value [95% bootstrap CI]. BAcc: threshold (@) tuned on odd-indexed items, reported on "
               "even-indexed items (AggreFact protocol). — means the statistic cannot be computed; reasons below.")
    if any(s.protocol == "decision" for s in result.stats):
        out.append(VERDICT_NOTE[0].upper() + VERDICT_NOTE[1:] + ".")
    if notes:
        out.append("")
        out += [f"{k}. {reason}" for reason, k in notes.items()]
    extra = _extra_notes(result)
    if extra:
        out.append("")
        out += [f"- {n}" for n in extra]
    return "\n".join(out) + "\n"


def to_json(result: MetaEvalResult, *, indent: int | None = 2) -> str:
    """The whole result (statistics, per-item scores, performance) as JSON."""
    return result.model_dump_json(indent=indent)


def write_report(result: MetaEvalResult, directory: str | Path, command: str) -> dict[str, Path]:
    """Write <stem>.md, <stem>.json and <stem>.items.jsonl into ``directory``; return the paths."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    stem = f"metaeval-{Path(result.path).stem}"
    paths = {"markdown": d / f"{stem}.md", "json": d / f"{stem}.json", "items": d / f"{stem}.items.jsonl"}
    paths["markdown"].write_text(to_markdown(result, command), encoding="utf-8")
    paths["json"].write_text(to_json(result), encoding="utf-8")
    with paths["items"].open("w", encoding="utf-8") as fh:
        for r in result.scores:
            fh.write(r.model_dump_json() + "\n")
        for dsc in result.decompositions:
            fh.write(dsc.model_dump_json() + "\n")
    return paths
