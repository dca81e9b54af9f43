"""compare --executor ray: new (case, strategy) runs are refined on Ray workers, each into a private SQLite
store, and imported whole into the driver's store (Store.export_run / Store.import_run); the driver alone writes the
real store. The Ray tests run a local 2-CPU instance and are skipped when Ray is not installed."""

from __future__ import annotations

import json
import re

import pytest
from cli_helpers import cli
from executor_helpers import RECS, assert_same, compare_runs
from helpers import rows

from citefix.models import CallRecord, Case, Evaluation, Evidence, Source, Unit, Verdict

# --- Store.export_run / Store.import_run on real SQLite files ------------------------------------------------------------


def _evaluation(case: Case, text: str, scores: list[float]) -> Evaluation:
    units = [Unit(id=f"u{i + 1}", text=f"unit {i + 1} of {text}", kind="acu", decomposer="acu", start=0, end=4,
                  sentence=0, meta={"i": i}) for i in range(len(scores))]
    verdicts = [Verdict(unit_id=u.id, verifier="offline", score=s, label="supported" if s > 0.5 else "unsupported",
                        evidence=Evidence(source_id="1", start=0, end=3, text="The"), details={"s": s})
                for u, s in zip(units, scores)]
    return Evaluation(case_id=case.id, kind="summary", text=text, units=units, verdicts=verdicts,
                      score=sum(scores) / len(scores), scores={"coverage": 1.0})


def _call(purpose: str) -> CallRecord:
    return CallRecord(purpose=purpose, model="fake/model", messages=[{"role": "user", "content": purpose}],
                      response="ok", prompt_tokens=3, completion_tokens=2, cost=0.001)


def _contents(store, run_id: int) -> dict:
    """Everything stored of one run, with its ids and the ids it points at left out."""
    def strip(row: dict, *keys: str) -> dict:
        return {k: v for k, v in row.items() if k not in ("id", *keys)}

    run = store.db["runs"].get(run_id)
    rounds = [r.as_dict() for r in store.rounds(run_id)]
    out = {"run": strip(run, "case_pk"), "case": strip(store.db["cases"].get(run["case_pk"]), "created"),
           "rounds": [strip(r, "run_id") for r in rounds], "units": [], "verdicts": [], "scores": [],
           "calls": [strip(c, "run_id", "round_id") | {"round_n": next((r["n"] for r in rounds if r["id"] == c["round_id"]),
                                                                       None)} for c in (c.as_dict() for c in store.calls(run_id))]}
    for r in rounds:
        units = list(store.db["units"].rows_where("round_id = ?", [r["id"]], order_by="id"))
        uid_of = {u["id"]: u["uid"] for u in units}
        out["units"] += [strip(u, "round_id") for u in units]
        out["verdicts"] += [strip(v, "round_id", "unit_row") | {"unit": uid_of.get(v["unit_row"])}
                            for v in store.db["verdicts"].rows_where("round_id = ?", [r["id"]], order_by="id")]
        out["scores"] += [strip(s, "round_id") for s in store.db["scores"].rows_where("round_id = ?", [r["id"]], order_by="id")]
    return out


