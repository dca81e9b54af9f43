"""One live process works on a run at a time: a second `refine --resume` of a run another process is refining stops at
once with exit 4 and a message, pays for nothing and writes nothing; once the owner is gone, the run resumes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from citefix.cli import main
from citefix.store import Store


def _run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def checked_run(tmp_path, capsys):
    """A stored check of the bundled example (offline), and its store path."""
    db = tmp_path / "s.db"
    rc, out, err = _run(capsys, "check", "--example", "summary", "--db", str(db), "--color", "never")
    assert rc == 0, err
    store = Store(db)
    run_id = store.list_runs()[0].id
    store.close()
    return db, run_id


def test_a_run_another_live_process_works_on_is_not_taken(checked_run, capsys, monkeypatch):
    db, run_id = checked_run
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        store = Store(db)
        store.update_run(run_id, status="running")
        store.update_run(run_id, pid=owner.pid)  # the run is held by another live process on this host
        rounds_before = len(store.rounds(run_id))
        calls_before = len(store.calls(run_id))
        store.close()
        rc, out, err = _run(capsys, "refine", "--resume", str(run_id), "--reviser", "offline", "--rounds", "1",
                            "--db", str(db))
        assert rc == 4, (out, err)
        assert f"run {run_id} is being worked on by another citefix process (pid {owner.pid}" in err, err
        assert "Traceback" not in err and err.count("\n") <= 2
        store = Store(db)
        assert len(store.rounds(run_id)) == rounds_before and len(store.calls(run_id)) == calls_before
        assert store.run(run_id).status == "running" and store.run(run_id).pid == owner.pid
        store.close()
    finally:
        owner.kill()
        owner.wait()
    # the owner is gone: the run reads as interrupted and resumes in this process
    rc, out, err = _run(capsys, "refine", "--resume", str(run_id), "--reviser", "offline", "--rounds", "1",
                        "--db", str(db))
    assert rc == 0, err
    store = Store(db)
    run = store.run(run_id)
    assert run.status == "finished" and run.pid == os.getpid() and len(store.rounds(run_id)) > rounds_before
    store.close()
