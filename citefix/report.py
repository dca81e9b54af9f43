"""The terminal report of an evaluation. The same function prints after `check` and for `show`, so they match."""

from __future__ import annotations

import io
import json
import math
from typing import TYPE_CHECKING

from citefix.models import Evaluation

if TYPE_CHECKING:
    from citefix.store.rows import RunRow

SEVERITY = {"supported": 1, "partial": 2, "unsupported": 3, "error": 0}
STYLE = {"supported": "green", "partial": "yellow", "unsupported": "bold red", "error": "magenta"}
MARK = {"supported": "+", "partial": "~", "unsupported": "-", "error": "!"}

OFFLINE_HINT = (
    "Checked offline by the default verifier (atomic units cut from the spaCy parse; each checked against its "
    "evidence sentence: names, numbers, dates, polarity, certainty and roles, lexical consistency, MiniLM token alignment "
    "and similarity). "
    "For ACUEval proper (LLM-written ACUs, P(Yes) judge) configure an LLM: --llm MODEL or CITEFIX_LLM=MODEL."
)


def char_labels(ev: Evaluation) -> list[str | None]:
    """Per character of ev.text, the most severe label among the units covering it (None = not in any unit)."""
    labels: list[str | None] = [None] * len(ev.text)
    for u in ev.units:
        if not u.has_span:
            continue
        v = ev.verdict_for(u.id)
        if v is None:
            continue
        pieces = u.meta.get("pieces") or [[u.start, u.end]]
        for a, b in pieces:
            for i in range(max(0, a), min(b, len(labels))):
                cur = labels[i]
                if cur is None or SEVERITY[v.label] > SEVERITY[cur]:
                    labels[i] = v.label
    return labels


def runs_of(labels: list[str | None]) -> list[tuple[int, int, str | None]]:
    out, start = [], 0
    for i in range(1, len(labels) + 1):
        if i == len(labels) or labels[i] != labels[start]:
            out.append((start, i, labels[start]))
            start = i
    return out


def marked_plain(ev: Evaluation) -> str:
    """The text with [[+ …]] supported, [[~ …]] partial, [[- …]] unsupported spans (for pipes and logs)."""
    if not ev.text:
        return ""
    out = []
    for a, b, lab in runs_of(char_labels(ev)):
        seg = ev.text[a:b]
        if lab is None or not seg.strip():
            out.append(seg)
        else:
            lead = seg[: len(seg) - len(seg.lstrip())]
            trail = seg[len(seg.rstrip()):]
            out.append(f"{lead}[[{MARK[lab]} {seg.strip()}]]{trail}")
    return "".join(out)


