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


def test_a_rejected_proposal_is_never_shown_as_the_best_round(capsys, tmp_path):
    """A TUI run whose round 1 (a higher score) was rejected: `show` and the Markdown export name round 0 as the
    best, and `show` prints round 0's text."""
    from citefix.models import Case, Evaluation, Source, Unit, Verdict
    from citefix.store import Store

    case = Case(id="c1", sources=[Source(id="1", text="The depot closed in 1987.")], text="The depot closed in 1987.")

    def ev(text: str, score: float) -> Evaluation:
        u = Unit(id="u1", text=text.rstrip("."), kind="clause", decomposer="d", start=0, end=len(text) - 1)
        v = Verdict(unit_id="u1", verifier="v", score=score, label="supported" if score > 0.5 else "unsupported")
        return Evaluation(case_id=case.id, kind="summary", text=text, units=[u], verdicts=[v], score=score,
                          scores={"unit_mean": score}, decomposer="d", verifier="v")

    db = tmp_path / "s.db"
    store = Store(db)
    run = store.start_run(case, "tui")
    store.write_round(run, 0, ev("The depot closed in 1987.", 0.6))
    store.write_round(run, 1, ev("The depot shut in 1987.", 0.9), accepted=False, parent=0, status="rejected")
    store.finish_run(run, "finished", best_round=None)

    rc, out, err = _run(capsys, "show", str(run), "--rounds", "--db", str(db))
    assert rc == 0, err
    assert "best round: 0" in out and "best round: 1" not in out, out
    rc, out, err = _run(capsys, "show", str(run), "--db", str(db))
    assert rc == 0 and "closed in 1987" in out and "shut" not in out, out
    # the Markdown export lists the rejected round as rejected, never as part of the text's history
    rc, out, err = _run(capsys, "export", str(run), "--format", "md", "--db", str(db))
    assert rc == 0, err
    assert "- best round: 0" in out and "| 1 | 0.900 | 1 | 0 | — | rejected |" in out, out
    assert "## Round 1 (rejected: not part of the text's history)" in out, out


def test_a_store_made_by_an_earlier_citefix_is_upgraded_and_read(capsys, tmp_path):
    """A store whose schema is an earlier one (only the first migration applied): `runs` upgrades it, says so on
    stderr, and lists; a second `runs` has nothing to upgrade."""
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

    from citefix.store.migrations import migrations

    db = tmp_path / "old.db"
    first = migrations._migrations[0]
    early = Migrations("citefix")
    early(name=first.name)(first.fn)
    early.apply(Database(db))
    rc, out, err = _run(capsys, "runs", "--db", str(db))
    assert rc == 0, err
    assert "upgraded the store" in err and "no runs in" in out, (out, err)
    rc, out, err = _run(capsys, "runs", "--db", str(db))
    assert rc == 0 and "upgraded" not in err, err
