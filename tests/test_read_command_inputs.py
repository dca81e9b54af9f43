"""Read commands (`runs`, `show`, `export`) on inputs a user can get wrong: a run id out of SQLite's range, a round
the run does not have, a store path that holds no citefix store. Each is one clear line and exit code 2, never an
internal error."""

import sqlite3

import pytest

from citefix.cli import main


def _run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_a_run_id_beyond_sqlite_integers_is_a_usage_error(capsys, tmp_path):
    with pytest.raises(SystemExit) as info:
        main(["show", "9223372036854775808", "--db", str(tmp_path / "s.db")])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "is not a run id" in err and "9223372036854775807" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        main(["export", "0", "--db", str(tmp_path / "s.db")])
    assert "is not a run id" in capsys.readouterr().err


def test_a_round_the_run_does_not_have_names_the_rounds_it_has(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    rc, out, err = _run(capsys, "check", "--example", "summary", "--db", db)
    assert rc in (0, 1), err
    rc, out, err = _run(capsys, "show", "1", "--round", "99", "--db", db)
    assert rc == 2, (out, err)
    assert "has no round 99" in err and "it has rounds [0]" in err and "internal error" not in err


@pytest.mark.parametrize("kind", ["empty", "other sqlite"])
def test_runs_on_a_file_that_is_not_a_store_says_so(capsys, tmp_path, kind):
    path = tmp_path / "x.db"
    if kind == "empty":
        path.touch()
    else:
        con = sqlite3.connect(path)
        con.execute("create table notes (a)")
        con.commit()
        con.close()
    before = path.read_bytes()
    rc, out, err = _run(capsys, "runs", "--db", str(path))
    assert rc == 2, (out, err)
    assert "is not a citefix store" in err and ("empty file" if kind == "empty" else "without citefix's tables") in err
    assert "internal error" not in err
    assert path.read_bytes() == before  # nothing written to someone else's file
