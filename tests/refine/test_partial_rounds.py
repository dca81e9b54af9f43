"""No partial result passed off as whole: a round with a unit that could not be verified is retried once as a round,
then stored as `partial` (never the best round), the run stops with llm_error and the commands exit 3 naming the
units; compare reruns failed runs and lists unfinished ones first; a run whose process is gone reads as interrupted."""

from __future__ import annotations

import subprocess
import sys

from refine_fakes import FLAGGED, between, drop_first_flagged, make_case, run_refine, session_for

from citefix.config import Settings
from citefix.llm.failures import TransientLLMError
from citefix.llm.fake import ScriptedTransport, yes_answer
from citefix.pipeline import build_pipeline, session_parts
from citefix.revision.compare import run_compare
from citefix.revision.compare_report import write_report

TEXT = "The council approved the plan on Monday, the plan costs 5 million, the mayor chairs the board."


class Flaky:
    """Scripted answers; verification of a statement holding `broken` fails (a transient fault) while it is set."""

    def __init__(self, broken: str | None = "mayor", add: str = ""):
        self.broken = broken
        self.add = add  # appended by the reviser (a new unit, so the next round verifies something new)
        self.failed = 0

    def __call__(self, messages):
        last = messages[-1]["content"]
        if "<<<FEEDBACK" in last:
            revised = drop_first_flagged(between(last, "<<<TEXT", "TEXT>>>"))
            return revised.rstrip(".") + self.add + "." if self.add else revised
        if "<<<TEXT" in last:
            body = between(last, "<<<TEXT", "TEXT>>>").rstrip(".")
            return "\n".join("- " + s.strip() for s in body.split(",") if s.strip())
        statement = last.split("<<<STATEMENT")[-1]
        if self.broken and self.broken in statement:
            self.failed += 1
            return TransientLLMError("injected outage")
        return yes_answer(0.08 if any(f in statement for f in FLAGGED) else 0.93)


def pipeline_for(store, flaky):
    transport = ScriptedTransport(flaky)
    settings = Settings(llm="test/model", concurrency=1, llm_attempts=2, llm_backoff_max=0.0)
    return transport, build_pipeline(settings, store, transport=transport)


def test_a_round_with_an_unverified_unit_is_retried_then_stored_partial(store):
    flaky = Flaky()
    transport, pipeline = pipeline_for(store, flaky)
    res = run_refine(make_case(TEXT), pipeline, strategy="acu", reviser="llm", store=store, max_rounds=2)
    assert res.status == "failed" and res.stop_reason == "llm_error"
    assert "could not be verified" in res.message and "round 0" in res.message
    assert flaky.failed == 4  # 2 attempts per call, and the round was evaluated twice
    [row] = store.rounds(res.run_id)
    assert row.status == "partial"
    run = store.run(res.run_id)
    assert run.status == "failed" and run.stop_reason == "llm_error"
    # every attempt of both tries is in the call log
    calls = store.calls(res.run_id)
    assert sum(1 for c in calls if c.status in ("retried", "error")) == 4


def test_a_partial_round_is_never_the_best_round(store):
    flaky = Flaky(broken=None, add=", the park opens in 2027")
    transport, pipeline = pipeline_for(store, flaky)

    s = session_for(make_case(TEXT), pipeline, strategy="acu", reviser="llm", store=store)
    r0 = s.evaluate_current()
    flaky.broken = "park"  # round 1 (one flagged piece fewer, so a higher mean) cannot verify its new unit
    r1, _ = s.step()
    assert r1.evaluation.status == "partial" and r1.status == "partial"
    assert r1.score is not None and r1.score > r0.score  # the mean of the units it did check is higher…
    assert s.best_round().n == 0  # …but a partial round is never compared with a complete one
    assert s.stop_reason() == "llm_error"