def test_import_run_copies_a_whole_run_with_new_ids(tmp_path):
    from citefix.revision.compare import find_reusable
    from citefix.store import Store

    case = Case(id="k1", sources=[Source(id="1", text="The depot closed in 1987.")], text="The depot closed in 1990.")
    other = Case(id="k0", sources=[Source(id="1", text="Another source.")], text="Another text.")
    worker = Store(tmp_path / "worker.db")
    sig = {"strategy": "acu", "max_rounds": 2}
    run_id = worker.start_run(case, "compare", verifier="offline", strategy="acu",
                              settings={"reviser": "offline", "signature": sig})
    worker.write_round(run_id, 0, _evaluation(case, case.text, [0.2, 0.9]), calls=[_call("evaluate")])
    worker.write_round(run_id, 1, _evaluation(case, "The depot closed.", [0.95]), parent=0, strategy="acu",
                       judge=_evaluation(case, "The depot closed.", [0.7]), edit_prev=1, edit_orig=1)
    worker.write_round(run_id, 2, _evaluation(case, "It closed.", [0.4]), parent=1, strategy="acu", accepted=False)
    worker.write_calls(run_id, None, [_call("revise")])  # a call of a proposal that became no round
    worker.set_lineage(run_id, [0, 1])
    worker.finish_run(run_id, "finished", best_round=1, stop_reason="max_rounds")
    bundle = worker.export_run(run_id)
    json.dumps(bundle)  # plain rows: what a Ray worker can hand back

    driver = Store(tmp_path / "driver.db")
    first = driver.start_run(other, "check")  # so that the ids of cases, runs and rounds differ from the worker's
    driver.write_round(first, 0, _evaluation(other, other.text, [0.5, 0.5, 0.5]))
    new_id = driver.import_run(bundle)
    assert new_id != run_id
    assert _contents(driver, new_id) == _contents(worker, run_id)
    assert driver.load_rounds(new_id) == worker.load_rounds(run_id)  # what a resume or a report reads
    assert driver.evaluation(new_id) == worker.evaluation(run_id)
    assert driver.run(new_id).status == "finished" and driver.run(new_id).best_round == 1
    assert find_reusable(driver, case, sig).id == new_id  # compare's reuse finds it by content hash and signature
    # a verdict points at the unit row of its own round in the new store
    for v in driver.db.query("select v.uid, u.uid as unit_uid, v.round_id, u.round_id as unit_round from verdicts v "
                             "join rounds x on x.id = v.round_id left join units u on u.id = v.unit_row "
                             "where x.run_id = ?", [new_id]):
        assert v["uid"] == v["unit_uid"] and v["round_id"] == v["unit_round"]
    # a second import of a run of the same case shares the case row
    again = driver.import_run(bundle)
    assert driver.run(again).case_pk == driver.run(new_id).case_pk
    assert len(list(driver.db["cases"].rows)) == 2
    # the run's calls (with and without a round) point at the new run and its new rounds
    calls = driver.calls(new_id)
    assert [c.purpose for c in calls] == ["evaluate", "revise"]
    assert calls[0].round_id == driver.rounds(new_id)[0].id and calls[1].round_id is None
    worker.close()
    driver.close()


def test_import_run_is_one_transaction(tmp_path):
    """A bundle that cannot be written whole leaves nothing behind (no run without its rounds)."""
    import sqlite3

    from citefix.store import Store

    case = Case(id="k1", sources=[Source(id="1", text="The depot closed in 1987.")], text="The depot closed.")
    worker = Store(tmp_path / "worker.db")
    run_id = worker.start_run(case, "compare")
    worker.write_round(run_id, 0, _evaluation(case, case.text, [0.9]))
    worker.finish_run(run_id, "finished", best_round=0, stop_reason="all_supported")
    bundle = worker.export_run(run_id)
    bundle["scores"][0]["no_such_column"] = 1
    driver = Store(tmp_path / "driver.db")
    with pytest.raises(sqlite3.OperationalError):
        driver.import_run(bundle)
    assert driver.db.execute("select count(*) from runs").fetchone()[0] == 0
    assert driver.db.execute("select count(*) from rounds").fetchone()[0] == 0
    assert driver.db.execute("select count(*) from cases").fetchone()[0] == 0


# --- citefix compare --executor ray ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_compare_on_ray_stores_the_runs_of_the_local_executor_and_reuses_them(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'citefix[ray]'); the Ray executor is optional")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(r) for r in RECS) + "\n")
    env = {"OMP_NUM_THREADS": "1", "CITEFIX_TORCH_THREADS": "1", "RAY_ADDRESS": ""}  # one torch thread, as each worker

    def compare(db, out, *extra):
        return cli("compare", str(cases), "--strategies", "acu,none", "--rounds", "2", "--report", str(tmp_path / out),
                   "--db", str(tmp_path / db), *extra, tmp_path=tmp_path, extra_env=env)

    local = compare("local.db", "out_local", "--executor", "local")
    assert local.returncode == 0, local.stderr
    ray_run = compare("ray.db", "out_ray", "--executor", "ray", "--ray-workers", "2")
    assert ray_run.returncode == 0, ray_run.stderr
    assert "starting Ray workers" in ray_run.stderr and "Traceback" not in ray_run.stderr
    a, b = compare_runs(tmp_path / "local.db"), compare_runs(tmp_path / "ray.db")
    assert len(a) == len(RECS) * 2 and [(r["case_id"], r["strategy"]) for r in b] == [(r["case_id"], r["strategy"]) for r in a]
    assert any(len(r["rounds"]) > 1 for r in a)  # some run was revised, so rounds after the first are compared too
    assert_same(b, a)
    # the calls, and the report written from the Ray-written store, are those of the local one
    assert rows(tmp_path / "ray.db", "select count(*) as n from calls")[0] == rows(tmp_path / "local.db",
                                                                                    "select count(*) as n from calls")[0]
    assert ray_run.stdout.replace("ray.db", "X.db") == local.stdout.replace("local.db", "X.db")
    for name in ("report.md", "report.json", "report.html", "scores.png"):
        assert (tmp_path / "out_ray" / name).is_file(), name
    # report.json from the Ray-written store: the local one's figures, naming runs stored there
    rep_a, rep_b = (json.loads((tmp_path / d / "report.json").read_text()) for d in ("out_local", "out_ray"))
    for rep in (rep_a, rep_b):
        rep.pop("store"), rep.pop("notes")
    assert_same(rep_b, rep_a)
    stored = {r["id"] for r in rows(tmp_path / "ray.db", "select id from runs")}
    named = {run["run_id"] for s in rep_b["strategies"].values() for run in s["runs"]}
    assert len(named) == len(RECS) * 2 and named <= stored
    # run again on Ray: every run is reused, nothing new is stored
    again = compare("ray.db", "out_ray2", "--executor", "ray", "--ray-workers", "2")
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("reused run") == len(RECS) * 2, again.stderr
    assert len(rows(tmp_path / "ray.db", "select id from runs")) == len(RECS) * 2
    assert_same(compare_runs(tmp_path / "ray.db"), a)


