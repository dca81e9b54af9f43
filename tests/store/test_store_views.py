"""The datasette-views migration: calls carry foreign keys to runs and rounds, and the views answer the common questions
(score per round per strategy, calls and cost per run) from a real store file."""

from __future__ import annotations

import sqlite3

from helpers import rows

from citefix.models import CallRecord, Case, Evaluation, Source

CASE = Case(id="a", text="The depot closed in 1987.", sources=[Source(id="1", text="The depot closed in 1987.")])


def test_foreign_keys_and_views(store):
    fks = {(fk.column, fk.other_table) for fk in store.db["calls"].foreign_keys}
    assert {("run_id", "runs"), ("round_id", "rounds")} <= fks
    run_id = store.start_run(CASE, "refine", llm="openai/gpt-4o-mini", strategy="acu")
    priced = CallRecord(purpose="revise", model="m", messages=[], prompt_tokens=10, completion_tokens=5, cost=0.002)
    unpriced = CallRecord(purpose="acu_verify", model="m", messages=[], prompt_tokens=7, completion_tokens=1, cost=None)
    cached = CallRecord(purpose="acu_verify", model="m", messages=[], cached=True, cost=0.0)
    store.write_round(run_id, 0, Evaluation(case_id="a", kind="summary", text="t0", score=0.5), calls=[priced, cached])
    store.write_round(run_id, 1, Evaluation(case_id="a", kind="summary", text="t1", score=0.9), calls=[priced])
    store.finish_run(run_id, "finished", best_round=1, stop_reason="all_supported")
    got = rows(store.path, "select round, score, best from round_scores order by round")
    assert got == [{"round": 0, "score": 0.5, "best": 0}, {"round": 1, "score": 0.9, "best": 1}]
    assert rows(store.path, "select strategy, round, runs, mean_score from strategy_round_scores order by round") == [
        {"strategy": "acu", "round": 0, "runs": 1, "mean_score": 0.5},
        {"strategy": "acu", "round": 1, "runs": 1, "mean_score": 0.9}]
    cost = rows(store.path, "select * from run_costs")[0]
    assert cost["calls"] == 3 and cost["cached_calls"] == 1 and cost["prompt_tokens"] == 20
    assert abs(cost["cost"] - 0.004) < 1e-9 and cost["unpriced_calls"] == 0
    # a failed attempt that was retried (the per-attempt log) is not a call and costs nothing
    retried = CallRecord(purpose="revise", model="m", messages=[], status="retried", error="timed out", attempt=1)
    store.write_calls(run_id, None, [retried])
    cost = rows(store.path, "select * from run_costs")[0]
    assert cost["calls"] == 3 and cost["retried_attempts"] == 1 and abs(cost["cost"] - 0.004) < 1e-9
    from citefix.costs import summarise_calls

    spent = summarise_calls(store.calls(run_id))
    assert (spent.calls, spent.retried, spent.failed) == (3, 1, 0)
    store.write_calls(run_id, None, [unpriced])
    assert rows(store.path, "select cost, unpriced_calls from run_costs")[0] == {"cost": None, "unpriced_calls": 1}
    # the key holds: a call naming a run that does not exist is refused
    conn = sqlite3.connect(store.path)
    conn.execute("PRAGMA foreign_keys=ON")
    try:
        conn.execute("insert into calls (run_id, purpose, model) values (999, 'x', 'm')")
        raised = False
    except sqlite3.IntegrityError:
        raised = True
    finally:
        conn.close()
    assert raised
