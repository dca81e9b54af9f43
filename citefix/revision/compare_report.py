"""The report of a strategy comparison, from the store alone (a view): the figures per strategy and round
(`collect`), the Markdown tables, the PNG charts and the HTML page (`write_report`), and the runs that did not finish.

Scores per round: a run that stopped early (all supported, unchanged text, …) keeps its last score in later rounds —
its text does not change any more, so neither does its score (last observation carried forward). Every number can be
traced back: report.json names the run behind each case and strategy. The comparison run itself is in
citefix.revision.compare.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from citefix.costs import format_cost, summarise_calls

if TYPE_CHECKING:
    from citefix.store import Store
    from citefix.store.rows import RoundRow


def _lineage_rows(rows: list[RoundRow]) -> list[RoundRow]:
    """The accepted rounds in order (a loop run accepts every round it stores)."""
    acc = [r for r in rows if r.is_accepted]
    return sorted(acc, key=lambda r: r.n)


def _per_round(column: Sequence[float | None], max_rounds: int) -> list[float | None]:
    """One column of the lineage's rounds for rounds 0..max_rounds, the last value carried forward."""
    vals: list[float | None] = []
    last = None
    for k in range(max_rounds + 1):
        if k < len(column):
            v = column[k]
            last = v if v is not None else last
        vals.append(last)
    return vals


def _mean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return sum(xs) / len(xs) if xs else None


def _quantile(xs: list[float], q: float) -> float | None:
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def collect(store: Store, runs_by_strategy: dict[str, list[int]], max_rounds: int) -> dict[str, Any]:
    """Everything the report shows, computed from the store's rows of the listed runs."""
    out: dict[str, Any] = {"max_rounds": max_rounds, "strategies": {}}
    for strategy, run_ids in runs_by_strategy.items():
        per_run: list[dict[str, Any]] = []
        for run_id in run_ids:
            row = _collect_run(store, run_id, max_rounds)
            if row is not None:
                per_run.append(row)
        out["strategies"][strategy] = _strategy_figures(per_run, max_rounds)
    return out


def _collect_run(store: Store, run_id: int, max_rounds: int) -> dict[str, Any] | None:
    """One run's figures (per round, at its best round, its calls and cost); None for a run with no rounds."""
    run = store.run(run_id)
    rows = _lineage_rows(store.rounds(run_id))
    if not rows:
        return None
    all_calls = store.calls(run_id)
    calls = [c for c in all_calls if not c.cached]
    spent = summarise_calls(all_calls)
    best_n = run.best_round if run.best_round is not None else rows[-1].n
    best = next((r for r in rows if r.n == best_n), rows[-1])
    return {
        "run_id": run_id,
        "case_id": store.case_for_run(run_id).id,
        "scores": _per_round([r.score for r in rows], max_rounds),
        "unsupported": _per_round([r.n_unsupported for r in rows], max_rounds),
        "edit_per_round": _per_round([r.edit_orig for r in rows], max_rounds),
        "judge_scores": _per_round([r.judge_score for r in rows], max_rounds),
        "rounds_used": len(rows) - 1,
        "best_round": best.n,
        "best_score": best.score,
        "best_judge_score": best.judge_score,
        "all_supported": bool(best.n_units) and best.n_unsupported == 0,
        "unsupported_before": rows[0].n_unsupported,
        "unsupported_best": best.n_unsupported,
        "edit_orig": best.edit_orig or 0,
        "tokens": sum((c.prompt_tokens or 0) + (c.completion_tokens or 0) for c in calls),
        "calls": len(calls),
        "cached_calls": spent.cached,
        "cost": spent.cost,  # None: a call had no price in litellm's table (unknown, not free)
        "cost_unknown_why": spent.why_unknown,
        "stop_reason": run.stop_reason,
        "status": run.status,
        "edits": _edit_kinds(rows, best_n),
    }


