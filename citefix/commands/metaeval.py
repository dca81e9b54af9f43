"""`citefix meta-eval`: measure how well verifiers agree with human labels on a labelled JSONL file."""

from __future__ import annotations

import argparse
import shlex
import sys

from citefix.errors import EXIT_MODEL_FAILURE, ConfigError
from citefix.metaeval import by_fields, verifier_names

FORMATS = ("auto", "xsumfaith", "summeval", "wice", "attributionbench", "rose")


def register(sub) -> None:
    p = sub.add_parser(
        "meta-eval",
        help="measure verifiers against human labels",
        description="Score a human-labelled JSONL file with one or more verifiers and report agreement with the "
                    "labels: ROC-AUC and tuned balanced accuracy (binary labels), correlations and one-vs-one AUCs "
                    "(full/partial/none), NDCG of evidence chunks, character P/R/F1 of unsupported spans, ROUGE-1 of "
                    "decomposed units against gold ACUs (RoSE). File shapes: see `citefix.metaeval.loaders`.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  citefix meta-eval data/xsumfaith.jsonl --verifier offline,lexical,similarity\n"
               "  citefix meta-eval data/wice.jsonl --verifier offline,llm --llm openai/gpt-4o-mini --limit 50\n"
               "  citefix meta-eval data/rose.jsonl --decomposer clauses --report reports/\n"
               "  citefix meta-eval mine.jsonl --verifier offline --calibrate mine-params.json\n"
               "  citefix meta-eval out/planted_dev.jsonl --verifier offline,lexical --by error_type",
    )
    p.add_argument("path", help="labelled JSONL file")
    from citefix.commands.common import add_device_option
    from citefix.executor import add_executor_options

    add_device_option(p)
    add_executor_options(p)
    p.add_argument("--verifier", default="offline",
                   help="comma-separated verifiers: offline, lexical, alignment, similarity, entail (offline signals), llm, "
                        "nli:<model> (default: offline)")
    p.add_argument("--llm", help="litellm model string for the llm verifier or the acu decomposer")
    p.add_argument("--decomposer",
                   help="verify a summary's units instead of the whole text: acu | clauses | aliice | sentence "
                        "(RoSE files need one; default there: acu with --llm, else clauses)")
    p.add_argument("--aggregate", choices=("min", "mean"), default="min",
                   help="how unit scores combine into a summary's score (default: min)")
    p.add_argument("--format", choices=FORMATS, default="auto", help="file shape (default: from the first record)")
    p.add_argument("--limit", type=int, help="read at most N records")
    p.add_argument("--strict", action="store_true",
                   help="stop at the first record that fails validation (default: leave it out and list it in the report)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the 95%% confidence intervals; 0 turns them off (default 1000)")
    p.add_argument("--by", metavar="FIELD[,FIELD]",
                   help="also break every statistic down by the value of these record fields (e.g. error_type); "
                        "the per-item rows of --report carry the values")
    p.add_argument("--report", metavar="DIR", help="also write a Markdown report, the JSON result and per-item rows here")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON instead of the table")
    p.add_argument("--calibrate", metavar="FILE",
                   help="fit the offline verifier's decision thresholds on these labels and write them to FILE (a "
                        "parameter overlay, merged if it exists); use it with CITEFIX_OFFLINE_PARAMS=FILE")
    p.add_argument("--concurrency", type=int, help="parallel model calls (default 8)")
    p.add_argument("--no-cache", action="store_true", help="do not answer identical model requests from the store")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="report progress on stderr (default: only on a terminal; --progress also to a log or a pipe, a "
                        "line every 10 records)")
    p.add_argument("--db", help="SQLite store (default: $CITEFIX_HOME/citefix.db or the XDG data dir)")
    p.add_argument("--no-store", action="store_true", help="do not record the run in the store")
    p.add_argument("--fresh", action="store_true",
                   help="score again even when the store holds a result for the same file and settings")
    from citefix.commands.common import add_cost_options

    add_cost_options(p)
    p.set_defaults(func=run)


def command_line(args) -> str:
    """The command as a user would retype it (for the report)."""
    parts = ["citefix", "meta-eval", args.path, "--verifier", args.verifier]
    for flag, value in (("--llm", args.llm), ("--decomposer", args.decomposer), ("--limit", args.limit)):
        if value is not None:
            parts += [flag, str(value)]
    if args.format != "auto":
        parts += ["--format", args.format]
    if args.decomposer:
        parts += ["--aggregate", args.aggregate]
    if args.strict:
        parts.append("--strict")
    if args.by:
        parts += ["--by", ",".join(by_fields(args.by))]
    parts += ["--seed", str(args.seed), "--bootstrap", str(args.bootstrap)]
    return shlex.join(parts)


