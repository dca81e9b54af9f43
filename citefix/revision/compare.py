"""Compare feedback strategies: run each strategy on each case (reusing finished runs), then report from the store.

A run is reused when a stored run of the same case (content hash) has the same signature: strategy, LLM, judge,
verifier, decomposer, reviser, rounds, target and patience. A matching run that did not finish (killed, cancelled) is
resumed. The report is computed from the store's rows alone (rounds and calls of the runs it lists), so every number
in it can be traced back: report.json names the run behind each case and strategy. The report (its figures, Markdown,
charts and HTML page) is a view of its own, citefix.revision.compare_report.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, cast

from citefix.models import Case
from citefix.revision.parts import RunRecord, SessionParts, StopRules

if TYPE_CHECKING:
    from citefix.store import Store
    from citefix.store.rows import FoundRunRow, RunRow

SIGNATURE_KEYS = ("strategy", "llm", "judge_llm", "verifier", "judge_verifier", "decomposer", "reviser", "max_rounds",
                  "target", "patience")


@dataclass
class CompareRun:
    case_id: str
    strategy: str
    run_id: int
    reused: bool
    stop_reason: str | None = None


@dataclass
class CompareResult:
    runs: list[CompareRun] = field(default_factory=list)

    def by_strategy(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for r in self.runs:
            out.setdefault(r.strategy, []).append(r.run_id)
        return out


def select_cases(cases: list[Case], *, seed: int | None = None, limit: int | None = None) -> list[Case]:
    """The cases to compare on: all in file order, or shuffled with `seed`; then the first `limit`."""
    cases = list(cases)
    if seed is not None:
        random.Random(seed).shuffle(cases)
    if limit is not None:
        cases = cases[: max(0, limit)]
    return cases


def signature(strategy: str, base: dict[str, Any]) -> dict[str, Any]:
    sig = {k: base.get(k) for k in SIGNATURE_KEYS}
    for k, default in (("acu_granularity", "sentence"), ("aggregation", "mean")):  # only when not the default, so
        if base.get(k) not in (None, default):                                    # runs stored before still match
            sig[k] = base[k]
    sig["strategy"] = strategy
    return sig


def find_reusable(store: Store, case: Case, sig: dict[str, Any]) -> FoundRunRow | None:
    """The newest stored run of this case with this signature, or None."""
    for row in store.find_runs(content_hash=case.content_hash(), strategy=sig["strategy"]):
        try:
            settings = json.loads(row.settings or "{}")
        except json.JSONDecodeError:
            continue
        if settings.get("signature") == sig:
            return row
    return None


def run_compare(
    cases: list[Case],
    *,
    strategies: list[str],
    store,
    make_parts: Callable[[str, Case], SessionParts],
    settings: dict[str, Any],
    base_signature: dict[str, Any],
    max_rounds: int,
    target: float | None = None,
    patience: int | None = None,
    on_run: Callable[[int, int, Case, str, Any, bool], None] | None = None,
    on_event=None,
    cancel=None,
    input_path: str | None = None,
    evaluator=None,
    remote_spec: dict[str, Any] | None = None,
) -> CompareResult:
    """Each strategy on each case; finished runs with the same signature are reused, unfinished ones resumed.

    `make_parts(strategy, case)` builds refine()'s collaborators (e.g. `Pipeline.parts_for`); `settings` is what each
    run row records (with the run's signature added). `on_run(i, total, case, strategy, result_or_row, reused)`
    reports progress.

    With an `evaluator` (citefix.executor.RayEvaluator) the new runs are refined on its workers, all handed out at
    once (`remote_spec`: the reviser and judge verifier the workers build their pipeline with); each comes back as a
    whole run and is imported into `store` in one transaction (Store.import_run), in input order. Reused runs stay
    reused, and an unfinished run is resumed here, on the driver, from its stored rounds (a worker has no access to
    this store); per-round events are only emitted for runs refined here.
    """
    from citefix.revision.session import refine

    result = CompareResult()
    total = len(cases) * len(strategies)
    loop = {"max_rounds": max_rounds, "target": target, "patience": patience}
    plan: list[tuple[Case, str, dict[str, Any], FoundRunRow | None]] = []
    for case in cases:
        for strategy in strategies:
            sig = signature(strategy, {**base_signature, **loop})
            found = find_reusable(store, case, sig) if evaluator is not None else None  # what to send out
            plan.append((case, strategy, sig, found))
    remote: Any = iter(())
    sent: dict[tuple[str, str], int | None] = {}  # (content hash, strategy) of a run sent out → its imported run id
    if evaluator is not None:
        remote = _hand_out(evaluator, plan, sent, {**(remote_spec or {}), **loop, "input_path": input_path})
    for i, (case, strategy, sig, planned) in enumerate(plan, 1):
        if cancel is not None and cancel.is_set():
            return result
        key = (case.content_hash(), strategy)
        if evaluator is not None and planned is None:  # sent out, or a twin of a case sent out
            if sent[key] is None:
                bundle, res = next(remote)
                run_id = sent[key] = store.import_run(bundle)
                res = replace(res, run_id=run_id)
                result.runs.append(CompareRun(case.id, strategy, run_id, False, res.stop_reason))
                if on_run:
                    on_run(i, total, case, strategy, res, False)
                continue
            row: RunRow | None = store.run(cast(int, sent[key]))
        else:  # looked up again: a twin case refined or resumed earlier in this command is reused
            found = find_reusable(store, case, sig)
            # with its liveness: a run whose process is gone reads as interrupted
            row = store.run(found.id) if found is not None else None
        # only a finished run is final: a failed or interrupted one is resumed (its completed rounds are kept)
        if row is not None and row.status == "finished":
            result.runs.append(CompareRun(case.id, strategy, row.id, True, row.stop_reason))
            if on_run:
                on_run(i, total, case, strategy, row, True)
            continue
        res = refine(case if row is None else None, make_parts(strategy, case), store=store,
                     rules=StopRules(max_rounds=max_rounds, target=target, patience=patience),
                     record=RunRecord("compare", input_path, {**settings, "signature": sig}),
                     resume_run=row.id if row is not None else None, on_event=on_event, cancel=cancel)
        result.runs.append(CompareRun(case.id, strategy, cast(int, res.run_id), False, res.stop_reason))  # stored run
        if on_run:
            on_run(i, total, case, strategy, res, False)
        if res.status == "cancelled":
            return result
    return result


def _hand_out(evaluator, plan: list[tuple[Case, str, dict[str, Any], FoundRunRow | None]],
              sent: dict[tuple[str, str], int | None], spec: dict[str, Any]) -> Any:
    """The planned runs with nothing to reuse handed to the evaluator's workers at once (a twin case, same content,
    is refined once); each is marked in ``sent``. Returns the iterator of their (bundle, result), in order."""
    jobs = []
    for case, strategy, sig, found in plan:
        key = (case.content_hash(), strategy)
        if found is None and key not in sent:  # a twin case (same content) is refined once and reused, as locally
            sent[key] = None
            jobs.append((case, {"strategy": strategy, "signature": sig}))
    return evaluator.refine_runs(jobs, spec)
