"""One case checked and stored: the step `citefix check` and the Python API (`citefix.check`) share."""

from __future__ import annotations

from citefix.errors import UserError
from citefix.evaluate import evaluate
from citefix.models import Case, Evaluation


def run_settings(settings, pipeline) -> dict:
    """What a check run records about how it was judged (compared when a batch resumes)."""
    return {"verifier": settings.verifier, "decomposer": settings.decomposer}


def check_case(case: Case, pipeline, store, *, input_path: str | None = None, command: str = "check",
               on_event=None) -> tuple[Evaluation, int, bool]:
    """Evaluate `case`, store it as a run (round 0); return (evaluation, run id, failed)."""
    settings = pipeline.settings
    decomposer = pipeline.decomposer_for(case.kind)
    run_id = store.start_run(case, command, input_path=input_path, llm=settings.llm, decomposer=decomposer.name,
                             verifier=pipeline.verifier.name, settings=run_settings(settings, pipeline))
    try:
        ev = evaluate(case, decomposer=decomposer, verifier=pipeline.verifier, on_event=on_event)
    except KeyboardInterrupt:
        store.finish_run(run_id, "interrupted", stop_reason="interrupted")
        raise
    except UserError:
        store.finish_run(run_id, "failed", stop_reason="error")
        raise
    store.write_round(run_id, 0, ev)
    # "no units" because every model call failed is a failure too, not an empty text
    failed = ev.status == "error" or (ev.status == "no_units" and bool(ev.errors))
    store.finish_run(run_id, "failed" if failed else "finished", best_round=0, stop_reason=ev.status)
    return ev, run_id, failed
