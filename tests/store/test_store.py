"""The SQLite store: migrations on a blank database, WAL, one transaction per round, runs and show from the store."""

from __future__ import annotations

import os
import sqlite3

import pytest
from cli_helpers import citefix_main
from store_helpers import make_case, make_eval

from citefix.store import Store, default_db_path

EXPECTED = {
    "cases": {"id", "case_id", "kind", "content_hash", "data", "created"},
    "runs": {"id", "case_pk", "command", "status", "created", "finished", "input_path", "llm", "judge_llm", "decomposer",
             "verifier", "strategy", "settings", "best_round", "stop_reason", "pid", "host", "heartbeat"},
    "rounds": {"id", "run_id", "n", "status", "text", "comment", "score", "judge_score", "n_units", "n_unsupported",
               "edit_prev", "edit_orig", "prompt_tokens", "completion_tokens", "cost", "duration_s", "accepted",
               "evaluation", "judge_evaluation", "created"},
    "units": {"id", "round_id", "uid", "idx", "text", "kind", "decomposer", "start", "end", "note", "cited", "sentence",
              "grp", "meta"},
    "verdicts": {"id", "round_id", "unit_row", "uid", "role", "verifier", "score", "label", "discrete", "target",
                 "evidence_source", "evidence_start", "evidence_end", "evidence_text", "unsupported_spans", "details",
                 "error"},
    "scores": {"id", "round_id", "role", "name", "value"},
    "calls": {"id", "run_id", "round_id", "purpose", "model", "prompt_name", "prompt_version", "prompt_hash", "messages",
              "response", "logprobs", "prompt_tokens", "completion_tokens", "latency_ms", "cost", "cached", "attempts",
              "error", "created", "status", "error_class", "attempt", "deployment", "api_base", "router_fallbacks"},
    "llm_cache": {"key", "model", "value", "created"},
    "verdict_cache": {"key", "verifier", "value", "created"},
    "metaeval_runs": {"id", "created", "path", "format", "n_items", "verifiers", "command", "result", "duration_s",
                      "signature"},
    "metaeval_items": {"id", "metaeval_run_id", "item_id", "verifier", "score", "human", "details"},
}


def columns(path, table) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {row[1] for row in conn.execute(f"pragma table_info([{table}])")}


def test_migrate_blank_database(tmp_path):
    path = tmp_path / "blank.db"
    assert not path.exists()
    s = Store(path)
    s.close()
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
        applied = [r[0] for r in conn.execute("select name from _sqlite_migrations order by rowid")]
    assert set(EXPECTED) <= tables
    for table, cols in EXPECTED.items():
        assert cols <= columns(path, table), table
    assert applied[:2] == ["m001_initial", "m002_metaeval"]
    # reopening applies nothing new and keeps data
    s = Store(path)
    s.close()
    with sqlite3.connect(path) as conn:
        again = [r[0] for r in conn.execute("select name from _sqlite_migrations order by rowid")]
    assert again == applied


def test_migrate_a_store_made_before_the_appended_migrations(tmp_path):
    """A store written by the code before the appended migrations (only m001-m003 applied, a run with a logged call)
    opens with every later migration applied in order, its rows kept and the calls table rebuilt with all its
    columns."""
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

    from citefix.store import migrations as mig

    path = tmp_path / "old.db"
    old = Migrations("citefix")
    for name in ("m001_initial", "m002_metaeval", "m003_refine_rounds"):
        old(name=name)(getattr(mig, name))
    db = Database(path)
    old.apply(db)
    case = db["cases"].insert({"case_id": "a", "kind": "summary", "content_hash": "h", "data": "{}",
                               "created": "2026-01-01"}).last_pk
    run = db["runs"].insert({"case_pk": case, "command": "refine", "status": "finished", "created": "2026-01-01",
                             "strategy": "acu", "best_round": 0}).last_pk
    rnd = db["rounds"].insert({"run_id": run, "n": 0, "status": "done", "text": "t", "score": 0.5,
                               "created": "2026-01-01"}).last_pk
    db["calls"].insert({"run_id": run, "round_id": rnd, "purpose": "revise", "model": "m", "prompt_tokens": 10,
                        "completion_tokens": 5, "cost": 0.002, "cached": 0, "attempts": 1, "created": "2026-01-01"})
    db.close()
    Store(path).close()
    with sqlite3.connect(path) as conn:
        applied = [r[0] for r in conn.execute("select name from _sqlite_migrations order by rowid")]
    assert applied == [m.name for m in mig.migrations._migrations]
    assert applied[3:6] == ["m004_call_attempts", "m005_run_liveness", "m006_datasette_views"]
    for table, cols in EXPECTED.items():
        assert cols <= columns(path, table), table
    from helpers import rows

    assert rows(path, "select run_id, round_id, cost, prompt_tokens from calls") == [
        {"run_id": run, "round_id": rnd, "cost": 0.002, "prompt_tokens": 10}]
    got = rows(path, "select calls, retried_attempts, cost from run_costs")[0]
    assert got == {"calls": 1, "retried_attempts": 0, "cost": 0.002}


