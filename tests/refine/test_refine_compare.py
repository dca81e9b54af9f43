"""`citefix compare` on a small case set: every strategy on every case, finished runs reused, the report (Markdown
table, JSON, PNG plot) computed from the store alone."""

from __future__ import annotations

import json

import pytest
from refine_fakes import FLAGGED, between, drop_first_flagged, make_case

from citefix.config import Settings
from citefix.llm.fake import ScriptedTransport, yes_answer
from citefix.pipeline import build_pipeline, session_parts
from citefix.revision.compare import run_compare, select_cases
from citefix.revision.compare_report import collect, render_markdown, write_report

CASES = [
    ("three-bad", "The council approved the plan on Monday, the plan costs 5 million, work takes two years, the mayor chairs the board."),
    ("one-bad", "The council approved the plan on Monday, work takes two years."),
    ("clean", "The council approved the plan on Monday."),
]


def responder(messages):
    """ACU feedback names the pieces → the fake reviser drops one; the generic request changes nothing."""
    last = messages[-1]["content"]
    if "<<<FEEDBACK" in last:
        text, comment = between(last, "<<<TEXT", "TEXT>>>"), between(last, "<<<FEEDBACK", "FEEDBACK>>>")
        return drop_first_flagged(text) if "does not support" in comment else text
    if "<<<TEXT" in last:
        body = between(last, "<<<TEXT", "TEXT>>>").rstrip(".")
        return "\n".join("- " + s.strip() for s in body.split(","))
    statement = last.split("<<<STATEMENT")[-1]
    return yes_answer(0.08 if any(f in statement for f in FLAGGED) else 0.93)


def setup(store):
    transport = ScriptedTransport(responder)
    pipeline = build_pipeline(Settings(llm="test/model", concurrency=1), store, transport=transport)
    cases = [make_case(text, cid) for cid, text in CASES]

    def parts_for(strategy, case):
        return session_parts(case.kind, pipeline=pipeline, strategy=strategy, reviser="llm", store=store)

    base = {"llm": "test/model", "verifier": pipeline.verifier.name, "reviser": "llm", "decomposer": "auto"}
    return transport, cases, parts_for, base


def test_compare_runs_every_strategy_on_every_case_and_reports_from_the_store(store, tmp_path):
    transport, cases, parts_for, base = setup(store)
    seen = []
    result = run_compare(cases, strategies=["acu", "none"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base,
                         max_rounds=2, on_run=lambda i, n, c, s, r, reused: seen.append((i, n, c.id, s, reused)))
    assert [(c, s) for _, _, c, s, _ in seen] == [(c, s) for c, _ in CASES for s in ("acu", "none")]
    assert not any(reused for *_, reused in seen) and seen[-1][:2] == (6, 6)
    by = result.by_strategy()
    assert len(by["acu"]) == len(by["none"]) == 3

    data = collect(store, by, 2)
    acu, none = data["strategies"]["acu"], data["strategies"]["none"]
    # acu: three-bad 0.29 → 0.36 → 0.505; one-bad 0.505 → 0.93; clean 0.93 (carried forward)
    assert acu["mean_score"][0] == pytest.approx(none["mean_score"][0])
    assert acu["mean_score"][2] > acu["mean_score"][1] > acu["mean_score"][0]
    assert none["mean_score"] == [pytest.approx(none["mean_score"][0])] * 3  # the control changes nothing
    assert acu["all_supported"] == pytest.approx(2 / 3) and none["all_supported"] == pytest.approx(1 / 3)
    assert none["stop_reasons"] == {"unchanged": 2, "all_supported": 1}
    assert acu["mean_edit_distance"] > 0 and none["mean_edit_distance"] == 0
    assert acu["total_tokens"] > 0 and acu["total_calls"] > 0
    # each number traces back to rounds in the store
    run = acu["runs"][0]
    rows = store.rounds(run["run_id"])
    assert run["scores"][: len(rows)] == [r.score for r in rows]

    paths = write_report(store, by, 2, tmp_path / "out", notes=["test"])
    md = paths["markdown"].read_text()
    assert "| strategy | cases | round 0 | round 1 | round 2 |" in md
    assert md.count("| acu | 3 |") == 1 and "| none | 3 |" in md
    assert paths["plot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads(paths["json"].read_text())
    assert [r["run_id"] for r in report["strategies"]["acu"]["runs"]] == by["acu"]


def test_compare_reuses_finished_runs_and_resumes_unfinished_ones(store):
    transport, cases, parts_for, base = setup(store)
    first = run_compare(cases, strategies=["acu"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base, max_rounds=2)
    n_requests = len(transport.requests)
    again = run_compare(cases, strategies=["acu"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base, max_rounds=2)
    assert [r.run_id for r in again.runs] == [r.run_id for r in first.runs]
    assert all(r.reused for r in again.runs)
    assert len(transport.requests) == n_requests  # nothing asked again
    # another number of rounds is another experiment
    more = run_compare(cases[:1], strategies=["acu"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base, max_rounds=3)
    assert not more.runs[0].reused and more.runs[0].run_id not in [r.run_id for r in first.runs]
    # an interrupted run is resumed, not started over
    store.update_run(more.runs[0].run_id, status="interrupted")
    store.delete_rounds_from(more.runs[0].run_id, 2)
    resumed = run_compare(cases[:1], strategies=["acu"], store=store, make_parts=parts_for, settings={"llm": "test/model"}, base_signature=base,
                          max_rounds=3)
    assert resumed.runs[0].run_id == more.runs[0].run_id and not resumed.runs[0].reused
    assert [r.n for r in store.rounds(more.runs[0].run_id)] == [0, 1, 2, 3]
    assert store.run(more.runs[0].run_id).status == "finished"


def test_select_cases_seed_and_limit():
    cases = [make_case(t, c) for c, t in CASES]
    assert [c.id for c in select_cases(cases, limit=2)] == ["three-bad", "one-bad"]
    a = [c.id for c in select_cases(cases, seed=3)]
    assert sorted(a) == sorted(c for c, _ in CASES) and a == [c.id for c in select_cases(cases, seed=3)]


def test_markdown_renders_missing_values():
    data = {"max_rounds": 1, "strategies": {"acu": {
        "cases": 0, "mean_score": [None, None], "q25": [None, None], "q75": [None, None], "mean_judge_score": [None, None],
        "all_supported_before": None, "all_supported": None, "mean_best_score": None, "mean_edit_distance": None,
        "mean_rounds_used": None, "mean_tokens": None, "total_tokens": 0, "total_calls": 0, "total_cost": 0.0,
        "stop_reasons": {}, "runs": []}}}
    md = render_markdown(data)
    assert "| acu | 0 | — | — |" in md
