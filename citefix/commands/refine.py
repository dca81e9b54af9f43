"""`citefix refine` and `citefix compare`: fix a text round by round, and compare feedback strategies.

citefix refine CASES... [--strategy acu|critique|none|citation] [--rounds N] [--target S] [--patience N]
               [--reviser auto|llm|offline] [--judge-llm M] [--judge-verifier V] [--out FILE] [--json] [--limit N]
citefix refine --resume RUN [--rounds N ...]
citefix compare CASES.jsonl --strategies acu,none [--rounds N] --report DIR [--seed N] [--limit N]
                [--executor local|ray] [--ray-workers N] [--ray-address ADDR]

Progress goes to standard error; with --json, standard output carries one JSON object per event
(round_started, units_scored, revision_proposed, run_finished), each with "event", "run_id" and "case_id".

Exit codes (refine): 0 every run finished (whatever its stop reason: all supported, target, rounds, patience,
unchanged text, nothing more to delete); 1 --fail-under S was given and a run's best score is below S; 2 a user error
(bad input or configuration: one line on stderr names the problem and the fix); 3 a run ended on a model failure
(evaluation error, an LLM error after retries, an empty or refused revision; its completed rounds are stored);
130 interrupted (Ctrl-C): completed rounds are stored, and `citefix refine --resume RUN` continues.
Exit codes (compare): 0 the report was written; 2 a user error; 130 interrupted (rerun the same command: finished
runs are reused, unfinished ones resumed).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from citefix.config import DEFAULT_PATIENCE, DEFAULT_ROUNDS
from citefix.errors import EXIT_MODEL_FAILURE, InputError
from citefix.store.rows import NO_BEST

JSON_EVENTS = ("round_started", "units_scored", "revision_proposed", "run_finished")


def register(sub) -> None:
    from citefix.commands.common import add_common
    from citefix.revision.feedback import available_strategies

    strategies = ", ".join(available_strategies())
    p = sub.add_parser(
        "refine",
        help="fix a summary or cited answer round by round",
        description="Refine a text until its sources support it: feedback → revision → check, every round stored.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  citefix refine case.json --llm openai/gpt-4o-mini --strategy acu --rounds 3 --out revised.txt\n"
               "  citefix refine case.json --strategy critique --judge-llm ollama/qwen2.5:14b\n"
               "  citefix refine --example summary            # offline: the deletion-only reviser\n"
               "  citefix refine --resume 42                  # continue an interrupted run\n\n"
               "exit codes: 0 finished; 1 --fail-under not met; 2 user error; 3 model failure; 130 interrupted",
    )
    p.add_argument("inputs", nargs="*", help="case files (.json or .jsonl); '-' reads standard input")
    p.add_argument("--source", action="append", default=[], help="source document (text file); repeatable")
    p.add_argument("--summary", help="summary text file, refined against --source")
    p.add_argument("--example", choices=("summary", "cited_answer"), help="refine a bundled example")
    p.add_argument("--limit", type=int, help="refine at most N cases from the files")
    p.add_argument("--resume", type=int, metavar="RUN", help="continue a stored run (case and settings from the store)")
    p.add_argument("--strategy", help=f"feedback strategy: {strategies} (default acu)")
    p.add_argument("--rounds", type=int, help=f"at most N revision rounds (default {DEFAULT_ROUNDS})")
    p.add_argument("--target", type=float, help="stop when the score reaches S")
    p.add_argument("--patience", type=int, help=f"stop after N rounds without a better score (default {DEFAULT_PATIENCE}; 0 = off)")
    p.add_argument("--reviser", choices=("auto", "llm", "offline"),
                   help="who writes revisions: the LLM, or the offline deletion-only reviser (default: llm if --llm)")
    p.add_argument("--judge-llm", help="score every round also with this model (a second opinion; both scores kept)")
    p.add_argument("--judge-verifier", help="score every round also with this verifier (offline, nli:<model>, llm, …)")
    p.add_argument("--out", help="write the best round's text here (several cases: one JSON object per line)")
    p.add_argument("--json", action="store_true", help="one JSON line per event on standard output")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report of the run (rounds, diff)")
    p.add_argument("--fail-under", type=float, metavar="SCORE", help="exit 1 if a run's best score is below SCORE")
    add_common(p)
    p.set_defaults(func=cmd_refine)

    p = sub.add_parser(
        "compare",
        help="compare feedback strategies over many cases",
        description="Run each strategy on each case (finished runs are reused from the store) and write a report: "
                    "a Markdown table of scores per round and outcomes, and a plot of score against round.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  citefix compare cases.jsonl --strategies acu,critique,none --rounds 3 --report out/ --llm openai/gpt-4o-mini\n"
               "  citefix compare xsumfaith.jsonl --strategies acu,none --limit 20 --seed 1 --report out/   # offline\n"
               "  citefix compare cases.jsonl --strategies acu,none --report out/ --executor ray   # runs on Ray workers",
    )
    p.add_argument("inputs", nargs="+", help="case files (.json or .jsonl)")
    p.add_argument("--strategies", default="acu,none", help=f"comma-separated, from: {strategies} (default acu,none)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help=f"revision rounds per run (default {DEFAULT_ROUNDS})")
    p.add_argument("--target", type=float, help="stop a run when its score reaches S")
    p.add_argument("--patience", type=int, default=0, help="stop a run after N rounds without improvement (default 0 = off)")
    p.add_argument("--reviser", choices=("auto", "llm", "offline"), help="default: llm when --llm is given, else offline")
    p.add_argument("--judge-llm", help="score every round also with this model")
    p.add_argument("--judge-verifier", help="score every round also with this verifier")
    p.add_argument("--report", required=True, metavar="DIR", help="write report.md, report.json and scores.png here")
    p.add_argument("--seed", type=int, help="shuffle the cases with this seed before --limit")
    p.add_argument("--limit", type=int, help="use at most N cases")
    add_common(p)
    from citefix.executor import add_executor_options

    add_executor_options(p)
    p.set_defaults(func=cmd_compare)


# --- shared set-up ------------------------------------------------------------------------------------------------------


def _run_settings(args, saved: dict[str, Any] | None = None, *, loop: bool = True):
    """The command line (over a stored run's settings, when resuming) → RunSettings (citefix.pipeline)."""
    from citefix.commands.common import llm_options
    from citefix.pipeline import RunSettings

    return RunSettings.load(
        saved=saved, llm=args.llm, judge_llm=args.judge_llm, verifier=args.verifier, decomposer=args.decomposer,
        strategy=getattr(args, "strategy", None), acu_granularity=args.acu_granularity, aggregation=args.aggregation,
        reviser=args.reviser, judge_verifier=args.judge_verifier, rounds=args.rounds if loop else None,
        target=args.target if loop else None, patience=args.patience if loop else None, concurrency=args.concurrency,
        db=args.db, cache=False if args.no_cache else None, llm_options=llm_options(args, saved))


class HumanProgress:
    """Progress on stderr: a bar per round on a terminal (rich), plain lines otherwise."""

    STAGES = ("feedback", "revise", "evaluate", "judge")

    def __init__(self, stream=None, *, max_rounds: int | None = None, prefix: str = ""):
        self.stream = stream or sys.stderr
        self.max_rounds = max_rounds
        self.prefix = prefix
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._progress: Any = None  # a rich Progress while a bar shows
        self._task = None

    def _line(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text, highlight=False, markup=False)
        else:
            print(self.prefix + text, file=self.stream, flush=True)

    def _bar(self, n: int) -> None:
        if not self.tty:
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self._stop_bar()
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[stage]}"),
                                  console=Console(file=self.stream), transient=True)
        self._progress.start()
        label = f"round {n}" + (f"/{self.max_rounds}" if self.max_rounds else "")
        self._task = self._progress.add_task(self.prefix + label, total=len(self.STAGES) if n else 2, stage="")

    def _stop_bar(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    _scored_line: tuple[Any, str] | None = None  # (round, its score line) until the round is stored

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        n = data.get("round")
        if event == "round_started" and n == 0:
            self._bar(0)
        elif event == "progress" and self._progress is not None and self._task is not None:
            stage = data.get("stage", "")
            if data.get("step") in (None, "decompose_started") and stage in self.STAGES:
                self._progress.update(self._task, advance=1, stage=stage)
        elif event == "progress" and data.get("stage") == "feedback" and n:
            self._bar(n)
        elif event == "units_scored":
            self._stop_bar()
            s = "—" if data.get("score") is None else f"{data['score']:.3f}"
            j = f", judge {data['judge_score']:.3f}" if data.get("judge_score") is not None else ""
            reuse = ""
            if data.get("reused"):
                reuse = f"; {data['reused']} of {data['reused'] + (data.get('verified') or 0)} verdicts reused"
            extra = f" ({data['message']})" if data.get("message") and data.get("status") != "ok" else ""
            # said once the round is stored: an interrupt between the two must not leave a line for a lost round
            self._scored_line = (n, f"round {n}: score {s}{j}; {data.get('n_unsupported')} of {data.get('n_units')} "
                                    f"units unsupported or partial{reuse}{extra}")
            if data.get("status") == "partial":  # the checked units' mean is no score of the text
                self._scored_line = (n, f"round {n}: no score, {data.get('message')}")
        elif event == "round_stored":
            if self._scored_line is not None and self._scored_line[0] == n:
                self._line(self._scored_line[1])
            self._scored_line = None
        elif event == "revision_proposed":
            if data.get("text") is None:
                self._stop_bar()
                self._line(f"round {n}: no revision — {data.get('reason')}: {data.get('message') or ''}".rstrip(": "))
            else:
                self._line(f"round {n}: revised ({data.get('edit_prev')} words changed)")
        elif event == "run_finished":
            self._stop_bar()
            s = "—" if data.get("best_score") is None else f"{data['best_score']:.3f}"
            best = NO_BEST if data.get("best_round") is None else f"{data.get('best_round')} (score {s})"
            self._line(f"run {data.get('run_id')} {data.get('status')}: {data.get('stop_reason')}; best round {best}")


def _json_events(event: str, data: dict[str, Any]) -> None:
    if event in JSON_EVENTS:
        print(json.dumps({"event": event, **data}, ensure_ascii=False, default=str), flush=True)


# --- refine ---------------------------------------------------------------------------------------------------------------


def cmd_refine(args) -> int:
    from citefix.store import Store

    if args.resume is not None and (args.inputs or args.summary or args.source or args.example):
        raise InputError("--resume continues a stored run: give no case files with it")
    if args.rounds is not None and args.rounds < 0:
        raise InputError("--rounds must be 0 or more")
    if args.out and Path(args.out).is_dir():  # say so before any work is done
        raise InputError(f"--out {args.out}: is a folder; give a file path, e.g. --out {Path(args.out) / 'revised.txt'}")
    saved: dict[str, Any] = {}
    jobs: list[tuple[Any, str | None]] = []
    if args.resume is None:
        from citefix.inputs import gather_cases

        jobs = gather_cases(args)  # validate inputs before loading any model
    else:
        from citefix.config import load_settings
        from citefix.pipeline import stored_settings

        probe = Store(load_settings(db=args.db).db, readonly=True)
        saved = stored_settings(probe, args.resume)
        probe.close()
    run = _run_settings(args, saved)
    settings = run.settings
    if args.dry_run:
        return _refine_dry_run(args, run, jobs)
    from citefix.commands.common import apply_budget

    budget = apply_budget(args, settings)
    store = Store(settings.db)
    results = _refine_all(args, run, store, jobs, budget)
    _refine_outputs(args, store, results)
    return _refine_exit(args, results, budget)


def _refine_dry_run(args, run, jobs: list[tuple[Any, str | None]]) -> int:
    """--dry-run: the model calls, tokens and cost the runs would take; nothing is called or stored."""
    if args.resume is not None:
        raise InputError("--dry-run estimates new runs; give case files, not --resume")
    from citefix.estimate import Estimate, estimate_refine

    settings = run.settings
    total = Estimate()
    rounds = args.rounds if args.rounds is not None else DEFAULT_ROUNDS
    for case, _ in jobs:
        total.merge(estimate_refine(case, settings, strategy=run.strategy, rounds=rounds,
                                    reviser=run.reviser, judge_llm=settings.judge_llm,
                                    judge_verifier=run.judge_verifier))
    print(json.dumps({"dry_run": total.as_dict(), "cases": len(jobs)}) if args.json
          else f"{total.line()} ({len(jobs)} case(s), up to {rounds} rounds)")
    return 0


def _refine_all(args, run, store, jobs: list[tuple[Any, str | None]], budget) -> list:
    """The stored run resumed, or each case refined in turn (until --max-cost is reached); their results."""
    from citefix.pipeline import build_run_pipeline
    from citefix.revision.parts import StopRules
    from citefix.revision.session import refine

    pipeline = build_run_pipeline(run, store)
    max_rounds = run.max_rounds
    on_event = _json_events if args.json else HumanProgress(max_rounds=max_rounds)
    strategy = run.strategy
    rules = StopRules(max_rounds=max_rounds, target=run.target, patience=run.patience)
    results = []
    if args.resume is not None:
        if not args.json:
            print(f"resuming run {args.resume} ({len(store.rounds(args.resume))} rounds stored)", file=sys.stderr)
        kind = store.case_for_run(args.resume).kind
        results.append(refine(None, pipeline.parts_for(kind, store), store=store, rules=rules, record=pipeline.record(),
                              resume_run=args.resume, on_event=on_event))
    else:
        for i, (case, path) in enumerate(jobs, 1):
            if not args.json:
                head = f"[{i}/{len(jobs)}] " if len(jobs) > 1 else ""
                print(f"{head}refining {case.id} ({strategy}, up to {max_rounds} rounds)", file=sys.stderr)
            results.append(refine(case, pipeline.parts_for(case.kind, store), store=store, rules=rules,
                                  record=pipeline.record(input_path=str(path)), on_event=on_event))
            if budget is not None and budget.reached:
                break
    return results


def _refine_outputs(args, store, results) -> None:
    """What the runs cost (stderr), their HTML reports (--html), the best texts (--out, or stdout for one run)."""
    if not args.json:
        from citefix.costs import summarise_calls

        for r in results:
            spent = summarise_calls(store.calls(r.run_id)) if r.run_id is not None else None
            if spent is not None and spent.calls:
                print(f"run {r.run_id}: {spent.line()}", file=sys.stderr)
    if args.html:
        from citefix.html_report import html_path, write_run_html

        for r in results:
            if r.run_id is not None:
                out = write_run_html(store, r.run_id, html_path(args.html, r.run_id, len(results) > 1))
                print(f"citefix: wrote {out}", file=sys.stderr)
    if args.out:
        _write_out(args.out, results)
        if not args.json:
            print(f"wrote {args.out}", file=sys.stderr)
    elif not args.json and len(results) == 1:
        print(results[0].best_text)


def _refine_exit(args, results, budget) -> int:
    """The exit code (see the module docstring), its reason on stderr."""
    if budget is not None and budget.reached:
        print(f"citefix: {budget.message()}", file=sys.stderr)
        return EXIT_MODEL_FAILURE
    if any(r.failed for r in results):
        bad = next(r for r in results if r.failed)
        print(f"citefix: run {bad.run_id} ended on {bad.stop_reason}: {bad.message or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_MODEL_FAILURE
    if args.fail_under is not None and any(r.best_score is None or r.best_score < args.fail_under for r in results):
        print(f"citefix: a best score is below --fail-under {args.fail_under}", file=sys.stderr)
        return 1
    return 0


def _write_out(path: str, results) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            if len(results) == 1:
                f.write(results[0].best_text.rstrip("\n") + "\n")
            else:
                for r in results:
                    f.write(json.dumps({"id": r.case_id, "run_id": r.run_id, "best_round": r.best_round,
                                        "score": r.best_score, "stop_reason": r.stop_reason, "text": r.best_text},
                                       ensure_ascii=False) + "\n")
    except OSError as exc:
        raise InputError(f"--out {path}: cannot write it ({exc.strerror or exc}); pick another path") from exc


# --- compare --------------------------------------------------------------------------------------------------------------


def cmd_compare(args) -> int:
    from citefix.executor import check_options, make_evaluator
    from citefix.revision.compare import run_compare
    from citefix.store import Store

    check_options(args)  # --executor ray: Ray installed, no --max-cost
    strategies = _compare_strategies(args)
    cases = _compare_cases(args)
    run = _run_settings(args, loop=False)
    settings = run.settings
    if "critique" in strategies and not settings.llm:
        raise InputError("strategy 'critique' needs an LLM to write the critique: pass --llm MODEL or drop it")
    if args.dry_run:
        return _compare_dry_run(args, settings, cases, strategies)
    from citefix.commands.common import apply_budget

    budget = apply_budget(args, settings)
    store = Store(settings.db)
    from citefix.pipeline import build_run_pipeline

    pipeline = build_run_pipeline(run, store)

    bar = _CompareBar(len(cases) * len(strategies))
    cancel = threading.Event()
    on_run = _compare_on_run(bar, budget, cancel)
    # --executor ray: new runs are refined on Ray workers and imported here; unfinished runs are resumed here
    evaluator = make_evaluator(args, settings)
    try:
        result = run_compare(cases, strategies=strategies, store=store,
                             make_parts=lambda strategy, case: pipeline.parts_for(case.kind, store, strategy),
                             settings=pipeline.record().settings, base_signature=pipeline.compare_signature(),
                             max_rounds=args.rounds, target=args.target, patience=args.patience or None, on_run=on_run, cancel=cancel,
                             input_path=",".join(args.inputs), evaluator=evaluator,
                             remote_spec={"reviser": run.reviser, "judge_verifier": run.judge_verifier})
    finally:
        bar.close()
        if evaluator is not None:
            evaluator.close()
    _write_compare_report(args, settings, pipeline, store, result, len(cases))
    return _compare_exit(store, result, budget)


def _compare_strategies(args) -> list[str]:
    """--strategies as a list (order kept, repeats dropped), each a known strategy; --rounds at least 1."""
    from citefix.revision.feedback import available_strategies

    strategies = list(dict.fromkeys(s.strip() for s in args.strategies.split(",") if s.strip()))
    unknown = [s for s in strategies if s not in available_strategies()]
    if not strategies or unknown:
        raise InputError(f"unknown strategy {unknown[0]!r}" if unknown else "--strategies is empty"
                         f"; use a comma-separated list from {', '.join(available_strategies())}")
    if args.rounds < 1:
        raise InputError("--rounds must be at least 1")
    return strategies


def _compare_cases(args) -> list:
    """The --report folder checked (and made, unless --dry-run), then the cases read, shuffled and limited."""
    from citefix.inputs import load_cases
    from citefix.revision.compare import select_cases

    report_dir = Path(args.report)
    if report_dir.exists() and not report_dir.is_dir():
        raise InputError(f"--report {args.report}: is a file; give a folder for report.md, report.json and scores.png")
    if not args.dry_run:  # a dry run creates nothing
        try:
            report_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--report {args.report}: cannot make the folder ({exc.strerror or exc}); give another "
                             "path") from exc
    cases = []
    for path in args.inputs:
        cases += load_cases(path)
    cases = select_cases(cases, seed=args.seed, limit=args.limit)
    if not cases:
        raise InputError("no cases to compare on (check --limit)")
    return cases


def _compare_dry_run(args, settings, cases: list, strategies: list[str]) -> int:
    """--dry-run: the model calls, tokens and cost of every run; nothing is called or stored."""
    from citefix.estimate import Estimate, estimate_refine

    total = Estimate()
    for case in cases:
        for strategy in strategies:
            total.merge(estimate_refine(case, settings, strategy=strategy, rounds=args.rounds, reviser=args.reviser,
                                        judge_llm=settings.judge_llm, judge_verifier=args.judge_verifier))
    print(f"{total.line()} ({len(cases)} cases × {len(strategies)} strategies, up to {args.rounds} rounds; "
          "finished runs in the store would be reused)")
    return 0


def _compare_on_run(bar: _CompareBar, budget, cancel: threading.Event):
    """The callback after each run: a line on the bar; at --max-cost, ``cancel`` set so no further run starts."""

    def on_run(i, total, case, strategy, res, reused) -> None:
        if reused:
            bar.line(f"[{i}/{total}] {case.id} · {strategy}: reused run {res.id} ({res.stop_reason})")
        else:
            rounds = res.rounds
            first = rounds[0]["score"] if rounds else None
            f = lambda x: "—" if x is None else f"{x:.3f}"  # noqa: E731
            bar.line(f"[{i}/{total}] {case.id} · {strategy}: {f(first)} → {f(res.best_score)} "
                     f"(best round {res.best_round}, {res.stop_reason}) run {res.run_id}")
        bar.advance()
        if budget is not None and budget.reached:
            cancel.set()  # --max-cost: no further run; the report covers what was done

    return on_run


def _write_compare_report(args, settings, pipeline, store, result, n_cases: int) -> None:
    """report.md (also printed), report.json and scores.png in --report, with the settings as notes."""
    from citefix.revision.compare_report import write_report

    reviser, judge = pipeline.reviser_name, pipeline.judge
    notes = [f"cases: {n_cases} from {', '.join(args.inputs)}" + (f" (seed {args.seed})" if args.seed is not None else "")
             + (f", limit {args.limit}" if args.limit is not None else ""),
             f"LLM: {settings.llm or 'none (offline)'}; reviser: {_reviser_name(reviser, pipeline)}; "
             f"verifier: {pipeline.verifier.name}; judge: "
             f"{judge.name if judge is not None else 'none'}",
             f"rounds: {args.rounds}; target: {args.target if args.target is not None else 'none'}; patience: "
             f"{args.patience or 'off'}",
             f"store: {store.path}"]
    title = (f"{', '.join(Path(p).name for p in args.inputs)} · LLM {settings.llm or 'none (offline)'} · verifier "
             f"{pipeline.verifier.name} · {n_cases} cases")
    paths = write_report(store, result.by_strategy(), args.rounds, args.report, notes=notes, title=title)
    print(paths["markdown"].read_text(encoding="utf-8"))
    print(f"wrote {', '.join(str(p) for k, p in paths.items())}", file=sys.stderr)


def _compare_exit(store, result, budget) -> int:
    """3 when --max-cost stopped the comparison or a run did not finish (each named on stderr), else 0."""
    code = 0
    if budget is not None and budget.reached:
        print(f"citefix: {budget.message()}; the report covers the runs done", file=sys.stderr)
        code = 3
    from citefix.revision.compare_report import unfinished_runs

    unfinished = unfinished_runs(store, result.by_strategy())
    if unfinished:
        runs = ", ".join(f"{r['id']} ({r['case_id']} · {r['strategy']}: {r.get('stop_reason') or r['status']})"
                         for r in unfinished[:10]) + (", …" if len(unfinished) > 10 else "")
        print(f"citefix: {len(unfinished)} run(s) did not finish: {runs}; run the same command again to retry them",
              file=sys.stderr)
        code = 3
    if code:
        return code
    return 0


def _reviser_name(reviser: str, pipeline) -> str:
    if reviser == "auto":
        return "llm" if pipeline.llm is not None else "offline"
    return reviser


class _CompareBar:
    """A rich progress bar over runs on a terminal; plain lines otherwise."""

    def __init__(self, total: int, stream=None):
        self.stream = stream or sys.stderr
        self.progress = None
        if hasattr(self.stream, "isatty") and self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("compare"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                     console=Console(file=self.stream))
            self.progress.start()
            self.task = self.progress.add_task("runs", total=total)

    def line(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(text, highlight=False, markup=False)
        else:
            print(text, file=self.stream, flush=True)

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