def _progress_for(mode: bool | None):
    """The per-record progress: on a terminal one line rewritten in place; with --progress and no terminal (a log, a
    pipe) a line every 10 records and at the end, with the elapsed time; --no-progress prints nothing."""
    import time

    started = time.monotonic()

    def show(done: int, total: int, item_id: str) -> None:
        if mode is False:
            return
        if sys.stderr.isatty():
            print(f"\r[{done}/{total}] {item_id[:60]:<60}", end="" if done < total else "\n", file=sys.stderr,
                  flush=True)
        elif mode and (done % 10 == 0 or done == total):
            print(f"meta-eval: {done}/{total} records, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    return show


def _torch_threads() -> None:
    """torch's intra-op threads: $CITEFIX_TORCH_THREADS, or measured once (citefix.threads)."""
    from citefix.threads import apply

    apply()


def run(args) -> int:
    from citefix.config import load_settings
    from citefix.metaeval.loaders import detect_format
    from citefix.metaeval.report import render_table, to_json
    from citefix.metaeval.runner import NO_UNITS, run_meta_eval
    from citefix.metaeval.stored import store_result
    from citefix.pipeline import OFFLINE_SIGNALS

    shape = detect_format(args.path) if args.format == "auto" else args.format  # validate input before any model
    from citefix.executor import check_options, make_evaluator

    check_options(args)
    names = verifier_names(args.verifier) if shape != "rose" else []
    by = by_fields(args.by)
    if by and shape == "rose":
        raise ConfigError("--by groups verifier statistics; a RoSE file measures decomposition only: leave --by out")
    if args.calibrate and (shape == "rose" or not any(n in OFFLINE_SIGNALS for n in names)):
        raise ConfigError("--calibrate fits the offline verifier's thresholds on labelled items: use it with "
                          "--verifier offline (or lexical, alignment, similarity) on a file with labels, not RoSE")
    settings = load_settings(llm=args.llm, decomposer=args.decomposer, concurrency=args.concurrency, db=args.db,
                             cache=False if args.no_cache else None, device=args.device,
                             precision=args.precision)
    if args.dry_run:
        from citefix.estimate import estimate_meta_eval

        est = estimate_meta_eval(args.path, names, settings, limit=args.limit, format=shape, decomposer=args.decomposer)
        print(est.line())
        return 0
    from citefix.commands.common import apply_budget

    budget = apply_budget(args, settings)
    if names:
        _torch_threads()
    store = None
    if not args.no_store:
        from citefix.store import Store

        store = Store(settings.db)
    verifiers, decomposer, dec_name = _collaborators(args, settings, store, names, shape)
    command = command_line(args)
    from citefix.metaeval.stored import load_stored_result, result_signature

    signature = result_signature(args.path, command, verifiers, decomposer)
    stored = load_stored_result(store, signature) if (store is not None and not args.fresh) else None
    if stored is not None:
        result = stored[1]
        print(f"citefix: reused meta-eval run {stored[0]} (same file and settings; --fresh scores again)",
              file=sys.stderr)
    else:
        evaluator = make_evaluator(args, settings)  # --executor ray: records scored on Ray workers
        if evaluator is not None:
            evaluator.metaeval = {"names": names, "decomposer": dec_name}
        result = run_meta_eval(args.path, verifiers, decomposer=decomposer, limit=args.limit,
                               on_progress=_progress_for(args.progress),
                               bootstrap=args.bootstrap, seed=args.seed, format=shape, aggregate=args.aggregate,
                               skip_invalid=not args.strict, by=by, executor=evaluator)
    print(to_json(result) if args.json else render_table(result), end="" if not args.json else "\n", flush=True)
    if store is not None and stored is None:
        run_id = store_result(store, result, command, signature=signature)
        print(f"citefix: stored as meta-eval run {run_id} in {store.path}", file=sys.stderr)
    _write_outputs(args, result, command)
    if budget is not None and budget.reached:
        print(f"citefix: {budget.message()}; calls past the limit were not made (their items are missing)",
              file=sys.stderr)
    errors = [r.error for r in result.scores if r.error] + [d.error for d in result.decompositions if d.error]
    if errors:
        print(f"citefix: {len(errors)} item scores are missing and left out of the statistics (first: {errors[0]})",
              file=sys.stderr)
    return EXIT_MODEL_FAILURE if any(e != NO_UNITS for e in errors) else 0


def _collaborators(args, settings, store, names: list[str], shape: str):
    """The verifiers by display name (a repeat measured once), and the decomposer and its name where the file's
    shape uses one."""
    from citefix.pipeline import build_decomposer, build_llm, build_verifier

    llm = build_llm(settings.llm, settings, store) if settings.llm else None
    verifiers = {}
    for name in names:
        v = build_verifier(name, settings, store, llm)
        display = v.name or name
        if display in verifiers:  # "lexical" and "offline:lexical" are the same verifier
            print(f"citefix: note: {name!r} repeats verifier {display!r}; measured once", file=sys.stderr)
            continue
        verifiers[display] = v
    decomposer = dec_name = None
    if shape == "rose":
        decomposer = build_decomposer(dec_name := args.decomposer or "auto", settings, llm, kind="summary")
    elif args.decomposer and shape in ("xsumfaith", "summeval"):
        decomposer = build_decomposer(dec_name := args.decomposer, settings, llm, kind="summary")
    elif args.decomposer:
        print(f"citefix: note: --decomposer is not used for {shape} files (their units are given)", file=sys.stderr)
    return verifiers, decomposer, dec_name


def _write_outputs(args, result, command: str) -> None:
    """The report folder (--report) and the calibrated thresholds (--calibrate), each named on stderr."""
    from citefix.metaeval.report import write_report

    if args.report:
        paths = write_report(result, args.report, command)
        print(f"citefix: report written to {paths['markdown']}", file=sys.stderr)
    if args.calibrate:
        from citefix.metaeval.calibrate import write_calibration

        cal = write_calibration(result, args.calibrate, command + f" --calibrate {shlex.quote(args.calibrate)}")
        where = "default profile" if cal["profile"] == "default" else f"profile {cal['profile']}"
        fitted = ", ".join(f"{sig} supported ≥ {v['supported']:.3g} (partial ≥ {v['partial']:.3g})"
                           for sig, v in cal["thresholds"].items())
        print(f"citefix: calibrated thresholds ({where}, {next(iter(cal['thresholds'].values()))['n']} items): {fitted}",
              file=sys.stderr)
        print(f"citefix: written to {cal['path']}; use them with: export CITEFIX_OFFLINE_PARAMS={shlex.quote(cal['path'])}",
              file=sys.stderr)
