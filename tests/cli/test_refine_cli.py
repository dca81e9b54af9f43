"""`citefix refine` and `citefix compare` from the command line: offline end to end, JSON events, exit codes,
resume, and a process killed mid-round (SIGKILL) that loses no completed round."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from cli_helpers import citefix_main
from helpers import rows
from loopback import LoopbackLLM, messages_responder
from refine_cli_helpers import cli_env, write_case
from refine_fakes import drop_first_flagged, refine_responder

from citefix.cli import main

MODEL = "openai/test-model"


# -- offline, in process ----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_offline_refine_json_events_out_file_resume_and_history(tmp_path, capsys):
    db = tmp_path / "r.db"
    out = tmp_path / "revised.txt"
    assert main(["refine", "--example", "summary", "--db", str(db), "--json", "--out", str(out)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = [e["event"] for e in events]
    assert names[0] == "round_started" and names[-1] == "run_finished"
    assert set(names) == {"round_started", "units_scored", "revision_proposed", "run_finished"}
    fin = events[-1]
    # what is left is the partial clause ("who chairs …"): shown for a look, never cut, so no feedback remains
    assert fin["stop_reason"] == "no_feedback" and fin["best_round"] == 1
    run_id = fin["run_id"]
    text = out.read_text().strip()
    # the example's invented "two years" is what the offline verifier flags (the rest depends on its tuning)
    assert text == fin["text"] and "two years" not in text
    assert rows(db, "select n_unsupported from rounds where run_id = ? and n = 1", [run_id])[0]["n_unsupported"] == 1
    assert all(e["run_id"] == run_id and e["case_id"] == "harwick-depot" for e in events)

    # resuming a finished run re-checks the stop rules and adds nothing
    assert main(["refine", "--resume", str(run_id), "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert "resuming run" in captured.err and captured.out.strip() == text
    assert [r["n"] for r in rows(db, "select n from rounds where run_id = ? order by n", [run_id])] == [0, 1]

    assert main(["runs", "--strategy", "acu", "--command", "refine", "--db", str(db)]) == 0
    assert "harwick-depot" in capsys.readouterr().out
    assert main(["show", str(run_id), "--diff", "--db", str(db)]) == 0
    diff = capsys.readouterr().out
    assert "[-" in diff and "two years" in diff
    assert main(["export", str(run_id), "--format", "md", "--db", str(db)]) == 0
    md = capsys.readouterr().out
    assert "## Round 1" in md and "Feedback:" in md and "strategy: acu" in md


@pytest.mark.slow
def test_offline_compare_writes_report_and_plot_then_reuses_runs(tmp_path, capsys):
    cases = tmp_path / "cases.jsonl"
    recs = [
        {"id": "a", "document": "The council approved the plan on Monday. Work will take eighteen months.",
         "summary": "The council, which met in secret, approved the plan on Monday."},
        {"id": "b", "document": "Marta Ruiz finished the Lisbon marathon in under three hours.",
         "summary": "Marta Ruiz, a nurse from Porto, finished the Lisbon marathon in under three hours."},
        {"id": "c", "document": "Shares in Nordlite fell 8% on Tuesday.", "summary": "Shares in Nordlite fell 8% on Tuesday."},
    ]
    cases.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    db, out = tmp_path / "c.db", tmp_path / "out"
    args = ["compare", str(cases), "--strategies", "acu,none", "--rounds", "2", "--report", str(out), "--db", str(db)]
    assert main(args) == 0
    cap = capsys.readouterr()
    assert "## Mean score per round" in cap.out and "| acu | 3 |" in cap.out and "| none | 3 |" in cap.out
    assert (out / "scores.png").read_bytes()[:4] == b"\x89PNG"
    report = json.loads((out / "report.json").read_text())
    assert set(report["strategies"]) == {"acu", "none"}
    assert len(rows(db, "select id from runs where command = 'compare'")) == 6
    assert cap.err.count("[") >= 6 and "reused" not in cap.err
    assert main(args) == 0
    assert capsys.readouterr().err.count("reused run") == 6
    assert len(rows(db, "select id from runs")) == 6


def test_user_errors_exit_2(tmp_path, capsys):
    db = str(tmp_path / "e.db")
    assert main(["refine", "--db", db]) == 2
    assert "nothing to check" in capsys.readouterr().err
    assert main(["refine", "--resume", "999", "--db", db]) == 2
    assert "no store at" in capsys.readouterr().err  # nothing to resume, and no store made to say so
    from citefix.store import Store

    Store(db).close()
    assert main(["refine", "--resume", "999", "--db", db]) == 2
    assert "no run 999" in capsys.readouterr().err
    assert main(["refine", "--example", "summary", "--strategy", "critique", "--db", db]) == 2
    assert "needs an LLM" in capsys.readouterr().err
    assert main(["refine", "--resume", "1", "--example", "summary", "--db", db]) == 2
    assert main(["compare", str(write_case(tmp_path)), "--strategies", "acu,bogus", "--report", str(tmp_path / "o"), "--db", db]) == 2
    assert "unknown strategy 'bogus'" in capsys.readouterr().err


# -- through litellm and HTTP to the loopback server ----------------------------------------------------------------


def test_refused_revision_exits_3_and_keeps_round_zero(tmp_path, capsys, monkeypatch):
    with LoopbackLLM(messages_responder(refine_responder(revise=lambda t: "I'm sorry, I can't help with that."))) as srv:
        for k, v in cli_env(tmp_path, srv).items():
            monkeypatch.setenv(k, v)
        db = tmp_path / "x.db"
        code = main(["refine", str(write_case(tmp_path)), "--llm", MODEL, "--db", str(db)])
    assert code == 3
    assert "revision_refused" in capsys.readouterr().err
    run = rows(db, "select * from runs")[0]
    assert run["status"] == "failed" and run["stop_reason"] == "revision_refused"
    assert [r["n"] for r in rows(db, "select n from rounds")] == [0]


@pytest.mark.parametrize("strategy", ["acu", "critique"])
def test_three_rounds_over_http_store_every_call(tmp_path, strategy):
    with LoopbackLLM(messages_responder(refine_responder())) as srv:
        db = tmp_path / "h.db"
        proc = citefix_main("refine", write_case(tmp_path), "--llm", MODEL, "--strategy", strategy, "--rounds", "3",
                            "--db", db, "--json", env=cli_env(tmp_path, srv), cwd=tmp_path)
        requests = srv.stats.requests
    assert proc.returncode == 0, proc.stderr
    run = rows(db, "select * from runs")[0]
    assert run["strategy"] == strategy and run["status"] == "finished"
    assert [r["n"] for r in rows(db, "select n from rounds where run_id = ? order by n", [run["id"]])] == [0, 1, 2, 3]
    calls = rows(db, "select * from calls where run_id = ?", [run["id"]])
    assert sum(1 for c in calls if not c["cached"]) == requests  # every request the server answered is stored
    per_round = {}
    for c in calls:
        per_round.setdefault(c["round_id"], []).append(c["purpose"])
    round_ids = [r["id"] for r in rows(db, "select id from rounds where run_id = ? order by n", [run["id"]])]
    assert set(per_round) == set(round_ids)
    for rid in round_ids[1:]:
        assert "revise" in per_round[rid]
        assert ("critique" in per_round[rid]) == (strategy == "critique")
    events = [json.loads(line)["event"] for line in proc.stdout.splitlines()]
    assert events.count("revision_proposed") == 3 and events[-1] == "run_finished"


def test_sigkill_mid_round_then_resume_loses_no_completed_round(tmp_path):
    hold = threading.Event()
    hold.set()
    release = threading.Event()
    seen = {"revise": 0}

    def revise(text):
        seen["revise"] += 1
        if seen["revise"] == 2 and hold.is_set():
            release.wait(60)  # round 2's revision hangs until the test lets go
        return drop_first_flagged(text)

    with LoopbackLLM(messages_responder(refine_responder(revise=revise))) as srv:
        db = tmp_path / "k.db"
        env = cli_env(tmp_path, srv)
        cmd = [sys.executable, "-m", "citefix.cli", "refine", str(write_case(tmp_path)), "--llm", MODEL, "--rounds", "3",
               "--db", str(db)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
        try:
            deadline = time.time() + 240
            while time.time() < deadline:
                if db.exists():
                    try:
                        if rows(db, "select n from rounds where n = 1") and seen["revise"] >= 2:
                            break
                    except sqlite3.OperationalError:
                        pass
                if proc.poll() is not None:
                    pytest.fail(f"refine ended before it could be killed: {proc.stderr.read().decode()[-2000:]}")
                time.sleep(0.2)
            else:
                pytest.fail("round 1 was never stored")
            proc.kill()  # SIGKILL: no handler runs
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
            hold.clear()
            release.set()
        before = rows(db, "select id, n, text, score, evaluation from rounds order by n")
        run = rows(db, "select * from runs")[0]
        assert [r["n"] for r in before] == [0, 1]
        assert run["status"] == "running"  # killed: nothing marked it

        resumed = subprocess.run([sys.executable, "-m", "citefix.cli", "refine", "--resume", str(run["id"]), "--db", str(db)],
                                 capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    after = rows(db, "select id, n, text, score, evaluation, parent from rounds order by n")
    assert [(r["id"], r["n"], r["text"], r["score"], r["evaluation"]) for r in after[:2]] == \
        [(r["id"], r["n"], r["text"], r["score"], r["evaluation"]) for r in before]
    assert [r["n"] for r in after] == [0, 1, 2, 3] and after[2]["parent"] == 1
    run = rows(db, "select * from runs")[0]
    assert run["status"] == "finished" and run["stop_reason"] == "all_supported" and run["best_round"] == 3
    assert resumed.stdout.strip() == "The council approved the plan on Monday."
