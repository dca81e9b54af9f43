"""Scripted model answers for the tests (and bench/bench_incremental.py): ACU lists, P(Yes) verdicts,
critiques and revisions, all decided by which flagged phrases a text still holds."""

from __future__ import annotations

from typing import Any, Callable

from citefix.llm.fake import yes_answer
from citefix.models import Case, Source

FLAGGED = ("5 million", "two years", "chairs")

SOURCE = ("The council approved the plan on Monday. The plan costs 2 million pounds and work will take eighteen months. "
          "The mayor said the park would open in 2027. The board is chaired by Ann Lee.")
TEXT = "The council approved the plan on Monday, the plan costs 5 million, work takes two years, the mayor chairs the board."


def make_case(text: str = TEXT, case_id: str = "plan") -> Case:
    return Case(id=case_id, sources=[Source(id="1", title="council", text=SOURCE)], text=text)


def between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def drop_first_flagged(text: str, flagged=FLAGGED) -> str:
    """Remove the first comma-separated piece that holds a flagged phrase (the scripted reviser's fix)."""
    end = "." if text.rstrip().endswith(".") else ""
    pieces = [p.strip() for p in text.rstrip().rstrip(".").split(",")]
    for i, p in enumerate(pieces):
        if any(f in p for f in flagged):
            del pieces[i]
            break
    return ", ".join(pieces) + end


def refine_responder(
    flagged=FLAGGED,
    *,
    revise: Callable[[str], Any] | None = None,
    critique: str = "Rating: 2\nExplanation: The source says the plan costs 2 million pounds, not 5 million.",
    p_yes: float = 0.93,
    p_no: float = 0.08,
    log: list | None = None,
):
    """A responder of the messages: revise / critique / ACU generation / Yes-No verification."""

    def respond(messages):
        last = messages[-1]["content"]
        if "<<<FEEDBACK" in last:
            text = between(last, "<<<TEXT", "TEXT>>>")
            if log is not None:
                log.append(("revise", text, between(last, "<<<FEEDBACK", "FEEDBACK>>>")))
            return revise(text) if revise else drop_first_flagged(text, flagged)
        if "Rate the consistency" in last:
            if log is not None:
                log.append(("critique", between(last, "<<<TEXT", "TEXT>>>"), None))
            return critique
        if "<<<TEXT" in last:
            body = between(last, "<<<TEXT", "TEXT>>>").rstrip(".")
            return "\n".join("- " + s.strip() for s in body.split(",") if s.strip())
        statement = last.split("<<<STATEMENT")[-1]
        return yes_answer(p_no if any(w in statement for w in flagged) else p_yes)

    return respond


def acu_responder(unsupported_words=("two years", "chairs"), p_yes=0.93, p_no=0.08):
    """A scripted LLM: lists comma-separated pieces as ACUs; answers P(Yes) low when a statement has a flagged word."""
    def respond(messages):
        last = messages[-1]["content"]
        if "<<<TEXT" in last:
            body = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip()
            return "\n".join("- " + s.strip() for s in body.split(",") if s.strip())
        statement = last.split("<<<STATEMENT")[-1]
        if any(w in statement for w in unsupported_words):
            return yes_answer(p_no)
        return yes_answer(p_yes)

    return respond


def run_refine(case, pipeline, *, strategy: str = "acu", reviser=None, judge_verifier=None, store=None,
               max_rounds: int | None = 3, target: float | None = None, patience: int | None = None,
               resume_run: int | None = None, on_event=None, cancel=None, settings: dict[str, Any] | None = None,
               command: str = "refine"):
    """citefix.revision.refine with the session's parts built from `pipeline` (citefix.pipeline.session_parts)."""
    from citefix.pipeline import session_parts
    from citefix.revision import RunRecord, StopRules, refine

    kind = (store.case_for_run(resume_run) if resume_run is not None else case).kind or "summary"
    parts = session_parts(kind, pipeline=pipeline, strategy=strategy, reviser=reviser, judge_verifier=judge_verifier,
                          store=store)
    return refine(case, parts, store=store, rules=StopRules(max_rounds, target, patience),
                  record=RunRecord(command, None, dict(settings or {})), resume_run=resume_run, on_event=on_event,
                  cancel=cancel)


def session_for(case, pipeline, *, strategy: str | None = "acu", reviser=None, store=None, resume_run=None):
    """A RefineSession (new, or resuming `resume_run`) with its parts built from `pipeline`."""
    from citefix.pipeline import session_parts
    from citefix.revision import RefineSession

    kind = (store.case_for_run(resume_run) if resume_run is not None else case).kind or "summary"
    parts = session_parts(kind, pipeline=pipeline, strategy=strategy, reviser=reviser, store=store)
    if resume_run is not None:
        return RefineSession.resume(store, resume_run, parts)
    return RefineSession(case, parts, store=store)
