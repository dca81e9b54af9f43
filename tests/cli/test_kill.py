"""A SIGKILL at a random moment loses no spend: every model call answered before the kill is in the call log (written
as it completes, not with its round), the store is intact, and the run resumes to the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from helpers import rows
from loopback import LoopbackLLM, messages_responder
from refine_fakes import make_case, refine_responder


def test_sigkill_mid_run_loses_no_logged_call_and_the_run_resumes(tmp_path):
    case = tmp_path / "case.json"
    case.write_text(make_case().model_dump_json(), encoding="utf-8")
    db = tmp_path / "kill.db"
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "OPENAI_API_KEY": "sk-kill-0000000"}
    with LoopbackLLM(messages_responder(refine_responder()), latency=0.15) as srv:
        env["OPENAI_API_BASE"] = srv.base_url
        base = [sys.executable, "-m", "citefix.cli", "refine"]
        opts = ["--llm", "openai/test-model", "--reviser", "llm", "--db", str(db), "--concurrency", "1", "--json"]
        proc = subprocess.Popen(base + [str(case), "--rounds", "3", "--patience", "0"] + opts, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while srv.stats.answered < 6 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        # answer 6 is round 1's revision (round 0 took 5 calls); its round is not stored before answer 7, 0.15 s later
        time.sleep(0.05)
        answered = srv.stats.answered
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL and answered >= 6
        logged = rows(db, "select count(*) n from calls where cached = 0")[0]["n"]
        # every answer the dead process received is logged, though its round was never written
        assert answered <= logged <= srv.stats.requests, (logged, answered, srv.stats.requests)
        assert rows(db, "pragma integrity_check")[0]["integrity_check"] == "ok"
        run_id = rows(db, "select id from runs")[0]["id"]
        assert rows(db, "select status from runs")[0]["status"] == "running"  # stored as it was…
        r = subprocess.run([sys.executable, "-m", "citefix.cli", "runs", "--db", str(db)], env=env,
                           capture_output=True, text=True, timeout=120)
        assert "interrupted" in r.stdout  # …shown as interrupted: its process is gone
        r = subprocess.run(base + ["--resume", str(run_id)] + opts, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    run = rows(db, "select * from runs")[0]
    assert run["status"] == "finished"
    ns = [x["n"] for x in rows(db, "select n from rounds where run_id = ? order by n", [run_id])]
    assert ns == list(range(len(ns))) and len(ns) >= 2
    assert rows(db, "select count(*) n from calls where cached = 0")[0]["n"] <= srv.stats.requests
