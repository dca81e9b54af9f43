"""The Python API: `citefix.check`, `citefix.refine`, `citefix.compare`, `citefix.meta_eval`.

The same collaborators, settings (defaults < config file < environment < arguments) and store as the CLI, and the same
typed (pydantic) results the CLI prints with --json. Every run is stored like a CLI run; `db=` picks the store file.
Documented with a worked example in docs/python-api.md (its code blocks run in the tests).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence, cast

from pydantic import BaseModel, Field

from citefix.errors import ConfigError, InputError
from citefix.models import Case, CaseKind, Evaluation, Source


class CheckResult(Evaluation):
    """An Evaluation (score, units, verdicts, scores, metrics) with the run it was stored as."""

    run_id: int | None = None
    store: str | None = None


class RefineReport(BaseModel):
    """The outcome of refining one text: best round and its text, stop reason, and every round's figures."""

    run_id: int | None
    case_id: str
    status: str
    stop_reason: str
    best_round: int
    best_score: float | None
    best_judge_score: float | None = None
    best_text: str
    original_text: str
    rounds: list[dict[str, Any]] = Field(default_factory=list)
    message: str | None = None
    store: str | None = None


class CompareReport(BaseModel):
    """Strategies compared over cases: per strategy the figures of report.json, and the runs behind them."""

    max_rounds: int
    strategies: dict[str, dict[str, Any]]
    runs: list[dict[str, Any]] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict, description="report.md / report.json / plots when report_dir")
    store: str | None = None


def _settings(**kw: Any):
    from citefix.config import load_settings

    return load_settings(**{k: v for k, v in kw.items() if v is not None})


def _cases(text: Any, sources: Sequence[str | Source | dict] | None, *, question: str | None, case_id: str | None,
           kind: str | None) -> list[tuple[Case, str | None]]:
    """A Case; a text with its sources (strings, Sources or dicts); or a path to a case file (.json / .jsonl)."""
    from citefix.inputs import load_cases

    if isinstance(text, Case):
        return [(text, None)]
    if isinstance(text, os.PathLike) or (isinstance(text, str) and sources is None):
        path = str(text)
        if not Path(path).exists():
            raise InputError(f"{path}: no such case file; pass a text with sources=[...] or a path to a .json/.jsonl "
                             "case file")
        return [(c, path) for c in load_cases(path)]
    if not isinstance(text, str):
        raise InputError(f"cannot check a {type(text).__name__}; give a Case, a text with sources=[...], or a path")
    if not sources:
        raise InputError("sources is empty; give at least one source text")
    srcs = []
    for i, s in enumerate(sources, 1):
        if isinstance(s, Source):
            srcs.append(s)
        elif isinstance(s, dict):
            srcs.append(Source.model_validate({"id": str(i), **s}))
        else:
            srcs.append(Source(id=str(i), text=str(s)))
    try:
        return [(Case(id=case_id or "case", text=text, sources=srcs, question=question, kind=cast("CaseKind | None", kind)), None)]  # Case validates it
    except Exception as exc:  # pydantic's ValidationError: say what to fix in one line
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            err = exc.errors()[0]
            raise InputError(f"{'.'.join(map(str, err['loc']))}: {err['msg']}") from exc
        raise


def check(text: Any, sources: Sequence[str | Source | dict] | None = None, *, llm: str | None = None,
          verifier: str | None = None, decomposer: str | None = None, question: str | None = None,
          id: str | None = None, kind: str | None = None, db: str | os.PathLike | None = None,
          cache: bool | None = None, concurrency: int | None = None, aggregation: str | None = None,
          acu_granularity: str | None = None, precision: str | None = None,
          workers: int | None = None) -> CheckResult | list[CheckResult]:
    """Check a text against its sources (or a Case, or a case file) and store the run.

    Returns a CheckResult (an Evaluation plus `run_id`); a list of them when a file holds several cases.
    `llm=None` (and no CITEFIX_LLM / config) checks offline. `precision`: the offline encoder's arithmetic (fp32 or
    bf16, as `--precision`). `workers=N` evaluates the cases of a file in N worker processes (as `--workers N`; they
    are started with multiprocessing's spawn, so a script that calls this needs the usual `if __name__ ==
    "__main__":` guard).
    """
    from citefix.checking import check_case
    from citefix.executor import ProcessEvaluator
    from citefix.pipeline import build_pipeline
    from citefix.store import Store

    cases = _cases(text, sources, question=question, case_id=id, kind=kind)
    if workers is not None and workers < 1:
        raise ConfigError(f"workers={workers}: must be 1 or more")
    settings = _settings(llm=llm, verifier=verifier, decomposer=decomposer, db=str(db) if db else None,
                         cache=cache, concurrency=concurrency, aggregation=aggregation, acu_granularity=acu_granularity,
                         precision=precision)
    store = Store(settings.db)
    n_workers = workers or 1
    evaluator = ProcessEvaluator(settings, workers=n_workers) if n_workers > 1 and len(cases) > 1 else None
    try:
        pipeline = build_pipeline(settings, store)
        done = evaluator.map([c for c, _ in cases]) if evaluator is not None else None
        out = []
        for case, path in cases:
            ev, run_id, _ = check_case(case, pipeline, store, input_path=path or "python-api", command="check",
                                       evaluation=next(done) if done is not None else None)
            out.append(CheckResult(**ev.model_dump(), run_id=run_id, store=str(store.path)))
    finally:
        if evaluator is not None:
            evaluator.close()
        store.close()
    return out[0] if len(out) == 1 else out


