"""`citefix runs`, `citefix show`, `citefix export`: everything here is read from the store alone."""

from __future__ import annotations

import difflib
import json
import sys
from typing import TYPE_CHECKING

from citefix.export import export_run
from citefix.store.rows import best_round_of, best_round_text

if TYPE_CHECKING:
    from citefix.store import Store
    from citefix.store.rows import RoundRow


_MAX_ID = 2**63 - 1  # SQLite's largest integer


def run_id(text: str) -> int:
    """A run id as the store holds it: a whole number from 1 to SQLite's largest integer."""
    import argparse

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a run id: give a whole number (see `citefix runs`)") from None
    if not 1 <= n <= _MAX_ID:
        raise argparse.ArgumentTypeError(f"{text} is not a run id: run ids go from 1 to {_MAX_ID} (see `citefix runs`)")
    return n


def register(sub) -> None:
    p = sub.add_parser("runs", help="list stored runs", description="List stored runs, newest first.")
    p.add_argument("--case", help="filter by case id (substring)")
    p.add_argument("--strategy", help="filter by refinement strategy")
    p.add_argument("--model", help="filter by LLM, judge or verifier")
    p.add_argument("--command", dest="cmd", choices=("check", "refine", "compare", "tui"),
                   help="filter by the command that made the run")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.add_argument("--db")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("show", help="reprint a stored run", description="Reprint a run's report from the store.")
    p.add_argument("run", type=run_id)
    p.add_argument("--round", type=int, help="which round (default: the run's best; round 0 is the original text)")
    p.add_argument("--diff", nargs="*", type=int, metavar="N",
                   help="show the text diff between two rounds (default: first and last)")
    p.add_argument("--rounds", action="store_true", help="list the run's rounds with their scores")
    p.add_argument("--json", action="store_true")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--db")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", help="export a run as JSON, Markdown or a self-contained HTML report")
    p.add_argument("run", type=run_id)
    p.add_argument("--format", choices=("json", "md", "html"), default="json")
    p.add_argument("--out", help="write to this file instead of standard output")
    p.add_argument("--db")
    p.set_defaults(func=cmd_export)


def _store(args) -> Store:
    """The store, opened read-only: these commands never create a file or folder, nor migrate."""
    from citefix.config import load_settings
    from citefix.store import Store

    store = Store(load_settings(db=args.db).db, readonly=True)
    if store.upgraded:
        print(f"citefix: upgraded the store at {store.path} to this version of citefix ({len(store.upgraded)} "
              f"schema change{'s' if len(store.upgraded) != 1 else ''}: {', '.join(store.upgraded)})", file=sys.stderr)
    return store


def cmd_runs(args) -> int:
    from citefix.config import load_settings
    from citefix.store import default_db_path

    path = default_db_path(load_settings(db=args.db).db)
    if not path.exists() and not args.json:
        print(f"no runs in {path} (no store there yet)")
        return 0
    if not path.exists():
        return 0
    store = _store(args)
    rows = store.list_runs(case=args.case, strategy=args.strategy, model=args.model, command=args.cmd, limit=args.limit)
    if args.json:
        for r in rows:
            print(json.dumps(r.as_dict()))
        return 0
    if not rows:
        print(f"no runs in {store.path}")
        return 0
    print(f"{'run':>5}  {'created':<25} {'command':<7} {'case':<28} {'kind':<12} {'rounds':>6} {'first':>6} {'last':>6}  {'status':<11} model/verifier")
    for r in rows:
        f = lambda x: "—" if x is None else f"{x:.2f}"  # noqa: E731
        who = r.llm or r.verifier or ""
        strat = f" [{r.strategy}]" if r.strategy else ""
        print(f"{r.id:>5}  {r.created:<25} {r.command:<7} {r.case_id[:28]:<28} {r.kind:<12} {r.n_rounds:>6} "
              f"{f(r.first_score):>6} {f(r.last_score):>6}  {r.status:<11} {who}{strat}")
    return 0


def diff_text(a: str, b: str, label_a: str, label_b: str) -> str:
    """A word-level unified diff: changed words as [-old-]{+new+}."""
    sm = difflib.SequenceMatcher(a=a.split(), b=b.split(), autojunk=False)
    out = []
    wa, wb = a.split(), b.split()
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.append(" ".join(wa[i1:i2]))
        if op in ("delete", "replace"):
            out.append("[-" + " ".join(wa[i1:i2]) + "-]")
        if op in ("insert", "replace"):
            out.append("{+" + " ".join(wb[j1:j2]) + "+}")
    return f"--- {label_a}\n+++ {label_b}\n" + " ".join(x for x in out if x)


