"""Stores that wait: several processes writing one SQLite file (and a holder of its write lock) never crash; a store
still locked after CITEFIX_STORE_WAIT exits 4 with one line; read-only commands create nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest
from helpers import rows
from store_helpers import HOLDER, TUI_WRITER

WRITER = textwrap.dedent(
    """
    import sys, time
    from citefix.models import CallRecord, Case, Evaluation, Source, Unit, Verdict
    from citefix.store import Store

    path, who, m = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Store(path)  # every process opens (and migrates) the new file at the same moment
    for i in range(m):
        case = Case(id=f"c-{i % 3}", sources=[Source(id="1", title="t", text="The depot closed in 1987.")],
                    text=f"The depot closed in 1987. ({i})")  # the same cases in every process
        run = store.start_run(case, "check", verifier="offline")
        units = [Unit(id=f"u{k}", text=f"unit {k}", kind="acu", decomposer="x", start=0, end=4) for k in range(3)]
        ev = Evaluation(case_id=case.id, kind="summary", text=case.text, units=units,
                        verdicts=[Verdict(unit_id=u.id, verifier="offline", score=0.5, label="partial") for u in units],
                        score=0.5)
        store.write_round(run, 0, ev, calls=[CallRecord(purpose="verify", model="m", messages=[], response="Yes")])
        store.llm_cache().put(f"{who}-{i}", "m", {"text": "Yes"})
        store.verdict_cache_put(f"v-{who}-{i}", "offline", {"score": 0.5})
        store.finish_run(run, "finished", best_round=0, stop_reason="ok")
    print("ok", who)
    """
)

def _env(tmp_path, **extra):
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG"):
        env.pop(var, None)
    return env


def test_many_writer_processes_and_a_lock_holder_share_one_store(tmp_path):
    db = tmp_path / "shared.db"
    n_proc, m_rounds, hold = 4, 12, 3.0
    env = _env(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(hold)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), f"w{k}", str(m_rounds)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(n_proc)]
    outs = [(p.wait(timeout=240), *p.communicate()) for p in writers]
    h_out = holder.communicate(timeout=60)
    assert holder.returncode == 0 and "holding" in h_out[0], h_out
    for rc, out, err in outs:
        assert rc == 0 and "Traceback" not in err, err
    assert rows(db, "select count(*) n from runs where status = 'finished'")[0]["n"] == n_proc * m_rounds
    assert rows(db, "select count(*) n from rounds")[0]["n"] == n_proc * m_rounds
    assert rows(db, "select count(*) n from units")[0]["n"] == 3 * n_proc * m_rounds
    assert rows(db, "select count(*) n from calls")[0]["n"] == n_proc * m_rounds
    assert rows(db, "select count(*) n from cases")[0]["n"] == m_rounds  # shared cases stored once
    assert rows(db, "select count(distinct name) n from _sqlite_migrations")[0]["n"] == \
        rows(db, "select count(*) n from _sqlite_migrations")[0]["n"]
    assert rows(db, "pragma integrity_check")[0]["integrity_check"] == "ok"


def test_tui_sessions_and_a_cli_check_share_one_store(tmp_path):
    """N processes driving the TUI's session code (Workbench/Session: check, edit, propose, accept,
    auto-refine, close) × M cases, a `citefix check` CLI process and a 3 s holder of the write lock, all on one new
    store file at once: 0 crashes, every run finished with all its rounds, the store's integrity intact."""
    import json
    from pathlib import Path

    db = tmp_path / "shared.db"
    n_proc, m_cases, hold = 4, 6, 3.0
    env = _env(tmp_path)
    tests_dir = str(Path(__file__).resolve().parents[1])  # the tests root, where the helpers are
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(hold)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    cli_check = subprocess.Popen([sys.executable, "-m", "citefix.cli", "check", "--example", "summary", "--json",
                                  "--db", str(db)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tui = [subprocess.Popen([sys.executable, "-c", TUI_WRITER, str(db), f"t{k}", str(m_cases), tests_dir], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(n_proc)]
    outs = [(p.wait(timeout=300), *p.communicate()) for p in tui]
    c_out = cli_check.communicate(timeout=300)
    h_out = holder.communicate(timeout=60)
    assert holder.returncode == 0 and "holding" in h_out[0], h_out
    assert cli_check.returncode == 0 and "Traceback" not in c_out[1], c_out[1]
    cli_run = json.loads(c_out[0].splitlines()[0])["run_id"]
    tui_runs = []
    for rc, out, err in outs:
        assert rc == 0 and "Traceback" not in err, err
        tui_runs += json.loads(out)["runs"]
    assert len(tui_runs) == n_proc * m_cases and len({r["run"] for r in tui_runs}) == n_proc * m_cases
    assert all(r["rounds"] == [0, 1, 2, 3] for r in tui_runs), tui_runs
    runs = rows(db, "select id, command, status, best_round from runs order by id")
    assert len(runs) == n_proc * m_cases + 1
    assert sorted(r["id"] for r in runs if r["command"] == "tui") == sorted(r["run"] for r in tui_runs)
    assert all(r["status"] == "finished" and r["best_round"] is not None for r in runs), runs
    assert next(r for r in runs if r["id"] == cli_run)["command"] == "check"
    per_run = rows(db, "select run_id, count(*) n, sum(status in ('done', 'edited') and score is not null) done "
                       "from rounds group by run_id")  # every round complete and scored (none partial)
    assert {r["run_id"]: (r["n"], r["done"]) for r in per_run} == \
        {**{r["run"]: (4, 4) for r in tui_runs}, cli_run: (1, 1)}
    assert rows(db, "select count(*) n from calls where run_id is null or run_id not in (select id from runs)")[0]["n"] == 0
    assert rows(db, "select count(*) n from cases")[0]["n"] == 2  # the plan case (content hash) and the example
    assert rows(db, "select count(distinct name) n from _sqlite_migrations")[0]["n"] == \
        rows(db, "select count(*) n from _sqlite_migrations")[0]["n"]
    assert rows(db, "pragma integrity_check")[0]["integrity_check"] == "ok"


def test_check_waits_for_a_writer_holding_the_lock(tmp_path):
    """A real `citefix check` while another connection holds the write lock for 3 s: it waits, then stores its run."""
    db = tmp_path / "s.db"
    env = _env(tmp_path)
    first = subprocess.run([sys.executable, "-m", "citefix.cli", "check", "--example", "summary", "--db", str(db)],
                           env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "3"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    r = subprocess.run([sys.executable, "-m", "citefix.cli", "check", "--example", "summary", "--db", str(db)],
                       env=env, capture_output=True, text=True, timeout=300)
    holder.communicate(timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert rows(db, "select count(*) n from runs where status = 'finished'")[0]["n"] == 2


def test_store_still_busy_exits_4_with_one_line(tmp_path):
    from citefix.store import Store

    db = tmp_path / "busy.db"
    Store(db).close()
    env = _env(tmp_path, CITEFIX_STORE_WAIT="1")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "8"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        script = ("import sys; from citefix.cli import main; sys.exit(main(['check', '--source', sys.argv[1], "
                  "'--summary', sys.argv[1], '--db', sys.argv[2]]))")
        src = tmp_path / "a.txt"
        src.write_text("The depot closed in 1987.", encoding="utf-8")
        started = time.monotonic()
        r = subprocess.run([sys.executable, "-c", script, str(src), str(db)], env=env, capture_output=True, text=True,
                           timeout=120)
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.communicate()
    assert r.returncode == 4, (r.returncode, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "locked" in lines[0] and "CITEFIX_STORE_WAIT" in lines[0], r.stderr
    assert took < 60


def test_store_wait_variable_is_validated_by_name(tmp_path, monkeypatch):
    from citefix.errors import ConfigError
    from citefix.store import Store

    monkeypatch.setenv("CITEFIX_STORE_WAIT", "soon")
    with pytest.raises(ConfigError, match="CITEFIX_STORE_WAIT"):
        Store(tmp_path / "x.db")


def test_write_transactions_begin_immediate(tmp_path):
    """Every write takes the write lock first: a statement trace shows BEGIN IMMEDIATE before each write."""
    from citefix.models import Case, Evaluation, Source
    from citefix.store import Store

    store = Store(tmp_path / "t.db")
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    case = Case(id="a", sources=[Source(id="1", title="t", text="x y z")], text="x y")
    run = store.start_run(case, "check")
    store.write_round(run, 0, Evaluation(case_id="a", kind="summary", text="x y"))
    store.finish_run(run, "finished")
    store.llm_cache().put("k", "m", {"text": "Yes"})
    begins = [s for s in seen if s.strip().upper().startswith("BEGIN")]
    assert begins and all(s.strip().upper() == "BEGIN IMMEDIATE" for s in begins), begins
    assert len(begins) == 4  # start_run (case + run in one), round, finish, cache put


def test_read_only_commands_create_nothing(tmp_path):
    from cli_helpers import cli

    r = cli("show", "1", "--db", "typo/x.db", tmp_path=tmp_path)
    assert r.returncode == 2 and "typo/x.db" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "typo").exists()
    r = cli("export", "1", "--db", "typo/x.db", tmp_path=tmp_path)
    assert r.returncode == 2 and not (tmp_path / "typo").exists()
    r = cli("runs", tmp_path=tmp_path)
    assert r.returncode == 0 and "no runs" in r.stdout
    assert not (tmp_path / "home").exists()


def test_read_only_store_file_is_a_user_error(tmp_path):
    """check on a store the process cannot write: exit 2 naming the store, not a sqlite traceback."""
    from cli_helpers import cli

    from citefix.store import Store

    db = tmp_path / "ro.db"
    Store(db).close()
    os.chmod(db, 0o444)
    immutable = False
    if os.geteuid() == 0:  # root ignores permission bits: make the file immutable instead, where the fs allows it
        immutable = subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode == 0
        if not immutable:
            pytest.skip("running as root on a filesystem without chattr: cannot make a read-only file")
    try:
        r = cli("check", "--example", "summary", "--db", str(db), tmp_path=tmp_path)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(db)])
        os.chmod(db, 0o644)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "read-only" in r.stderr and str(db) in r.stderr and "Traceback" not in r.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from runs").fetchone()[0] == 0