def refine(text: Any, sources: Sequence[str | Source | dict] | None = None, *, llm: str | None = None,
           strategy: str | None = None, rounds: int = 3, target: float | None = None, patience: int | None = 2,
           reviser: str | None = None, verifier: str | None = None, decomposer: str | None = None,
           judge_llm: str | None = None, judge_verifier: str | None = None, question: str | None = None,
           id: str | None = None, db: str | os.PathLike | None = None, cache: bool | None = None,
           aggregation: str | None = None, acu_granularity: str | None = None,
           on_event=None) -> RefineReport | list[RefineReport]:
    """Refine a text round by round (what `citefix refine` does); every round is stored. Without an LLM the offline
    deletion-only reviser edits. Returns the best round, not the last."""
    from citefix.pipeline import RunSettings, build_run_pipeline
    from citefix.revision.parts import StopRules
    from citefix.revision.session import refine as run_refine
    from citefix.store import Store

    cases = _cases(text, sources, question=question, case_id=id, kind=None)
    settings = _settings(llm=llm, verifier=verifier, decomposer=decomposer, judge_llm=judge_llm, strategy=strategy,
                         db=str(db) if db else None, cache=cache, aggregation=aggregation,
                         acu_granularity=acu_granularity)
    run = RunSettings(settings, reviser=reviser, judge_verifier=judge_verifier, max_rounds=rounds, target=target,
                      patience=patience or None)
    store = Store(settings.db)
    try:
        pipeline = build_run_pipeline(run, store)
        out = []
        for case, path in cases:
            res = run_refine(case, pipeline.parts_for(case.kind, store), store=store,
                             rules=StopRules(max_rounds=run.max_rounds, target=run.target, patience=run.patience),
                             record=pipeline.record(input_path=path or "python-api"), on_event=on_event)
            out.append(RefineReport(run_id=res.run_id, case_id=res.case_id, status=res.status,
                                    stop_reason=res.stop_reason, best_round=res.best_round, best_score=res.best_score,
                                    best_judge_score=res.best_judge_score, best_text=res.best_text,
                                    original_text=res.original_text, rounds=res.rounds, message=res.message,
                                    store=str(store.path)))
    finally:
        store.close()
    return out[0] if len(cases) == 1 else out


