"""evaluate(): one text, decomposed, verified, scored. Round 0 of every run, and every later round, is one call."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from citefix.decompose.base import Decomposer
from citefix.events import Event, listening_for_units
from citefix.models import Case, CaseKind, Evaluation
from citefix.verify.base import Verifier

if TYPE_CHECKING:
    from citefix.llm.client import CallRecord, LLMClient


@runtime_checkable
class CallsLLM(Protocol):
    """A part of a run that may call an LLM (a decomposer, a verifier; a feedback strategy or reviser that asks one):
    `llm` is its client, or None."""

    @property
    def llm(self) -> LLMClient | None: ...


def _noop(event: str, data: dict[str, Any]) -> None:
    pass


def collect_calls(*parts: object) -> list[CallRecord]:
    """Drain the call logs of every distinct LLM client among the parts (decomposer, verifier, …; a part that calls
    no LLM, or None, is passed over)."""
    seen: set[int] = set()
    calls: list[CallRecord] = []
    for p in parts:
        llm = p.llm if isinstance(p, CallsLLM) else None
        if llm is not None and id(llm) not in seen and hasattr(llm, "drain_calls"):
            seen.add(id(llm))
            calls.extend(llm.drain_calls())
    return calls


def models_used(decomposer: Decomposer, verifier: Verifier) -> list[str]:
    """The models behind an evaluation: LLMs of the decomposer and verifier, and a verifier's own model (NLI)."""
    dec_llm, ver_llm = decomposer.llm, verifier.llm
    names = [dec_llm.model if dec_llm is not None else None, ver_llm.model if ver_llm is not None else None,
             verifier.model_name]
    return list(dict.fromkeys(m for m in names if m))


def aggregate_score(ev: Evaluation, aggregation: str) -> None:
    """Replace the mean unit score by another aggregation of the same unit scores (the mean stays in scores):
    all_supported = 1.0 when every unit is judged supported, else 0.0; min = the lowest unit score."""
    if aggregation in (None, "", "mean") or ev.score is None:
        return
    verdicts = [v for u in ev.checked_units if (v := ev.verdict_for(u.id)) is not None and v.score is not None]
    if not verdicts:
        return
    if aggregation == "all_supported":
        ev.score = 1.0 if all(v.label == "supported" for v in verdicts) else 0.0
    elif aggregation == "min":
        ev.score = min(cast(float, v.score) for v in verdicts)  # scored verdicts only
    else:
        from citefix.errors import ConfigError

        raise ConfigError(f"unknown aggregation {aggregation!r}; use mean, all_supported or min")
    ev.scores[f"score_{aggregation}"] = ev.score
    ev.metrics["aggregation"] = aggregation


def evaluate(case: Case, *, decomposer: Decomposer, verifier: Verifier, on_event: Event | None = None, aggregation: str = "mean") -> Evaluation:
    """Decompose case.text into units, verify them against the sources, score (the mean of the unit scores, or
    another `aggregation`: all_supported, min).

    A text with no checkable units gets status "no_units" and score None, never NaN. A round in which some unit could
    not be generated or verified (a model fault that outlived its retries) is evaluated once more as a whole; if it is
    still incomplete its status is "partial" and its message names the units: never a score passed off as whole.
    """
    first = _evaluate_once(case, decomposer=decomposer, verifier=verifier, on_event=on_event, aggregation=aggregation)
    if not incomplete(first):
        return first
    (on_event or _noop)("round_retried", {"reason": first.message})
    second = _evaluate_once(case, decomposer=decomposer, verifier=verifier, on_event=on_event, aggregation=aggregation)
    second.calls = first.calls + second.calls  # both tries' calls are spent and logged
    second.metrics["retried_round"] = {"first_status": first.status, "first_message": first.message}
    second.duration_s = (first.duration_s or 0) + (second.duration_s or 0)
    return second


def _model_failed(ev: Evaluation) -> bool:
    """A model call of this evaluation failed after its retries (not a data problem such as a missing passage)."""
    return any(c.status == "error" or (c.error and not c.cached) for c in ev.calls)


