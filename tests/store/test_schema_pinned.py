"""The store's schema, pinned: the exact migration list (names, in order) and every table's columns (name and type, in
order), views and foreign keys after all migrations, read from a real SQLite file that `Store` migrated.

Migrations are append-only (store/migrations.py): renaming (without an entry in RENAMED), reordering or editing a
shipped one, or dropping a column, breaks an existing user's store, so this test fails on any of those. A NEW migration appended at the end is the one
legitimate change: add its name to MIGRATIONS and its tables or columns below, in the same commit.
"""

from __future__ import annotations

import pytest
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from citefix.store import Store
from citefix.store import migrations as mig

MIGRATIONS = [
    "m001_initial",
    "m002_metaeval",
    "m003_refine_rounds",
    "m004_call_attempts",
    "m005_run_liveness",
    "m006_datasette_views",
    "m007_call_deployment",
]

# table -> its columns in order, "name TYPE" ("*" marks the primary key)
TABLES = {
    "_sqlite_migrations": ["id INTEGER*", "migration_set TEXT", "name TEXT", "applied_at TEXT"],
    "cases": ["id INTEGER*", "case_id TEXT", "kind TEXT", "content_hash TEXT", "data TEXT", "created TEXT"],
    "runs": ["id INTEGER*", "case_pk INTEGER", "command TEXT", "status TEXT", "created TEXT", "finished TEXT",
             "input_path TEXT", "llm TEXT", "judge_llm TEXT", "decomposer TEXT", "verifier TEXT", "strategy TEXT",
             "settings TEXT", "best_round INTEGER", "stop_reason TEXT", "pid INTEGER", "host TEXT", "heartbeat TEXT"],
    "rounds": ["id INTEGER*", "run_id INTEGER", "n INTEGER", "status TEXT", "text TEXT", "comment TEXT", "score REAL",
               "judge_score REAL", "n_units INTEGER", "n_unsupported INTEGER", "edit_prev INTEGER", "edit_orig INTEGER",
               "prompt_tokens INTEGER", "completion_tokens INTEGER", "cost REAL", "duration_s REAL", "accepted INTEGER",
               "evaluation TEXT", "judge_evaluation TEXT", "created TEXT", "parent INTEGER", "strategy TEXT"],
    "units": ["id INTEGER*", "round_id INTEGER", "uid TEXT", "idx INTEGER", "text TEXT", "kind TEXT", "decomposer TEXT",
              "start INTEGER", "end INTEGER", "note TEXT", "cited TEXT", "sentence INTEGER", "grp INTEGER",
              "meta TEXT"],
    "verdicts": ["id INTEGER*", "round_id INTEGER", "unit_row INTEGER", "uid TEXT", "role TEXT", "verifier TEXT",
                 "score REAL", "label TEXT", "discrete INTEGER", "target TEXT", "evidence_source TEXT",
                 "evidence_start INTEGER", "evidence_end INTEGER", "evidence_text TEXT", "unsupported_spans TEXT",
                 "details TEXT", "error TEXT"],
    "scores": ["id INTEGER*", "round_id INTEGER", "role TEXT", "name TEXT", "value REAL"],
    "llm_cache": ["key TEXT*", "model TEXT", "value TEXT", "created TEXT"],
    "verdict_cache": ["key TEXT*", "verifier TEXT", "value TEXT", "created TEXT"],
    "metaeval_runs": ["id INTEGER*", "created TEXT", "path TEXT", "format TEXT", "n_items INTEGER", "verifiers TEXT",
                      "command TEXT", "result TEXT", "duration_s REAL", "signature TEXT"],
    "metaeval_items": ["id INTEGER*", "metaeval_run_id INTEGER", "item_id TEXT", "verifier TEXT", "score REAL",
                       "human TEXT", "details TEXT"],
    "calls": ["id INTEGER*", "run_id INTEGER", "round_id INTEGER", "purpose TEXT", "model TEXT", "prompt_name TEXT",
              "prompt_version TEXT", "prompt_hash TEXT", "messages TEXT", "response TEXT", "logprobs TEXT",
              "prompt_tokens INTEGER", "completion_tokens INTEGER", "latency_ms REAL", "cost REAL", "cached INTEGER",
              "attempts INTEGER", "error TEXT", "created TEXT", "status TEXT", "error_class TEXT", "attempt INTEGER",
              "deployment TEXT", "api_base TEXT", "router_fallbacks INTEGER"],
}

VIEWS = ["round_scores", "run_costs", "strategy_round_scores"]

