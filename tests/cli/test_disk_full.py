"""A full disk is an environment error with its own message and exit code (6), not "a bug"; the run it cut short
says so in the store where the store can still be written."""

from __future__ import annotations

import sqlite3

from citefix.cli import main
from citefix.store import Store


def test_a_full_disk_is_its_own_error_and_the_run_reads_interrupted(tmp_path, capsys, monkeypatch):
    db = tmp_path / "s.db"
    Store(db).close()  # the schema, at its full size
    pages = sqlite3.connect(db).execute("pragma page_count").fetchone()[0]
    opened = Store.__init__

    def tight(self, *args, **kw):  # the store's file may grow by a few pages only: SQLite's "database or disk is full"
        opened(self, *args, **kw)
        self.db.conn.execute(f"pragma max_page_count = {pages + 3}")

    monkeypatch.setattr(Store, "__init__", tight)
    rc = main(["check", "--example", "summary", "--db", str(db), "--color", "never"])
    err = capsys.readouterr().err
    assert rc == 6, err
    assert "the disk is full" in err and "internal error" not in err and "Traceback" not in err
    monkeypatch.undo()
    store = Store(db)
    runs = store.list_runs()
    assert runs and all(r.status == "interrupted" for r in runs), [(r.id, r.status) for r in runs]
    assert store.run(runs[0].id).stop_reason == "disk_full"
    store.close()
