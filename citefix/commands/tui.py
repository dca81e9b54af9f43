"""`citefix tui`: the terminal UI. Parses arguments here; Textual is imported only when the command runs."""

from __future__ import annotations

from citefix.errors import InputError


def register(sub) -> None:
    from citefix.commands.common import add_common

    p = sub.add_parser(
        "tui",
        help="open the terminal UI: see what is unsupported and fix it round by round",
        description="Open a case (or a stored run) in the terminal UI. With neither, a start screen lists recent runs.",
    )
    p.add_argument("path", nargs="?", help="case file (.json or .jsonl)")
    p.add_argument("--run", type=int, metavar="RUN", help="reopen a stored run (from check, refine or the TUI)")
    p.add_argument("--case", type=int, metavar="N",
                   help="which case of a multi-case file (1-based; without it the TUI lists the cases to pick from)")
    p.add_argument("--example", nargs="?", const="summary", choices=("summary", "cited_answer"),
                   help="open a bundled example: summary (the default) or cited_answer")
    p.add_argument("--strategy", help="refinement feedback strategy (acu, critique, none, citation)")
    p.add_argument("--judge-llm", help="a second model that scores refinement rounds")
    add_common(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.path and args.run is not None:
        raise InputError("give a case file or --run RUN, not both")
    if args.case is not None and args.case < 1:
        raise InputError("--case counts from 1")
    path = args.path
    if args.example:
        from citefix.inputs import example_path

        path = example_path(args.example)
    if getattr(args, "dry_run", False):
        raise InputError("--dry-run counts the model calls of `citefix check` and `citefix refine`; the TUI makes its "
                         "calls one job at a time: run `citefix check CASE --dry-run` (or refine) to count them")
    settings = tui_settings(args)
    from citefix.commands.common import apply_budget

    apply_budget(args, settings)  # --max-cost: a job that would pass it stops with the message, its rounds kept
    from citefix.tui.app import CitefixApp  # Textual loads here, never at `citefix --help`

    # the store opens in a worker after the first paint (the app reports a bad --db as a notification)
    app = CitefixApp(settings, path=path, run_id=args.run, case_index=None if args.case is None else args.case - 1)
    app.run()
    rc = int(app.return_code or 0)
    leave_at_once(app, rc)
    return rc


def tui_settings(args):
    """The settings the TUI opens with: every option it shares with check and refine (the model-call settings,
    granularity and aggregation as well), over the environment and the config file."""
    from citefix.commands.common import llm_options
    from citefix.config import load_settings

    return load_settings(llm=args.llm, verifier=args.verifier, decomposer=args.decomposer, strategy=args.strategy,
                         judge_llm=args.judge_llm, concurrency=args.concurrency, db=args.db,
                         cache=False if args.no_cache else None, acu_granularity=args.acu_granularity,
                         aggregation=args.aggregation, **llm_options(args))


def leave_at_once(app, rc: int) -> None:
    """End the process as soon as the TUI has closed (`q` ≤ 0.5 s even while a check runs).

    Everything the TUI stores is committed when it is written (the run was marked finished or interrupted on the way
    out), so nothing is lost by skipping the interpreter's teardown: with torch and spaCy loaded that teardown takes
    0.7–1.2 s on a small machine, and a job still running in its (daemon) thread could only slow it. The store is
    closed first unless a job thread may still be using it. CITEFIX_TUI_SLOW_EXIT=1 keeps the ordinary exit."""
    import os
    import sys
    import threading

    if os.environ.get("CITEFIX_TUI_SLOW_EXIT") or threading.current_thread() is not threading.main_thread():
        return
    busy = any(t.name.startswith("citefix-") and t.is_alive() for t in threading.enumerate())
    bench = getattr(app, "bench", None)
    if bench is not None and bench.store_opened and not busy:
        try:
            bench.store.close()
        except Exception:  # already closed, or closing fails: the data is committed either way
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(rc)