def test_migrations_are_named_and_append_only():
    from citefix.store.migrations import migrations

    names = [m.name for m in migrations._migrations]
    assert names[:2] == ["m001_initial", "m002_metaeval"]
    assert len(names) == len(set(names))


def test_wal_mode(store):
    assert store.db.execute("pragma journal_mode").fetchone()[0].lower() == "wal"
    assert store.db.execute("pragma foreign_keys").fetchone()[0] == 1


def test_db_path_precedence(tmp_path, monkeypatch):
    assert default_db_path(tmp_path / "x.db") == tmp_path / "x.db"
    monkeypatch.setenv("CITEFIX_HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / "citefix.db"
    monkeypatch.delenv("CITEFIX_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "citefix" / "citefix.db"


def test_unopenable_store_is_a_user_error(tmp_path):
    from citefix.errors import ConfigError

    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ConfigError, match="--db"):
        Store(bad)


# -- rounds ------------------------------------------------------------------------------------------------------------


def counts(store) -> dict[str, int]:
    return {t: store.db[t].count for t in ("rounds", "units", "verdicts", "scores", "calls")}


def test_write_round_stores_everything(store):
    case = make_case()
    run_id = store.start_run(case, "check")
    rid = store.write_round(run_id, 0, make_eval(case))
    assert counts(store) == {"rounds": 1, "units": 2, "verdicts": 2, "scores": 2, "calls": 1}
    v = {r["uid"]: r for r in store.db["verdicts"].rows_where("round_id = ?", [rid])}
    assert v["u1"]["evidence_text"] == "The depot closed in 1987." and v["u1"]["discrete"] == 0
    assert v["u1"]["unit_row"] is not None
    round_row = store.rounds(run_id)[0]
    assert round_row.n_unsupported == 1 and round_row.prompt_tokens == 10
    back = store.evaluation(run_id)
    assert back.model_dump() == make_eval(case).model_dump()
    assert store.case_for_run(run_id) == case


def test_write_round_is_atomic(store, monkeypatch):
    case = make_case()
    run_id = store.start_run(case, "check")
    before = counts(store)

    def boom(*a, **k):  # fails after the round, its units, verdicts and scores are inserted
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "write_calls", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.write_round(run_id, 0, make_eval(case))
    assert counts(store) == before
    monkeypatch.undo()
    store.write_round(run_id, 0, make_eval(case))  # and the store still works, with the same round number
    assert counts(store)["rounds"] == 1


def test_write_round_rolls_back_on_a_constraint_violation(store):
    case = make_case()
    run_id = store.start_run(case, "check")
    store.write_round(run_id, 0, make_eval(case))
    before = counts(store)
    with pytest.raises(sqlite3.IntegrityError):
        store.write_round(run_id, 0, make_eval(case))  # round 0 again: unique (run_id, n)
    assert counts(store) == before


def test_write_round_rolls_back_a_bad_unit_row(store, monkeypatch):
    """A unit whose insert breaks a constraint half-way through the round leaves nothing behind."""
    case = make_case()
    run_id = store.start_run(case, "check")
    store.db.execute("create trigger no_u2 before insert on units when new.uid = 'u2' "
                     "begin select raise(abort, 'unit u2 refused'); end")
    before = counts(store)
    with pytest.raises(sqlite3.IntegrityError):
        store.write_round(run_id, 0, make_eval(case))
    assert counts(store) == before


def test_reading_a_missing_run_says_how_to_list_runs(store):
    from citefix.errors import InputError

    with pytest.raises(InputError, match="citefix runs"):
        store.run(999)


# -- runs and show, through the CLI -------------------------------------------------------------------------------------


def cli(*args, env=None, input=None):
    return citefix_main(*args, env=env, input=input)


@pytest.mark.slow
def test_show_reprints_check_and_runs_lists_it(tmp_path):
    """Offline default for real on the bundled example; `show` from the store alone prints the same report."""
    db = tmp_path / "s.db"
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home")}
    checked = cli("check", "--example", "summary", "--db", str(db), env=env)
    assert checked.returncode == 0, checked.stderr
    assert "Traceback" not in checked.stderr
    assert "[[- " in checked.stdout  # the invented detail is marked
    assert "Stored as run 1" in checked.stdout
    shown = cli("show", "1", "--db", str(db), env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == checked.stdout
    runs = cli("runs", "--db", str(db), env=env)
    assert runs.returncode == 0 and "harwick-depot" in runs.stdout and "check" in runs.stdout
    runs_json = cli("runs", "--json", "--db", str(db), env=env)
    import json

    rows = [json.loads(line) for line in runs_json.stdout.splitlines()]
    assert [r["id"] for r in rows] == [1] and rows[0]["status"] == "finished" and rows[0]["n_rounds"] == 1
    missing = cli("show", "42", "--db", str(db), env=env)
    assert missing.returncode == 2 and "citefix runs" in missing.stderr and "Traceback" not in missing.stderr


def test_runs_on_an_empty_store(tmp_path):
    r = cli("runs", "--db", str(tmp_path / "e.db"))
    assert r.returncode == 0 and "no runs" in r.stdout
