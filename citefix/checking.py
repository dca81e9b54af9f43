"""One case checked and stored: the step `citefix check` and the Python API (`citefix.check`) share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from citefix.evaluate import incomplete
from citefix.events import Event
from citefix.models import Case, Evaluation

if TYPE_CHECKING:
    from citefix.store import Store


def signature(pipeline, decomposer) -> dict:
    """Everything that changes a check's result besides the case: the verifier with its parameters (fingerprint),
    the decomposer, the LLM and citefix's version. A batch reuses a stored check only when all of it matches."""
    from citefix.revision.incremental import verifier_fingerprint
    from citefix.version import __version__

    llm = getattr(pipeline, "llm", None)
    from citefix.llm.failures import redact

    return {"verifier": verifier_fingerprint(pipeline.verifier), "decomposer": decomposer.name,
            "llm": pipeline.settings.llm, "version": __version__,
            # the server that answers: two servers behind one model name are two checks
            "endpoint": redact(llm.endpoint()) if llm is not None and hasattr(llm, "endpoint") else None,
            "acu_granularity": pipeline.settings.acu_granularity, "aggregation": pipeline.settings.aggregation}


def run_settings(settings, pipeline, decomposer=None) -> dict:
    """What a check run records about how it was judged (compared when a batch resumes)."""
    out = {"verifier": settings.verifier, "decomposer": settings.decomposer,
           "acu_granularity": settings.acu_granularity, "aggregation": settings.aggregation}
    if decomposer is not None:
        out["signature"] = signature(pipeline, decomposer)
    return out


def find_checked(case: Case, pipeline, store: Store) -> tuple[Evaluation, int] | None:
    """The newest finished check of this case (same content) with the same signature, if the store holds one; none
    with the model cache off (--no-cache: every answer asked for again)."""
    import json

    if getattr(pipeline.settings, "cache", True) is False:
        return None
    want = signature(pipeline, pipeline.decomposer_for(case.kind))
    for row in store.find_runs(content_hash=case.content_hash(), command="check"):
        if row.status != "finished":
            continue
        try:
            sig = json.loads(row.settings or "{}").get("signature")
        except json.JSONDecodeError:
            continue
        if sig == want and store.rounds(row.id):
            return store.evaluation(row.id, 0), row.id
    return None


def check_case(case: Case, pipeline, store, *, input_path: str | None = None, command: str = "check",
               on_event=None, evaluation: Evaluation | None = None) -> tuple[Evaluation, int, bool]:
    """Evaluate `case`, store it as a run (round 0); return (evaluation, run id, failed). A refinement session with
    zero revision rounds (`_check_run`). `evaluation`: one made elsewhere (a Ray worker, citefix.executor) with the
    same settings, stored as it is."""
    decomposer = pipeline.decomposer_for(case.kind)
    result = _check_run(case, pipeline=pipeline, store=store, decomposer=decomposer, settings=run_settings(pipeline.settings, pipeline, decomposer),
                   command=command, input_path=input_path, on_event=on_event, evaluation=evaluation)
    return cast("tuple[Evaluation, int, bool]", result)  # stored in `store`: the run has an id


def _check_run(case: Case, *, pipeline, store, decomposer=None, settings: dict[str, Any] | None = None,
          command: str = "check", input_path: str | None = None, on_event: Event | None = None,
          evaluation: Evaluation | None = None) -> tuple[Evaluation, int | None, bool]:
    """A refine with zero revision rounds: evaluate `case`, store it as a run (round 0) and finish the run.

    Returns (evaluation, run id, failed). `on_event` gets evaluate()'s own events (decompose_started, …), as
    citefix.evaluate sends them; the session's round events are not passed on. `evaluation`: round 0's evaluation
    made elsewhere with the same pipeline (a Ray worker), stored as it is instead of evaluating again."""
    from citefix.errors import UserError
    from citefix.pipeline import session_parts
    from citefix.revision.parts import RunRecord
    from citefix.revision.session import RefineSession

    def forward(name: str, data: dict[str, Any]) -> None:
        if name == "progress" and on_event is not None:
            inner = {k: v for k, v in data.items() if k not in ("run_id", "case_id", "round", "stage", "step")}
            on_event(data["step"], inner)

    parts = session_parts(case.kind or "summary", pipeline=pipeline, decomposer=decomposer, strategy=None,
                          incremental=False)
    session = RefineSession(case, parts, store=store, record=RunRecord(command, input_path, dict(settings or {})),
                            on_event=forward)
    try:
        ev = session.evaluate_current(given=evaluation).evaluation
    except KeyboardInterrupt:
        session.finish("interrupted", "interrupted")
        raise
    except UserError:
        session.finish("error", "failed")
        raise
    # a text the model could not cut or check (or only partly) is not a result: its run fails with llm_error and
    # what is missing is named; a text with no statement to check is a finished run
    cut_short = incomplete(ev)
    failed = cut_short or ev.status == "error" or (ev.status == "no_units" and bool(ev.errors))
    session.finish("llm_error" if cut_short else ev.status, "failed" if failed else "finished", record_best=not cut_short)
    return ev, session.run_id, failed