def compare(cases: Any, *, strategies: Iterable[str] = ("acu", "none"), rounds: int = 3, target: float | None = None,
            patience: int | None = None, llm: str | None = None, reviser: str | None = None,
            verifier: str | None = None, decomposer: str | None = None, judge_llm: str | None = None,
            judge_verifier: str | None = None, seed: int | None = None, limit: int | None = None,
            report_dir: str | os.PathLike | None = None, db: str | os.PathLike | None = None,
            cache: bool | None = None) -> CompareReport:
    """Run each strategy on each case (finished runs with the same settings are reused) and compare them, as
    `citefix compare` does. `cases`: a case file path or a list of Cases. With report_dir, also writes the report
    files there."""
    from citefix.pipeline import RunSettings, build_run_pipeline
    from citefix.revision.compare import run_compare, select_cases
    from citefix.revision.compare_report import collect, write_report
    from citefix.revision.feedback import available_strategies
    from citefix.store import Store

    names = list(dict.fromkeys(s.strip() for s in strategies if s.strip()))
    unknown = [s for s in names if s not in available_strategies()]
    if not names or unknown:
        raise InputError(f"unknown strategy {unknown[0]!r}; use some of {', '.join(available_strategies())}"
                         if unknown else "strategies is empty")
    if isinstance(cases, (str, os.PathLike)):
        loaded = [c for c, _ in _cases(cases, None, question=None, case_id=None, kind=None)]
        input_path = str(cases)
    else:
        loaded, input_path = list(cases), "python-api"
    loaded = select_cases(loaded, seed=seed, limit=limit)
    if not loaded:
        raise InputError("no cases to compare on")
    settings = _settings(llm=llm, verifier=verifier, decomposer=decomposer, judge_llm=judge_llm,
                         db=str(db) if db else None, cache=cache)
    store = Store(settings.db)
    try:
        pipeline = build_run_pipeline(RunSettings(settings, reviser=reviser, judge_verifier=judge_verifier), store)
        result = run_compare(loaded, strategies=names, store=store, base_signature=pipeline.compare_signature(),
                             max_rounds=rounds,
                             target=target, patience=patience,
                             make_parts=lambda strategy, case: pipeline.parts_for(case.kind, store, strategy),
                             settings=pipeline.record().settings,
                             input_path=input_path)
        data = collect(store, result.by_strategy(), rounds)
        files = {}
        if report_dir is not None:
            files = {k: str(v) for k, v in write_report(store, result.by_strategy(), rounds, cast("str | Path", report_dir)).items()}
        runs = [{"case_id": r.case_id, "strategy": r.strategy, "run_id": r.run_id, "reused": r.reused,
                 "stop_reason": r.stop_reason} for r in result.runs]
        return CompareReport(max_rounds=rounds, strategies=data["strategies"], runs=runs, files=files,
                             store=str(store.path))
    finally:
        store.close()


def meta_eval(path: str | os.PathLike, verifiers: str | Sequence[str] = "offline", *, llm: str | None = None,
              decomposer: str | None = None, limit: int | None = None, format: str = "auto",
              aggregate: str = "min", bootstrap: int = 1000, seed: int = 0, strict: bool = False,
              db: str | os.PathLike | None = None, store: bool = True, precision: str | None = None,
              workers: int | None = None):
    """Measure verifiers against human labels (what `citefix meta-eval` does); returns the MetaEvalResult.
    `precision` and `workers` as for :func:`check`."""
    from citefix.metaeval import verifier_names
    from citefix.metaeval.loaders import detect_format
    from citefix.metaeval.runner import run_meta_eval
    from citefix.metaeval.stored import store_result
    from citefix.pipeline import build_decomposer, build_llm, build_verifier

    shape = detect_format(cast("str | Path", path)) if format == "auto" else format
    names = verifier_names(verifiers if isinstance(verifiers, str) else ",".join(verifiers)) if shape != "rose" else []
    if workers is not None and workers < 1:
        raise ConfigError(f"workers={workers}: must be 1 or more")
    settings = _settings(llm=llm, decomposer=decomposer, db=str(db) if db else None, precision=precision)
    st = None
    evaluator = None
    if store:
        from citefix.store import Store

        st = Store(settings.db)
    try:
        client = build_llm(settings.llm, settings, st) if settings.llm else None
        built: dict[str, Any] = {}
        for name in names:
            v = build_verifier(name, settings, st, client)
            built.setdefault(v.name or name, v)
        dec = None
        if shape == "rose":
            dec = build_decomposer(decomposer or "auto", settings, client, kind="summary")
        elif decomposer and shape in ("xsumfaith", "summeval"):
            dec = build_decomposer(decomposer, settings, client, kind="summary")
        if workers is not None and workers > 1 and names:
            from citefix.executor import ProcessEvaluator

            evaluator = ProcessEvaluator(settings, workers=workers)
            evaluator.metaeval = {"names": names, "decomposer": decomposer if dec is not None else None}
        result = run_meta_eval(str(path), built, decomposer=dec, limit=limit, bootstrap=bootstrap, seed=seed,
                               format=shape, aggregate=cast(Literal["min", "mean"], aggregate), skip_invalid=not strict,
                               executor=evaluator)
        if st is not None:
            store_result(st, result, f"citefix.meta_eval({str(path)!r}, {names!r})")
        return result
    finally:
        if evaluator is not None:
            evaluator.close()
        if st is not None:
            st.close()


__all__ = ["CheckResult", "CompareReport", "RefineReport", "check", "compare", "meta_eval", "refine"]
