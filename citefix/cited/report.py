"""The cited-answer part of the terminal report, and the corpus summary of many cited answers.

Everything is read from the Evaluation (its units, verdicts and metrics["citations"] / metrics["support"], see
citefix.cited.evaluate), so `citefix show RUN` reprints from the store exactly what `citefix check` printed. Without
colour the output is plain ASCII apart from the answer's own text.
"""

from __future__ import annotations

from typing import Any

from citefix.models import Evaluation

CITATION_WORD = {"supported": "supported", "redundant": "REDUNDANT", "unsupported": "unsupported",
                 "not_found": "NOT FOUND", "not_judged": "not judged"}
CITATION_STYLE = {"supported": "green", "redundant": "yellow", "unsupported": "red", "not_found": "magenta",
                  "not_judged": "dim"}
LEVEL_STYLE = {"full": "green", "partial": "yellow", "none": "bold red"}


def _f(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _group_word(row: dict[str, Any], threshold: float) -> tuple[str, str]:
    """The group verdict of a claim row: (word, style)."""
    if row.get("missing"):
        return "NOT FOUND", "magenta"
    if row.get("errors") and row.get("score") is None:
        return "error", "magenta"
    if row.get("recall"):
        return f"supported {_f(row.get('score'))}", "green"
    return f"NOT SUPPORTED {_f(row.get('score'))}", "bold red"


def _citations_text(row: dict[str, Any], color: bool):
    from rich.text import Text

    t = Text()
    for k, c in enumerate(row.get("citations") or []):
        if k:
            t.append("\n")
        label = c.get("label", "")
        score = c.get("alone")
        t.append(f"[{c.get('id')}] ")
        word = CITATION_WORD.get(label, label)
        t.append(word + ("" if score is None or label == "not_found" else f" {_f(score)}"),
                 style=CITATION_STYLE.get(label, "") if color else "")
    return t


def _span_text(row: dict[str, Any]) -> str:
    pieces = row.get("pieces") or []
    if pieces:
        return "@" + ",".join(f"{a}-{b}" for a, b in pieces)
    if row.get("start") is not None:
        return f"@{row['start']}-{row['end']}"
    return "(no span)"


def render_cited(ev: Evaluation, con, color: bool = False) -> None:
    """Print, per sentence, its citation groups with their claim, span, group verdict and per-citation verdicts, its
    support level and ALCE's sentence verdict; then the answer's ALiiCE / ALCE figures, fallbacks and warnings."""
    m = ev.metrics.get("citations") or {}
    sup = ev.metrics.get("support") or {}
    threshold = m.get("threshold", 0.5)
    sentences = m.get("sentences") or []

    if m.get("status") == "uncited" or ev.status == "uncited":
        msg = ev.message or "uncited answer: it carries no citation marks"
        con.print(msg[:1].upper() + msg[1:] + ".", markup=False)
    elif sentences:
        con.print(_sentences_table(m, sentences, threshold, color))
    _print_figures(con, m, sup, threshold)


def _sentences_table(m: dict[str, Any], sentences: list[Any], threshold: float, color: bool):
    """A rich table: a row per sentence (its support level), a row per citation group (its claim, span, verdict and
    per-citation verdicts), and ALCE's whole-sentence verdict where the sentence has several claims."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    groups = {r.get("unit_id"): r for r in m.get("groups") or []}
    alce = {r.get("unit_id"): r for r in m.get("alce_sentences") or []}
    table = Table(box=box.SIMPLE if color else box.ASCII, show_lines=False, expand=False, pad_edge=False,
                  title=None)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("sentence / claim for each citation group (span)", overflow="fold", max_width=52)
    table.add_column("verdict", overflow="fold", max_width=22)
    table.add_column("per citation", overflow="fold", max_width=28)
    for s in sentences:
        level = s.get("support")
        head = Text(s.get("text", "").strip())
        if not s.get("groups"):
            table.add_row(f"S{s['index'] + 1}", head, Text("no citation", style="dim" if color else ""), "")
        else:
            word = f"support: {level}" if level else "support: -"
            table.add_row(f"S{s['index'] + 1}", head,
                          Text(word, style=LEVEL_STYLE.get(level, "") if color else ""), "")
        shown: set[str] = set()
        for g in s.get("groups") or []:
            uid = g.get("unit_id")
            row = groups.get(uid)
            if row is None or uid in shown:
                continue
            shown.add(uid)
            marks = " ".join(x.get("raw", "") for x in s["groups"] if x.get("unit_id") == uid)
            claim = Text(f"{marks} ")
            claim.append(f"\"{row.get('claim', '')}\"", style="bold" if color else "")
            claim.append(f" {_span_text(row)}")
            if row.get("fallback"):
                claim.append(f"\n(whole sentence: {row['fallback']})", style="yellow" if color else "")
            for msg in row.get("messages") or []:
                if "not found" in msg:
                    claim.append(f"\n{msg}", style="magenta" if color else "")
            if row.get("supported_by"):  # the passages it does not cite that support it
                claim.append("\nsupported by " + "".join(f"[{i}]" for i in row["supported_by"]),
                             style="green" if color else "")
            word, style = _group_word(row, threshold)
            table.add_row(uid or "", claim, Text(word, style=style if color else ""), _citations_text(row, color))
        a = alce.get(s.get("alce"))
        if a is not None and len(s.get("claims") or []) > 1:
            word, style = _group_word(a, threshold)
            table.add_row(a.get("unit_id") or "", Text("ALCE: the whole sentence", style="dim" if color else ""),
                          Text(word, style=style if color else ""), _citations_text(a, color))
        table.add_section()
    return table


def _print_figures(con, m: dict[str, Any], sup: dict[str, Any], threshold: float) -> None:
    """The answer's ALiiCE and ALCE figures, counts, support levels, fallbacks, redundant and not-found citations."""
    al, ac = m.get("aliice") or {}, m.get("alce") or {}
    counts = sup.get("counts") or {}
    fb = m.get("fallbacks") or {}
    con.print(f"ALiiCE (per citation group): recall {_f(al.get('recall'))}  precision {_f(al.get('precision'))}  "
              f"F1 {_f(al.get('f1'))}  CVCP {_f(m.get('cvcp'))}", markup=False)
    con.print(f"ALCE (per sentence):         recall {_f(ac.get('recall'))}  precision {_f(ac.get('precision'))}  "
              f"F1 {_f(ac.get('f1'))}", markup=False)
    con.print(f"Claims {al.get('n_claims', 0)}  citations {al.get('n_citations', 0)}  "
              f"redundant {al.get('redundant', 0)}  not found {al.get('not_found', 0)}   "
              f"sentences {m.get('n_sentences', 0)} ({m.get('cited_sentences', 0)} cited)", markup=False)
    con.print(f"Statement support: full {counts.get('full', 0)}  partial {counts.get('partial', 0)}  "
              f"none {counts.get('none', 0)}   (entails at score >= {_f(threshold)})", markup=False)
    reasons = fb.get("reasons") or {}
    if fb.get("count"):
        why = ", ".join(f"{k} {n}" for k, n in reasons.items())
        con.print(f"Fallbacks to the whole sentence: {fb['count']} ({why})", markup=False)
    else:
        con.print("Fallbacks to the whole sentence: 0", markup=False)
    for r in m.get("redundant") or []:
        con.print(f"redundant: [{r['id']}] on {r['unit_id']} \"{r['claim']}\" (the other passages support it)",
                  markup=False)
    for msg in m.get("not_found") or []:
        con.print(f"not found: {msg}", markup=False)


def render_summary(summary: dict[str, Any]) -> str:
    """The corpus summary of citefix.cited.evaluate.summarise as plain ASCII lines."""
    s = summary

    def agg(a: dict) -> str:
        return f"recall {_f(a.get('recall'))}  precision {_f(a.get('precision'))}  F1 {_f(a.get('f1'))}"

    fb = s.get("fallbacks") or {}
    why = ", ".join(f"{k} {n}" for k, n in fb.items()) or "none"
    lines = [
        "=" * 100,
        f"Cited answers: {s.get('answers', 0)}  scored {s.get('scored_answers', 0)}  uncited {s.get('uncited_answers', 0)}"
        f"  failed {s.get('error_answers', 0)}   verifier: {s.get('verifier') or '-'}",
        f"ALiiCE macro (mean over answers): {agg(s.get('aliice_macro') or {})}   "
        f"(n={(s.get('aliice_macro') or {}).get('n', 0)} answers)",
        f"ALiiCE micro (pooled claims):     {agg(s.get('aliice_micro') or {})}   "
        f"(n={(s.get('aliice_micro') or {}).get('n', 0)} claims)",
        f"ALCE macro (sentences):           {agg(s.get('alce_macro') or {})}",
        f"ALCE micro (sentences):           {agg(s.get('alce_micro') or {})}   "
        f"(n={(s.get('alce_micro') or {}).get('n', 0)} sentences)",
        f"CVCP {_f(s.get('cvcp'), 3)} over {s.get('cvcp_sentences', 0)} cited sentences   "
        f"mean claim support score {_f(s.get('score'))}",
        f"Claims {s.get('claims', 0)}  citations {s.get('citations', 0)}  redundant {s.get('redundant', 0)}  "
        f"passages not found {s.get('not_found', 0)} (in {s.get('not_found_answers', 0)} answers)",
        f"Fallbacks to the whole sentence: {s.get('fallback_count', 0)} ({why})",
        f"Statement support: full {(s.get('support') or {}).get('full', 0)}  "
        f"partial {(s.get('support') or {}).get('partial', 0)}  none {(s.get('support') or {}).get('none', 0)}",
    ]
    if s.get("uncited_ids"):
        ids = s["uncited_ids"]
        lines.append("Uncited answers: " + ", ".join(ids[:10]) + (f" ... and {len(ids) - 10} more" if len(ids) > 10 else ""))
    return "\n".join(lines)


__all__ = ["render_cited", "render_summary"]