def marked_rich(ev: Evaluation):
    from rich.text import Text

    text = Text()
    if not ev.text:
        return text
    unsupported_chars: set[int] = set()
    for v in ev.verdicts:
        if v.label in ("unsupported", "partial"):
            for a, b in v.unsupported_spans:
                unsupported_chars.update(range(a, b))
    for a, b, lab in runs_of(char_labels(ev)):
        for i in range(a, b):
            style = STYLE.get(lab, "dim") if lab else "dim"
            if i in unsupported_chars:
                style += " underline"
            text.append(ev.text[i], style=style)
    return text


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def render(ev: Evaluation, *, run: RunRow | None = None, store_path: str | None = None, color: bool = False,
           width: int = 110, calls: list | None = None, round_note: str | None = None) -> str:
    """The whole report as a string (ANSI colour when color=True). `calls` (CallRecords or store rows; default the
    evaluation's own) give the line of model calls, answers from the cache and cost; `round_note` says which round."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    con = Console(file=buf, force_terminal=color, color_system="standard" if color else None, width=width,
                  no_color=not color, highlight=False, soft_wrap=False)
    title = f"citefix · {ev.case_id} · {ev.kind.replace('_', ' ')}"
    con.rule(title, style="bold")
    con.print("Text (" + ("green supported · yellow partial · red unsupported · underline = unsupported words" if color
                          else "[[+ supported]] [[~ partial]] [[- unsupported]]") + "):")
    if color:
        con.print(marked_rich(ev))
    else:
        con.print(marked_plain(ev), markup=False)
    con.print()
    if ev.kind == "cited_answer" and ev.metrics.get("citations"):
        from citefix.cited.report import render_cited

        render_cited(ev, con, color=color)
    # A cited answer's ALCE sentence units are shown by render_cited beside its claims; here only the claims.
    units = ev.checked_units
    if units:
        table = Table(box=box.SIMPLE if color else box.ASCII, show_lines=False, expand=False, pad_edge=False)
        for col, kw in (("#", {"justify": "right"}), ("unit", {"overflow": "fold", "max_width": 44}),
                        ("score", {"justify": "right"}), ("verdict", {}), ("evidence", {"overflow": "fold", "max_width": 44})):
            table.add_column(col, **kw)
        for u in units:
            v = ev.verdict_for(u.id)
            score, verdict, ev_text = _cells(ev, v)
            unit_text = u.text + ("" if u.has_span else f"  (no span: {u.note})")
            style = STYLE.get(v.label, "") if (color and v is not None) else ""
            table.add_row(u.id, unit_text, score, verdict, ev_text, style=style or None)
        con.print(table, markup=False) if not color else con.print(table)
    if ev.status == "no_units":
        con.print(f"No checkable units. {ev.message or ''}".strip(), markup=False)
    n_uns = len(ev.unsupported)
    agg = ev.metrics.get("aggregation") if isinstance(ev.metrics, dict) else None
    con.print(f"Score: {_fmt(ev.score)}" + (f" ({agg.replace('_', '-')})" if agg else "")
              + f"   units: {len(units)}   unsupported or partial: {n_uns}", markup=False)
    extra = {k: v for k, v in ev.scores.items() if k not in ("unit_mean", "acueval")}
    if extra:
        con.print("Scores: " + "  ".join(f"{k}={_fmt(v)}" for k, v in extra.items()), markup=False)
    con.print(f"Decomposer: {ev.decomposer}   verifier: {ev.verifier}   models: {', '.join(ev.models) or 'none (offline)'}",
              markup=False)
    if not ev.models:
        if str(ev.verifier or "").startswith("offline:"):
            con.print(f"Checked offline by one signal of the offline verifier alone ({ev.verifier.split(':', 1)[1]}). "
                      + OFFLINE_HINT.split(". ", 1)[1], markup=False)
        else:
            con.print(OFFLINE_HINT, markup=False)
    calls = ev.calls if calls is None else calls
    if calls:
        from citefix.costs import summarise_calls

        con.print(summarise_calls(calls).line().capitalize(), markup=False)
    for e in ev.errors[:5]:
        con.print(f"warning: {e}", markup=False)
    if len(ev.errors) > 5:
        con.print(f"warning: … and {len(ev.errors) - 5} more", markup=False)
    if round_note:
        con.print(round_note, markup=False)
    if run is not None:
        con.print(f"Stored as run {run.id} in {store_path}  (reprint: citefix show {run.id})", markup=False)
    return buf.getvalue()


def probability_text(p: float) -> str:
    """The judge's probability as shown: cut, not rounded, to two decimals, so that it stands on the same side of the
    decision points (two decimals, "unsupported at p >= 0.66") as the verdict beside it: 0.658 reads 0.65, not 0.66."""
    return f"{math.floor(float(p) * 100 + 1e-6) / 100:.2f}"


def _cells(ev: Evaluation, v) -> tuple[str, str, str]:
    """A unit's score, verdict (with the judge's probability) and evidence cells (with the reason, when flagged)."""
    if v is None:
        return "—", "not checked", ""
    verdict = v.label + (" (0/1)" if v.discrete else "")
    p_uns = (v.details or {}).get("p_unsupported")
    if isinstance(p_uns, (int, float)):
        verdict += f"\np={probability_text(p_uns)}"  # the judge's probability that the unit is not supported
    ev_text = ""
    if v.error:
        ev_text = f"error: {v.error}"
    elif v.evidence:
        snippet = v.evidence.text.replace("\n", " ")
        ev_text = (f"[{v.evidence.source_id}] " if len(_sources(ev)) > 1 else "") + (
            snippet if len(snippet) <= 120 else snippet[:117] + "…")
    why = (v.details or {}).get("why")
    if why and v.label != "supported":
        ev_text = f"why: {why}" + (f"\n{ev_text}" if ev_text else "")
    return _fmt(v.score), verdict, ev_text


def _sources(ev: Evaluation) -> set[str]:
    return {v.evidence.source_id for v in ev.verdicts if v.evidence}


def to_json(ev: Evaluation, *, run_id: int | None = None, store_path: str | None = None) -> str:
    data = ev.model_dump(mode="json")
    data["run_id"] = run_id
    data["store"] = store_path
    return json.dumps(data, ensure_ascii=False)
