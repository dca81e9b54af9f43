"""`citefix check`: evaluate summaries or cited answers, store each as a run, print reports."""

from __future__ import annotations

import argparse
import sys

from citefix.errors import EXIT_MODEL_FAILURE, InputError

EXAMPLES = ("summary", "cited_answer")  # as citefix.inputs.EXAMPLES, not imported here: pydantic loads on first use


def register(sub) -> None:
    from citefix.commands.common import add_common

    p = sub.add_parser(
        "check",
        help="check a summary or cited answer against its sources",
        description="Check summaries or cited answers against their sources; every run is stored.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  citefix check --source article.txt --summary summary.txt\n  citefix check case.json --llm openai/gpt-4o-mini\n"
               "  citefix check cases.jsonl --json > results.jsonl\n  citefix check --example summary",
    )
    p.add_argument("inputs", nargs="*", help="case files (.json or .jsonl); '-' reads standard input")
    p.add_argument("--source", action="append", default=[], help="source document (text file, '-' for stdin); repeatable")
    p.add_argument("--summary", help="summary text file ('-' for stdin), checked against --source")
    p.add_argument("--example", choices=EXAMPLES, help="check a bundled example")
    p.add_argument("--json", action="store_true", help="print one JSON result per case (units, spans, verdicts, scores, run id)")
    p.add_argument("--fail-under", type=float, metavar="SCORE", help="exit 1 if any case scores below SCORE")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--skip-invalid", action="store_true",
                   help="in a JSONL file, leave out lines that are not valid cases (each named on stderr) instead of stopping")
    p.add_argument("--limit", type=int, help="check at most N cases from the files")
    p.add_argument("--fresh", action="store_true",
                   help="check every case again; by default a batch (several cases) reuses the stored result of a case "
                        "already checked with the same settings, so an interrupted batch continues where it stopped")
    p.add_argument("--html", metavar="FILE",
                   help="also write a self-contained HTML report (several cases: FILE's name gets each run's id)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show each case's stages and time on stderr (default: only for a source of 10,000 words or "
                        "more or a text of 1,000, on a terminal); stdout is the same either way")
    p.add_argument("--nli", metavar="MODEL",
                   help="judge with a transformers NLI model (hub id or local folder); same as --verifier nli:MODEL")
    add_common(p)
    from citefix.executor import add_executor_options

    add_executor_options(p)
    p.set_defaults(func=run)


def dry_run(cases, settings, *, json_out: bool = False) -> int:
    """--dry-run: the model calls, tokens and cost the check would take; nothing is called or stored."""
    import json

    from citefix.estimate import Estimate, estimate_check

    total = Estimate()
    for case in cases:
        total.merge(estimate_check(case, settings))
    print(json.dumps({"dry_run": total.as_dict(), "cases": len(cases)}) if json_out else
          f"{total.line()} ({len(cases)} case{'s' if len(cases) != 1 else ''})")
    return 0


def run(args) -> int:
    from citefix.inputs import gather_cases
    from citefix.pipeline import build_pipeline
    from citefix.store import Store

    cases = gather_cases(args)  # validate inputs before loading any model
    from citefix.executor import check_options

    check_options(args)
    settings = _settings(args)
    if args.dry_run:
        return dry_run([c for c, _ in cases], settings, json_out=args.json)
    from citefix.commands.common import apply_budget

    budget = apply_budget(args, settings)
    store = Store(settings.db)
    pipeline = build_pipeline(settings, store)
    batch = _Batch(args, cases, settings, pipeline, store)
    for i, (case, path) in enumerate(cases, 1):
        ev, run_id, failed, hit = batch.evaluate(i, case, path)
        if failed:
            batch.model_failure = True
            print(f"citefix: run {run_id} ({case.id}): {ev.message or ev.status}", file=sys.stderr)
        batch.report(i, case, ev, run_id, reused=hit is not None)
        if args.fail_under is not None and ev.score is not None and ev.score < args.fail_under:
            batch.failed_gate = True
        if ev.kind == "cited_answer":
            batch.cited.append(ev.model_copy(update={"units": [], "verdicts": []}))
        if budget is not None and budget.reached:
            print(f"citefix: {budget.message()}; checked {i} of {len(cases)} cases", file=sys.stderr)
            return EXIT_MODEL_FAILURE
    return batch.finish()


def _settings(args):
    """The settings of the check (--nli is --verifier nli:MODEL)."""
    from citefix.commands.common import llm_options
    from citefix.config import load_settings

    if getattr(args, "nli", None):
        if args.verifier and args.verifier != f"nli:{args.nli}":
            raise InputError("--nli and --verifier both choose the verifier; give one of them")
        args.verifier = f"nli:{args.nli}"
    return load_settings(llm=args.llm, verifier=args.verifier, decomposer=args.decomposer,
                         concurrency=args.concurrency, db=args.db, cache=False if args.no_cache else None,
                         acu_granularity=args.acu_granularity, aggregation=args.aggregation,
                         **llm_options(args))