def test_check_exits_3_and_names_the_units(tmp_path, monkeypatch):
    """check over HTTP: one statement's verification always fails → exit 3, the unit named, the run failed."""
    import json

    from helpers import rows, write
    from loopback import LoopbackLLM

    from citefix.cli import main

    def respond(req):
        last = req["messages"][-1]["content"]
        if "<<<TEXT" in last:
            body = between(last, "<<<TEXT", "TEXT>>>").rstrip(".")
            return "\n".join("- " + s.strip() for s in body.split(",") if s.strip())
        if "mayor" in last.split("<<<STATEMENT")[-1]:
            raise ValueError("planted")  # the loopback answers 400: not retried, the unit is not verified
        return yes_answer(0.9)

    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    with LoopbackLLM(respond) as srv:
        monkeypatch.setenv("OPENAI_API_BASE", srv.base_url)
        case = write(tmp_path, "c.json", json.dumps({"id": "c", "text": TEXT, "sources": [
            {"id": "1", "title": "t", "text": make_case().sources[0].text}]}))
        db = tmp_path / "p.db"
        rc = main(["check", case, "--llm", "openai/test-model", "--db", str(db), "--json"])
    assert rc == 3
    run = rows(db, "select * from runs")[0]
    assert run["status"] == "failed" and run["stop_reason"] == "llm_error" and run["best_round"] is None
    assert rows(db, "select status from rounds")[0]["status"] == "partial"


def test_compare_reruns_failed_runs_and_lists_unfinished_first(store, tmp_path):
    flaky = Flaky()
    transport, pipeline = pipeline_for(store, flaky)
    cases = [make_case(TEXT, "broken"), make_case("The council approved the plan on Monday.", "fine")]

    def parts_for(strategy, case):
        return session_parts(case.kind, pipeline=pipeline, strategy=strategy, reviser="llm", store=store)

    base = {"llm": "test/model", "verifier": pipeline.verifier.name, "reviser": "llm", "decomposer": "auto"}
    first = run_compare(cases, strategies=["acu"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base,
                        max_rounds=2)
    failed_id = first.runs[0].run_id
    assert store.run(failed_id).status == "failed"
    md = write_report(store, first.by_strategy(), 2, tmp_path / "out")["markdown"].read_text()
    head = md.split("|")[0]  # before the first table
    assert "1 run(s) did not finish" in head and f"run {failed_id} (broken, acu): failed, llm_error" in head

    flaky.broken = None  # the outage passes: the same compare reruns the failed run, and reuses the finished one
    n_before = len(transport.requests)
    again = run_compare(cases, strategies=["acu"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base,
                        max_rounds=2)
    assert [r.run_id for r in again.runs] == [r.run_id for r in first.runs]
    assert again.runs[0].reused is False and again.runs[1].reused is True
    assert len(transport.requests) > n_before
    run = store.run(failed_id)
    assert run.status == "finished" and run.stop_reason != "llm_error"
    assert all(r.status != "partial" for r in store.rounds(failed_id))
    md = write_report(store, again.by_strategy(), 2, tmp_path / "out2")["markdown"].read_text()
    assert "did not finish" not in md


def test_a_run_whose_process_is_gone_reads_as_interrupted(store, tmp_path):
    """A `running` run stored by a process that has ended shows as interrupted in runs, show and the store API."""
    from cli_helpers import cli

    proc = subprocess.run([sys.executable, "-c", (
        "import sys; from citefix.store import Store; from citefix.models import Case, Source\n"
        "s = Store(sys.argv[1]); c = Case(id='k', sources=[Source(id='1', title='t', text='a b')], text='a b')\n"
        "print(s.start_run(c, 'refine'))"), str(store.path)], capture_output=True, text=True, timeout=120)
    run_id = int(proc.stdout.strip())
    assert store.db["runs"].get(run_id)["status"] == "running"  # the stored row…
    assert store.run(run_id).status == "interrupted"  # …reads as interrupted: its pid is gone
    assert [r.status for r in store.list_runs()] == ["interrupted"]
    r = cli("runs", "--db", str(store.path), tmp_path=tmp_path)
    assert "interrupted" in r.stdout and "running" not in r.stdout
    # this process's own running run is alive
    mine = store.start_run(make_case(), "refine")
    assert store.run(mine).status == "running"