@pytest.mark.slow
def test_compare_on_ray_resumes_an_unfinished_run_on_the_driver(tmp_path):
    """A stored run that did not finish is resumed here (from its stored rounds); the other runs go to the workers."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'citefix[ray]'); the Ray executor is optional")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(r) for r in RECS[:2]) + "\n")
    db = tmp_path / "c.db"
    env = {"OMP_NUM_THREADS": "1", "CITEFIX_TORCH_THREADS": "1", "RAY_ADDRESS": ""}
    args = ["compare", str(cases), "--strategies", "acu,none", "--rounds", "2", "--db", str(db)]
    first = cli(*args, "--report", str(tmp_path / "o1"), tmp_path=tmp_path, extra_env=env)
    assert first.returncode == 0, first.stderr
    # make run a · acu look killed after its first round: later rounds gone, status running, no live process
    import sqlite3

    conn = sqlite3.connect(db)
    run_id = conn.execute("select r.id from runs r join cases c on c.id = r.case_pk where c.case_id = 'a' and "
                          "r.strategy = 'acu'").fetchone()[0]
    before = compare_runs(db)
    for table in ("verdicts", "units", "scores"):
        conn.execute(f"delete from {table} where round_id in (select id from rounds where run_id = ? and n > 0)", [run_id])
    conn.execute("update calls set round_id = null where round_id in (select id from rounds where run_id = ? and n > 0)",
                 [run_id])
    conn.execute("delete from rounds where run_id = ? and n > 0", [run_id])
    conn.execute("update runs set status = 'running', stop_reason = null, best_round = null, pid = 999999999 "
                 "where id = ?", [run_id])
    # and run b · none never made: gone with its rounds
    gone = conn.execute("select r.id from runs r join cases c on c.id = r.case_pk where c.case_id = 'b' and "
                        "r.strategy = 'none'").fetchone()[0]
    for table in ("verdicts", "units", "scores", "calls"):
        conn.execute(f"delete from {table} where round_id in (select id from rounds where run_id = ?)", [gone])
    conn.execute("delete from calls where run_id = ?", [gone])
    conn.execute("delete from rounds where run_id = ?", [gone])
    conn.execute("delete from runs where id = ?", [gone])
    conn.commit()
    conn.close()
    r = cli(*args, "--report", str(tmp_path / "o2"), "--executor", "ray", "--ray-workers", "2", tmp_path=tmp_path,
            extra_env=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("reused run") == 2, r.stderr  # a · none and b · acu
    after = compare_runs(db)
    assert len(after) == 4
    assert_same(after, before)  # a · acu resumed to the same end; b · none refined anew on a worker
    # resumed in place on the driver (the same run row, its first round kept), not refined anew on a worker
    assert re.search(rf"\[1/4\] a · acu: \S+ → \S+ \(best round \d+, \w+\) run {run_id}$", r.stderr, re.M), r.stderr
    again = rows(db, "select r.id, r.status from runs r join cases c on c.id = r.case_pk where c.case_id = 'a' and "
                     "r.strategy = 'acu'")
    assert again == [{"id": run_id, "status": "finished"}]


def test_compare_ray_flags(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(RECS[0]) + "\n")
    common = ["compare", str(cases), "--report", str(tmp_path / "o"), "--db", str(tmp_path / "x.db")]
    r = cli(*common, "--ray-workers", "2", tmp_path=tmp_path)
    assert r.returncode == 2 and "--ray-workers needs --executor ray" in r.stderr, r.stderr
    r = cli(*common, "--executor", "ray", "--max-cost", "1", tmp_path=tmp_path)
    assert r.returncode == 2 and "--max-cost" in r.stderr and "--executor local" in r.stderr, r.stderr
    assert not (tmp_path / "x.db").exists()  # refused before anything was loaded or stored