FOREIGN_KEYS = [
    ("calls.round_id", "rounds.id"), ("calls.run_id", "runs.id"),
    ("metaeval_items.metaeval_run_id", "metaeval_runs.id"),
    ("rounds.run_id", "runs.id"), ("runs.case_pk", "cases.id"), ("scores.round_id", "rounds.id"),
    ("units.round_id", "rounds.id"), ("verdicts.round_id", "rounds.id"), ("verdicts.unit_row", "units.id"),
]


def schema(db: Database) -> dict:
    """What the pins compare: applied migrations in order, tables with their ordered columns, views, foreign keys."""
    return {
        "migrations": [r[0] for r in db.execute("select name from _sqlite_migrations order by id")],
        "tables": {t: [f"{c.name} {c.type}{'*' if c.is_pk else ''}" for c in db[t].columns] for t in db.table_names()},
        "views": sorted(db.view_names()),
        "foreign_keys": sorted((f"{fk.table}.{fk.column}", f"{fk.other_table}.{fk.other_column}")
                               for t in db.table_names() for fk in db[t].foreign_keys),
    }


PINNED = {"migrations": MIGRATIONS, "tables": TABLES, "views": VIEWS, "foreign_keys": FOREIGN_KEYS}


def test_declared_migrations_are_the_pinned_list():
    assert [m.name for m in mig.migrations._migrations] == MIGRATIONS


def test_a_migrated_store_has_exactly_the_pinned_schema(tmp_path):
    path = tmp_path / "pinned.db"
    Store(path).close()
    got = schema(Database(path))
    assert got["migrations"] == MIGRATIONS
    assert set(got["tables"]) == set(TABLES)
    for table, cols in TABLES.items():
        assert got["tables"][table] == cols, table
    assert got["views"] == VIEWS
    assert got["foreign_keys"] == sorted(FOREIGN_KEYS)


def _store_from(tmp_path, steps: list[tuple[str, str]]) -> dict:
    """A store migrated by a different migration list: (name it is registered under, function in migrations.py)."""
    other = Migrations("citefix")
    for name, fn in steps:
        other(name=name)(getattr(mig, fn))
    db = Database(tmp_path / "other.db")
    other.apply(db)
    return schema(db)


@pytest.mark.parametrize("change", ["renamed", "reordered", "column dropped"])
def test_the_pins_catch_a_changed_migration_list(tmp_path, change):
    """The comparison above can fail: a store built by a renamed, reordered or shortened list does not match."""
    steps = [(n, n) for n in MIGRATIONS]
    if change == "renamed":
        steps[3] = ("m004_attempts", MIGRATIONS[3])
    elif change == "reordered":
        steps[3], steps[4] = steps[4], steps[3]
    else:
        steps = steps[:-1]  # without m007_call_deployment: calls loses deployment, api_base, router_fallbacks
    got = _store_from(tmp_path, steps)
    assert got != PINNED
    if change == "column dropped":
        assert got["tables"]["calls"] != TABLES["calls"] and got["migrations"] == MIGRATIONS[:-1]
    else:
        assert got["migrations"] != MIGRATIONS


def test_the_same_list_built_that_way_matches(tmp_path):
    """The control for the test above: the unchanged list, applied the same way, matches the pins."""
    assert _store_from(tmp_path, [(n, n) for n in MIGRATIONS]) == PINNED


def test_a_store_that_recorded_the_earlier_migration_names_opens_and_takes_todays(tmp_path, capsys):
    """Four migrations were registered under other names; a store made then (every migration applied, a run in it)
    is read without an upgrade, and its migration list reads today's names after a write command opened it."""
    from citefix.cli import main

    steps = [(next((old for old, new in mig.RENAMED.items() if new == n), n), n) for n in MIGRATIONS]
    assert sum(a != b for a, b in steps) == 4
    other = Migrations("citefix")
    for name, fn in steps:
        other(name=name)(getattr(mig, fn))
    path = tmp_path / "earlier.db"
    db = Database(path)
    other.apply(db)
    db.close()
    assert mig.pending(Database(path)) == []
    rc = main(["runs", "--db", str(path)])
    out = capsys.readouterr()
    assert rc == 0 and "upgraded" not in out.err, out
    rc = main(["check", "--example", "summary", "--db", str(path), "--color", "never"])
    assert rc == 0, capsys.readouterr().err
    capsys.readouterr()
    got = schema(Database(path))
    assert got == {**PINNED, "migrations": MIGRATIONS}
    assert main(["runs", "--db", str(path)]) == 0 and "summary" in capsys.readouterr().out
