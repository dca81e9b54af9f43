"""A stored run as a file: Markdown, JSON or self-contained HTML (`citefix export`, the TUI's export)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citefix.store import Store


def export_run(store: Store, run_id: int, fmt: str) -> str:
    from citefix.report import marked_plain
    from citefix.store.rows import best_round_of, best_round_text

    if fmt == "html":
        from citefix.html_report import render_run_html

        return render_run_html(store, run_id)

    run = store.run(run_id)
    case = store.case_for_run(run_id)
    rounds = store.rounds(run_id)
    if fmt == "json":
        data = {
            "run": run.as_dict(),
            "case": case.model_dump(mode="json"),
            "rounds": [
                {k: (json.loads(v) if k in ("evaluation", "judge_evaluation") and v else v) for k, v in r.as_dict().items()} for r in rounds
            ],
            "calls": [c.as_dict() for c in store.calls(run_id)],
        }
        return json.dumps(data, ensure_ascii=False, indent=2)
    lines = [f"# citefix run {run_id}: {case.id}", "", f"- command: {run.command}", f"- created: {run.created}",
             f"- LLM: {run.llm or 'none (offline)'}", f"- verifier: {run.verifier}", f"- status: {run.status}"]
    if run.strategy:
        lines.append(f"- strategy: {run.strategy}")
    best = best_round_of(run, rounds)  # among the accepted, complete rounds: a rejected proposal is never the best
    if rounds:
        lines.append(f"- best round: {best_round_text(best)}")
    judged = any(r.judge_score is not None for r in rounds)
    lines += ["", "| round | score |" + (" judge |" if judged else "") + " units | unsupported or partial | edit (prev) "
              "| kept |", "|---:|---:|" + ("---:|" if judged else "") + "---:|---:|---:|---|"]
    for r in rounds:
        s = "—" if r.score is None else f"{r.score:.3f}"
        j = (" " + ("—" if r.judge_score is None else f"{r.judge_score:.3f}") + " |") if judged else ""
        lines.append(f"| {r.n} | {s} |{j} {r.n_units} | {r.n_unsupported} | "
                     f"{r.edit_prev if r.edit_prev is not None else '—'} | {_kept(r)} |")
    for r in rounds:
        ev = store.evaluation(run_id, r.n)
        lines += ["", f"## Round {r.n}" + ("" if r.is_accepted else f" ({_kept(r)}: not part of the text's history)"), ""]
        if r.comment:
            lines += ["Feedback:", "", "> " + r.comment.replace("\n", "\n> "), ""]
        lines += ["Text ([[+ supported]] [[~ partial]] [[- unsupported]]):", "", marked_plain(ev), ""]
        for label, head in (("unsupported", "Unsupported units:"), ("partial", "Partial units (shown for a look):")):
            units = [u for u in ev.unsupported if getattr(ev.verdict_for(u.id), "label", None) == label]
            if units:
                lines.append(head)
                lines += [f"- {u.text}" for u in units]
    return "\n".join(lines) + "\n"


def _kept(r) -> str:
    """Whether a round is part of the text's history: kept, or a proposal rejected, or a round later reverted."""
    if r.is_accepted:
        return "yes"
    return "rejected" if r.status == "rejected" else "reverted"