def incomplete(ev: Evaluation) -> bool:
    """Not a whole result: some unit could not be generated or verified because a model call failed after its
    retries (a partly checked round, or one the model never got to check). Such a round is never the best, and the
    run stops on llm_error."""
    return _model_failed(ev) and ev.status in ("partial", "error", "no_units")


def _mark_partial(ev: Evaluation) -> None:
    """An otherwise scored evaluation in which a model call failed (a unit not verified, a sentence not decomposed)
    becomes 'partial', naming what is missing."""
    if ev.status != "ok" or not _model_failed(ev):
        return
    failed_units = list(dict.fromkeys(v.unit_id for v in ev.verdicts if v.error))
    other = [e for e in ev.errors if not any(e.startswith(f"{u}:") for u in failed_units)]
    if not failed_units and not other:
        return
    ev.status = "partial"
    parts = []
    if failed_units:
        parts.append(f"{len(failed_units)} unit(s) could not be verified ({', '.join(failed_units[:10])}"
                     + (", …" if len(failed_units) > 10 else "") + ")")
    if other:
        parts.append(f"{len(other)} part(s) of the text could not be decomposed ({other[0]})")
    reason = next((v.error for v in ev.verdicts if v.error), None) or (other[0] if other else None)
    ev.message = "partly checked: " + "; ".join(parts) + (f": {reason}" if failed_units and reason else "")
    ev.metrics["incomplete_units"] = failed_units


def _evaluate_once(case: Case, *, decomposer: Decomposer, verifier: Verifier, on_event: Event | None = None,
                   aggregation: str = "mean") -> Evaluation:
    on_event = on_event or _noop
    started = time.perf_counter()
    if case.kind == "cited_answer":
        from citefix.cited.evaluate import evaluate_cited

        ev = evaluate_cited(case, decomposer=decomposer, verifier=verifier, on_event=on_event)
        ev.models = models_used(decomposer, verifier)
        aggregate_score(ev, aggregation)
        ev.calls = collect_calls(decomposer, verifier)
        _mark_partial(ev)
        ev.duration_s = time.perf_counter() - started
        return ev
    on_event("decompose_started", {"decomposer": decomposer.name})
    units = decomposer.units(case)
    errors = list(decomposer.errors)
    on_event("units_ready", {"n": len(units)})
    ev = Evaluation(case_id=case.id, kind=cast(CaseKind, case.kind), text=case.text, units=units, decomposer=decomposer.name,  # Case fills kind
                    verifier=verifier.name, errors=errors)
    if not units:
        ev.status = "no_units"
        ev.message = "no checkable units: " + (errors[0] if errors else "the text holds no statement to check")
    else:
        with listening_for_units(on_event):  # a long offline verification says k of n, and a cancel stops it
            ev.verdicts = verifier.verify(units, case)
        on_event("units_scored", {"n": len(ev.verdicts)})
        scored = [v.score for v in ev.verdicts if v.score is not None]
        ev.errors += [f"{v.unit_id}: {v.error}" for v in ev.verdicts if v.error]
        if scored:
            ev.score = sum(scored) / len(scored)
            ev.scores["acueval" if decomposer.name.startswith("acu") else "unit_mean"] = ev.score
            ev.scores["supported_share"] = sum(v.label == "supported" for v in ev.verdicts) / len(ev.verdicts)
        else:
            ev.status = "error"
            ev.message = "no unit could be verified: " + (ev.errors[0] if ev.errors else "unknown error")
    ev.models = models_used(decomposer, verifier)
    aggregate_score(ev, aggregation)
    ev.calls = collect_calls(decomposer, verifier)
    if ev.status == "no_units" and _model_failed(ev):  # the model failed to cut the text: nothing was checked
        ev.status = "error"
        ev.message = "not checked: the text could not be decomposed: " + (errors[0] if errors else "model failure")
    _mark_partial(ev)
    ev.duration_s = time.perf_counter() - started
    return ev