class _Batch:
    """The cases of one `citefix check`: each evaluated (or its stored result reused), reported, tallied."""

    def __init__(self, args, cases, settings, pipeline, store):
        from citefix.executor import make_evaluator
        from citefix.progress import CheckProgress

        self.args, self.cases, self.pipeline, self.store = args, cases, pipeline, store
        self.color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
        self.progress = CheckProgress({None: "auto", True: "always", False: "never"}[getattr(args, "progress", None)])
        self.failed_gate = False
        self.model_failure = False
        self.many = len(cases) > 1
        self.cited: list = []  # cited answers' evaluations, for the corpus summary
        self.reused = 0
        self.ahead = None  # the windows of cases whose sources are analysed ahead (citefix.verify.ahead)
        self.evaluator = None if args.dry_run else make_evaluator(args, settings)  # --executor ray: on workers
        if self.evaluator is not None:  # the cases with no stored result are handed out now; results come back in order
            self.sent = [args.fresh or not self.many or self._stored(c) is None for c, _ in cases]
            self.remote = self.evaluator.map([c for (c, _), s in zip(cases, self.sent) if s])

    def _stored(self, case):
        from citefix.checking import find_checked

        return find_checked(case, self.pipeline, self.store)

    def evaluate(self, i: int, case, path):
        """Case ``i`` (from 1) checked, or its stored result reused: (evaluation, run id, failed, stored hit)."""
        from citefix.checking import check_case
        from citefix.verify.ahead import PrefetchAhead
        from citefix.verify.offline import PREFETCH_WINDOW

        args, cases = self.args, self.cases
        if self.many and self.evaluator is None and not args.dry_run and (i - 1) % PREFETCH_WINDOW == 0:
            # the sources of the next cases analysed in one batched pass (those with a stored result skipped), and
            # those of the window after in the background meanwhile (citefix.verify.ahead)
            def todo(lo: int) -> list:
                return [c for c, _ in cases[lo : lo + PREFETCH_WINDOW] if args.fresh or self._stored(c) is None]

            if self.ahead is None:
                self.ahead = PrefetchAhead([self.pipeline.verifier])
            self.ahead.window(todo(i - 1), todo(i - 1 + PREFETCH_WINDOW))
        hit = self._stored(case) if (self.many and not args.fresh) else None
        done = next(self.remote) if self.evaluator is not None and self.sent[i - 1] else None  # a twin stored since: hit wins
        if hit is not None:
            (ev, run_id), failed = hit, False
            self.reused += 1
        else:
            on_event = self.progress.start(case, i, len(cases))
            try:
                ev, run_id, failed = check_case(case, self.pipeline, self.store, input_path=str(path),
                                                on_event=on_event, evaluation=done)
            finally:
                self.progress.finish()
        return ev, run_id, failed, hit

    def report(self, i: int, case, ev, run_id: int, *, reused: bool) -> None:
        """The case's HTML report (--html), its report or JSON on stdout, and in a batch its score line on stderr."""
        from citefix.report import render, to_json

        args, store = self.args, self.store
        if args.html:
            from citefix.html_report import html_path, write_run_html

            out = write_run_html(store, run_id, html_path(args.html, run_id, self.many))
            print(f"citefix: wrote {out}", file=sys.stderr)
        if args.json:
            print(to_json(ev, run_id=run_id, store_path=str(store.path)), flush=True)
        else:
            print(render(ev, run=store.run(run_id), store_path=str(store.path), color=self.color), flush=True)
        if self.many:
            extra = ""
            if ev.kind == "cited_answer":
                f = lambda x: "-" if x is None else "%.2f" % x  # noqa: E731
                extra = (f" recall {f(ev.scores.get('aliice_recall'))} precision {f(ev.scores.get('aliice_precision'))}"
                         f" cvcp {f(ev.scores.get('cvcp'))}" + (f" [{ev.status}]" if ev.status != "ok" else ""))
            again = ", stored earlier: reused" if reused else ""
            print(f"[{i}/{len(self.cases)}] {case.id}: score {('%.2f' % ev.score) if ev.score is not None else '—'}{extra} "
                  f"(run {run_id}{again})", file=sys.stderr, flush=True)

    def finish(self) -> int:
        """After the last case: the workers shut down in order, the reuse count, the cited answers' corpus summary, and
        the exit code."""
        args, cases = self.args, self.cases
        if self.evaluator is not None:
            self.evaluator.close(wait=True)  # every result is in (citefix.executor.ProcessEvaluator.close)
        if self.reused:
            print(f"citefix: {self.reused} of {len(cases)} cases reused from earlier checks with the same settings "
                  "(--fresh checks them again)", file=sys.stderr)
        if self.many and self.cited:
            import json

            from citefix.cited.evaluate import summarise
            from citefix.cited.report import render_summary

            summary = summarise(self.cited)
            print(json.dumps({"summary": summary}) if args.json else render_summary(summary), flush=True)
        if self.model_failure:
            # the warnings say why (a settings mistake, or a provider that failed or did not answer in time)
            print("citefix: some cases could not be verified; the warnings above say why and what to do, then rerun "
                  "(checked cases are kept and reused)", file=sys.stderr)
            return EXIT_MODEL_FAILURE
        if self.failed_gate:
            print(f"citefix: a score is below --fail-under {args.fail_under}", file=sys.stderr)
            return 1
        return 0