def _edits_note(row: RoundRow) -> str:
    """ "  edits: correction 1, deletion 2" for a round revised offline (from its stored evaluation)."""
    from citefix.revision.vocabulary import edits_by_kind

    try:
        edits = json.loads(row.evaluation or "{}").get("metrics", {}).get("edits")
    except (TypeError, ValueError):
        return ""
    kinds = edits_by_kind(edits)
    return ("  edits: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))) if kinds else ""


def cmd_show(args) -> int:
    from citefix.report import render, to_json

    store = _store(args)
    run = store.run(args.run)
    rows = store.rounds(args.run)
    if not rows:  # cancelled, killed or failed before its first round was stored: say so, in the form asked for
        message = (f"run {args.run} has no stored round: it is {run.status} ({run.stop_reason or 'no reason stored'}) "
                   "and no round was checked to the end")
        print(json.dumps({"run_id": args.run, "status": run.status, "stop_reason": run.stop_reason, "rounds": [],
                          "message": message}) if args.json else message)
        return 0
    if args.diff is not None:
        ns = args.diff or [rows[0].n, rows[-1].n]
        if len(ns) != 2:
            from citefix.errors import InputError

            raise InputError("--diff takes two round numbers (or none for first vs last)")
        by_n = {r.n: r for r in rows}
        missing = [n for n in ns if n not in by_n]
        if missing:
            from citefix.errors import InputError

            raise InputError(f"run {args.run} has no round {missing[0]}; it has rounds {sorted(by_n)}")
        print(diff_text(by_n[ns[0]].text, by_n[ns[1]].text, f"round {ns[0]}", f"round {ns[1]}"))
        return 0
    best = best_round_of(run, rows)
    if args.rounds:
        from citefix.costs import format_cost, summarise_calls

        calls = store.calls(args.run)
        for r in rows:
            s = "—" if r.score is None else f"{r.score:.2f}"
            judge = f"  judge {r.judge_score:.2f}" if r.judge_score is not None else ""
            parent = f"  from round {r.parent}" if r.parent is not None else ""
            kept = "" if r.accepted in (None, 1) else "  (not accepted)"
            spent = summarise_calls(c for c in calls if c.round_id == r.id)
            cost = f"  cost {format_cost(r.cost, spent.why_unknown or 'no price for a model')}" if (
                r.cost is None or r.cost) else ""
            mark = "  <- best" if r.n == best else ""
            print(f"round {r.n}: score {s}{judge}  unsupported or partial {r.n_unsupported}  edit(prev) {r.edit_prev}  "
                  f"{r.status}{parent}{kept}{_edits_note(r)}{cost}{mark}")
        print(f"best round: {best_round_text(best)}")
        return 0
    n = args.round if args.round is not None else (best if best is not None else rows[-1].n)
    ev = store.evaluation(args.run, n)
    if args.json:
        print(to_json(ev, run_id=args.run, store_path=str(store.path)))
        return 0
    row = next((r for r in rows if r.n == n), rows[-1] if rows else None)
    shown = row.n if row else None
    note = None
    if shown is not None and best is None:
        note = f"Round {shown}: no round of this run was checked completely (a model failed); it is not a result"
    elif len(rows) > 1 and shown is not None:
        which = "the best round" if shown == best else ("the round asked for; the best is round %s" % best)
        note = f"Round {shown} of rounds 0–{rows[-1].n} ({which}; another: citefix show {args.run} --round N)"
    calls = [c for c in store.calls(args.run) if row is not None and c.round_id == row.id]
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    sys.stdout.write(render(ev, run=run, store_path=str(store.path), color=color, calls=calls, round_note=note) + "\n")
    return 0


def cmd_export(args) -> int:
    store = _store(args)
    text = export_run(store, args.run, args.format)
    if args.out:
        from pathlib import Path

        from citefix.errors import InputError

        out = Path(args.out)
        if out.is_dir():
            raise InputError(f"--out {args.out}: is a folder; give a file path, e.g. --out {out / f'run-{args.run}.{args.format}'}")
        try:
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise InputError(f"--out {args.out}: cannot write it ({exc.strerror}); check the folder exists and is writable") from exc
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