def _strategy_figures(per_run: list[dict[str, Any]], max_rounds: int) -> dict[str, Any]:
    """A strategy's figures over its runs: means and quartiles per round, where runs stopped or failed, totals."""
    n = len(per_run)
    rounds = list(range(max_rounds + 1))
    score_cols = [[r["scores"][k] for r in per_run] for k in rounds]
    judge_cols = [[r["judge_scores"][k] for r in per_run] for k in rounds]
    active = [sum(1 for r in per_run if r["rounds_used"] >= k) for k in rounds]  # runs that reached round k
    # where runs ended before --rounds: a normal early stop (all supported, target, no improvement, unchanged
    # text) or a failure (model error, partial round, interrupted, cancelled), counted at the round they ended on
    stopped_at, failed_at = [0] * (max_rounds + 1), [0] * (max_rounds + 1)
    for r in per_run:
        k = min(r["rounds_used"], max_rounds)
        if _run_failed(r):
            failed_at[k] += 1
        elif r["rounds_used"] < max_rounds:
            stopped_at[k] += 1
    stops: dict[str, int] = {}
    for r in per_run:
        stops[r["stop_reason"] or "?"] = stops.get(r["stop_reason"] or "?", 0) + 1
    return {
        "cases": n,
        "mean_score": [_mean(c) for c in score_cols],
        "q25": [_quantile(c, 0.25) for c in score_cols],
        "q75": [_quantile(c, 0.75) for c in score_cols],
        "mean_judge_score": [_mean(c) for c in judge_cols],
        "mean_unsupported": [_mean([r["unsupported"][k] for r in per_run]) for k in rounds],
        "mean_edit_per_round": [_mean([r["edit_per_round"][k] for r in per_run]) for k in rounds],
        "active_runs": active,
        "stopped_at": stopped_at,
        "failed_at": failed_at,
        "all_supported_before": (sum(r["unsupported_before"] == 0 for r in per_run) / n) if n else None,
        "all_supported": (sum(r["all_supported"] for r in per_run) / n) if n else None,
        "mean_best_score": _mean([r["best_score"] for r in per_run]),
        "mean_edit_distance": _mean([r["edit_orig"] for r in per_run]),
        "mean_rounds_used": _mean([r["rounds_used"] for r in per_run]),
        "mean_tokens": _mean([r["tokens"] for r in per_run]),
        "total_tokens": sum(r["tokens"] for r in per_run),
        "total_calls": sum(r["calls"] for r in per_run),
        "cached_calls": sum(r["cached_calls"] for r in per_run),
        "total_cost": (None if any(r["cost"] is None for r in per_run) else sum(r["cost"] for r in per_run)),
        "cost_unknown_why": next((r["cost_unknown_why"] for r in per_run if r["cost_unknown_why"]), None),
        "stop_reasons": stops,
        "edits_by_kind": {k: sum(r["edits"].get(k, 0) for r in per_run)
                          for k in sorted({k for r in per_run for k in r["edits"]})},
        "runs": per_run,
    }


def _run_failed(r: dict) -> bool:
    """A run that did not finish (failed, interrupted, cancelled, running) or ended on a model failure."""
    from citefix.revision.session import FAILURE_REASONS

    return r.get("status") != "finished" or r.get("stop_reason") in FAILURE_REASONS


def _edit_kinds(rows: list[RoundRow], best_n: int) -> dict[str, int]:
    """Edits by kind (correction, deletion, citation) over the rounds up to the best one, from the stored rounds."""
    from citefix.revision.vocabulary import edits_by_kind

    out: dict[str, int] = {}
    for r in rows:
        if r.n == 0 or r.n > best_n:
            continue
        try:
            edits = json.loads(r.evaluation or "{}").get("metrics", {}).get("edits")
        except (TypeError, ValueError):
            continue
        for k, v in edits_by_kind(edits).items():
            out[k] = out.get(k, 0) + v
    return out


def _f(x, fmt="{:.3f}") -> str:
    return "—" if x is None else fmt.format(x)


def render_markdown(data: dict[str, Any], *, title: str = "Strategy comparison", notes: list[str] | None = None) -> str:
    R = data["max_rounds"]
    strategies = data["strategies"]
    lines = [f"# {title}", ""]
    for n in notes or []:
        lines.append(f"- {n}")
    if notes:
        lines.append("")
    lines += ["## Mean score per round", "",
              "| strategy | cases | " + " | ".join(f"round {k}" for k in range(R + 1)) + " |",
              "|---|---:|" + "---:|" * (R + 1)]
    for s, d in strategies.items():
        lines.append(f"| {s} | {d['cases']} | " + " | ".join(_f(x) for x in d["mean_score"]) + " |")
    if any(any(x is not None for x in d["mean_judge_score"]) for d in strategies.values()):
        lines += ["", "## Mean judge score per round", "",
                  "| strategy | cases | " + " | ".join(f"round {k}" for k in range(R + 1)) + " |",
                  "|---|---:|" + "---:|" * (R + 1)]
        for s, d in strategies.items():
            lines.append(f"| {s} | {d['cases']} | " + " | ".join(_f(x) for x in d["mean_judge_score"]) + " |")
    lines += ["", "## Outcome (best round of each run)", "",
              "| strategy | all supported before | all supported after | mean best score | mean edit distance (words) | "
              "mean rounds | tokens (mean per case) | model calls | answers from the cache | cost | stop reasons |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for s, d in strategies.items():
        stops = ", ".join(f"{k} {v}" for k, v in sorted(d["stop_reasons"].items(), key=lambda kv: -kv[1]))
        lines.append(
            f"| {s} | {_f(d['all_supported_before'], '{:.0%}')} | {_f(d['all_supported'], '{:.0%}')} | "
            f"{_f(d['mean_best_score'])} | {_f(d['mean_edit_distance'], '{:.1f}')} | {_f(d['mean_rounds_used'], '{:.2f}')} | "
            f"{_f(d['mean_tokens'], '{:.0f}')} | {d['total_calls']} | {d.get('cached_calls', 0)} | "
            f"{format_cost(d['total_cost'], d.get('cost_unknown_why'))} | {stops} |")
    if any(d.get("edits_by_kind") for d in strategies.values()):
        kinds = sorted({k for d in strategies.values() for k in d.get("edits_by_kind", {})})
        lines += ["", "## Edits by kind (offline reviser, up to each run's best round)", "",
                  "| strategy | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
        for s_, d in strategies.items():
            lines.append(f"| {s_} | " + " | ".join(str(d.get("edits_by_kind", {}).get(k, 0)) for k in kinds) + " |")
    lines += ["", "Scores of runs that stopped early are carried forward to later rounds. Edit distance: word-level "
              "Levenshtein distance between the original text and the best round's text. Tokens, calls and cost count "
              "model calls not answered from the cache. Runs behind every number: report.json.", ""]
    return "\n".join(lines)


def plot(data: dict[str, Any], path: Path, *, title: str = "Score per round") -> Path:
    """Score against round, one line per strategy (mean) with its interquartile band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    R = data["max_rounds"]
    xs = list(range(R + 1))
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for s, d in data["strategies"].items():
        mean = [float("nan") if v is None else v for v in d["mean_score"]]
        lo = [float("nan") if v is None else v for v in d["q25"]]
        hi = [float("nan") if v is None else v for v in d["q75"]]
        (line,) = ax.plot(xs, mean, marker="o", label=f"{s} (n={d['cases']})")
        ax.fill_between(xs, lo, hi, alpha=0.18, color=line.get_color(), linewidth=0)
    ax.set_xlabel("round")
    ax.set_ylabel("score (mean, band: 25th–75th percentile)")
    ax.set_xticks(xs)
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight")  # the axis labels whole, never clipped
    plt.close(fig)
    return path


def unfinished_runs(store: Store, runs_by_strategy: dict[str, list[int]]) -> list[dict]:
    """The listed runs that did not finish (failed, cancelled, interrupted), with their case id, in run order."""
    from citefix.revision.session import FAILURE_REASONS

    out = []
    for strategy, ids in runs_by_strategy.items():
        for rid in ids:
            row = store.run(rid)
            if row.status != "finished" or row.stop_reason in FAILURE_REASONS:
                case = store.case_for_run(rid)
                out.append({**row.as_dict(), "case_id": case.id, "strategy": strategy})
    return sorted(out, key=lambda r: r["id"])


METRICS = {  # file → (series key, y-axis label, y limits)
    "scores.png": ("mean_score", "score (mean unit support, 0–1; band: 25th–75th percentile)", (0, 1.02)),
    "unsupported.png": ("mean_unsupported", "unsupported or partial units (mean per text)", None),
    "edits.png": ("mean_edit_per_round", "edit distance to the original (words, mean)", None),
}
STOP_MARKS: dict[str, dict[str, Any]] = {  # the round a run ended on before --rounds: a normal early stop, or a failure
    "stopped-here": {"marker": "*", "markersize": 12, "color": "#444444", "markeredgecolor": "black", "zorder": 4},
    "failed-here": {"marker": "X", "markersize": 10, "color": "#d62728", "markeredgecolor": "black", "zorder": 5},
}
STOP_LABELS = {
    "stopped-here": "run(s) stopped early here (all supported, target, no improvement)",
    "failed-here": "run(s) failed or interrupted here (model error, partial round, killed)",
}
STYLES = [("o", "-"), ("s", "--"), ("^", "-."), ("D", ":"), ("v", "-"), ("P", "--")]


def plots(data: dict[str, Any], out_dir: Path, *, title: str = "") -> dict[str, Path]:
    """One PNG per metric (score, unsupported units, edit distance) against round. Each strategy has its own marker
    and line style and a small sideways offset, so overlapping lines stay apart; a round that some runs never reached
    (they stopped early) is drawn with a hollow marker and its count of runs still going is written beside it. The
    round a run ended on before --rounds carries a star (a normal early stop: all supported, target, no improvement)
    or a red cross (failed, partial round, interrupted), each with its count and a legend entry."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: dict[str, Path] = {}
    for fname, (key, ylabel, ylim) in METRICS.items():
        fig = metric_figure(data, key, ylabel, ylim, title=title)
        out_dir.mkdir(parents=True, exist_ok=True)
        fig.savefig(out_dir / fname, bbox_inches="tight")
        plt.close(fig)
        out[fname] = out_dir / fname
    return out


def metric_figure(data: dict[str, Any], key: str, ylabel: str, ylim=None, *, title: str = ""):
    """The figure of one metric (see plots)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    R = data["max_rounds"]
    xs = list(range(R + 1))
    names = list(data["strategies"])
    fig, ax = plt.subplots(figsize=(7.0, 4.4), dpi=120)
    seen: set[str] = set()  # which early-stop marks were drawn: each gets a legend entry
    for i, (s, d) in enumerate(data["strategies"].items()):
        marker, ls = STYLES[i % len(STYLES)]
        shift = (i - (len(names) - 1) / 2) * 0.04
        xx = [x + shift for x in xs]
        ys = [float("nan") if v is None else v for v in d.get(key) or [None] * (R + 1)]
        (line,) = ax.plot(xx, ys, marker=marker, linestyle=ls, label=f"{s} (n={d['cases']})")
        if key == "mean_score":
            lo = [float("nan") if v is None else v for v in d["q25"]]
            hi = [float("nan") if v is None else v for v in d["q75"]]
            ax.fill_between(xx, lo, hi, alpha=0.15, color=line.get_color(), linewidth=0)
        active = d.get("active_runs") or [d["cases"]] * (R + 1)
        for x, y, n in zip(xx, ys, active):
            if n < d["cases"] and y == y:  # some runs stopped before this round: their last value is carried
                ax.plot([x], [y], marker=marker, markersize=9, markerfacecolor="white",
                        markeredgecolor=line.get_color(), linestyle="none", gid="early-stop")
                # each strategy's labels on their own line, so that strategies at one point do not overprint
                ax.annotate(f"{n}/{d['cases']} running", (x, y), textcoords="offset points", xytext=(4, 6 + 8 * i),
                            fontsize=7, color=line.get_color(), gid="label-running")
        for gid, counts in (("stopped-here", d.get("stopped_at")), ("failed-here", d.get("failed_at"))):
            for x, y, c in zip(xx, ys, counts or []):
                if c and y == y:  # c runs ended on this round (before --rounds, or on a failure)
                    ax.plot([x], [y], linestyle="none", gid=gid, label="_nolegend_", **STOP_MARKS[gid])
                    ax.annotate(f"{c} {'failed' if gid == 'failed-here' else 'stopped'}", (x, y),
                                textcoords="offset points", xytext=(4, -11 - 8 * i), fontsize=7,
                                color=STOP_MARKS[gid]["color"], gid=f"label-{gid}")
                    seen.add(gid)
    ax.set_xlabel("round (0 = original text)")
    import textwrap

    ax.set_ylabel("\n".join(textwrap.wrap(ylabel, 34)))  # a long label on two lines: never taller than the axis
    ax.set_xticks(xs)
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_title(title or "Strategy comparison", fontsize=10)
    ax.grid(alpha=0.3)
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    for gid in ("stopped-here", "failed-here"):
        if gid in seen:
            handles.append(Line2D([], [], linestyle="none", **STOP_MARKS[gid]))
            labels.append(STOP_LABELS[gid])
    ax.legend(handles, labels, loc="best", fontsize=8, title="hollow: runs stopped early, last value carried",
              title_fontsize=7)
    fig.tight_layout()
    return fig


def write_report(store: Store, runs_by_strategy: dict[str, list[int]], max_rounds: int, out_dir: str | Path, *,
                 notes: list[str] | None = None, title: str = "") -> dict[str, Path]:
    """report.md, report.json, one PNG per metric (scores.png, unsupported.png, edits.png) and report.html (the
    same tables and charts, self-contained) in out_dir, from the store alone."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = collect(store, runs_by_strategy, max_rounds)
    md = out / "report.md"
    text = render_markdown(data, notes=notes)
    unfinished = unfinished_runs(store, runs_by_strategy)
    if unfinished:  # failed is not finished: say so first, before any mean that these runs are part of
        head, _, rest = text.partition("\n")
        block = [f"**{len(unfinished)} run(s) did not finish** (their scores below stop where they stopped; rerun the "
                 "same command to retry them):", ""]
        block += [f"- run {r['id']} ({r['case_id']}, {r['strategy']}): {r['status']}, {r.get('stop_reason') or '—'}"
                  for r in unfinished]
        text = head + "\n\n" + "\n".join(block) + "\n" + rest if head.startswith("#") else "\n".join(block) + "\n\n" + text
    md.write_text(text, encoding="utf-8")
    js = out / "report.json"
    js.write_text(json.dumps({**data, "store": str(store.path), "notes": notes or []}, indent=2, ensure_ascii=False),
                  encoding="utf-8")
    pngs = plots(data, out, title=title)
    from citefix.html_report import render_compare_html

    page = out / "report.html"
    page.write_text(render_compare_html(md.read_text(encoding="utf-8"), pngs, title=title or "Strategy comparison"),
                    encoding="utf-8")
    return {"markdown": md, "json": js, "plot": pngs["scores.png"], "html": page,
            **{name.removesuffix(".png"): p for name, p in pngs.items() if name != "scores.png"}}
