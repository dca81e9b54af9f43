"""One builder (citefix.pipeline): the same settings given on the command line and through the TUI's session path
produce the same stored run; a stored run's settings rebuild the RunSettings it was made with."""

from __future__ import annotations

import json

import pytest

from citefix.cli import main
from citefix.config import load_settings
from citefix.inputs import example_path
from citefix.pipeline import RunSettings

RUN_COLUMNS = ("llm", "judge_llm", "decomposer", "verifier", "strategy", "status", "stop_reason", "best_round")


def _cli_run(tmp_path, capsys) -> tuple[str, int]:
    db = str(tmp_path / "parity.db")
    rc = main(["refine", "--example", "summary", "--rounds", "0", "--strategy", "none", "--reviser", "offline",
               "--judge-verifier", "offline:lexical", "--target", "0.9", "--patience", "1", "--verifier", "offline",
               "--decomposer", "clauses", "--json", "--db", db])
    out = capsys.readouterr().out
    assert rc == 0, out
    run_id = json.loads(out.strip().splitlines()[-1])["run_id"]
    return db, run_id


@pytest.mark.slow
def test_cli_and_tui_store_the_same_run_settings(tmp_path, capsys):
    from citefix.store import Store
    from citefix.tui.session import Workbench

    db, cli_run = _cli_run(tmp_path, capsys)
    run = RunSettings(load_settings(db=db, strategy="none", verifier="offline", decomposer="clauses"),
                      reviser="offline", judge_verifier="offline:lexical", max_rounds=0, target=0.9, patience=1)
    store = Store(db)
    try:
        bench = Workbench(run, store)
        session = bench.open_file(example_path("summary"))
        snap = session.check()
        assert snap.run_id is not None and snap.run_id != cli_run
        session.close()
        cli_row, tui_row = store.run(cli_run), store.run(snap.run_id)
        assert json.loads(tui_row.settings) == json.loads(cli_row.settings)
        assert json.loads(cli_row.settings)["judge_verifier"] == "offline:lexical"  # the TUI can choose a judge
        assert json.loads(cli_row.settings)["reviser_name"] == "offline"
        for col in RUN_COLUMNS[:5]:
            assert tui_row.as_dict()[col] == cli_row.as_dict()[col], col
        assert (cli_row.command, tui_row.command) == ("refine", "tui")
        # both rounds 0 were scored by the primary verifier and by the judge
        cli_r0, tui_r0 = store.rounds(cli_run)[0], store.rounds(snap.run_id)[0]
        assert cli_r0.judge_score is not None and tui_r0.score == pytest.approx(cli_r0.score)
        assert tui_r0.judge_score == pytest.approx(cli_r0.judge_score)
    finally:
        store.close()


@pytest.mark.slow
def test_run_settings_rebuilt_from_a_stored_run(tmp_path, capsys):
    from citefix.store import Store

    db, run_id = _cli_run(tmp_path, capsys)
    store = Store(db)
    try:
        rebuilt = RunSettings.from_stored(store, run_id, db=db)
    finally:
        store.close()
    assert (rebuilt.reviser, rebuilt.judge_verifier, rebuilt.max_rounds, rebuilt.target, rebuilt.patience) == \
        ("offline", "offline:lexical", 0, 0.9, 1)
    s = rebuilt.settings
    assert (s.strategy, s.verifier, s.decomposer, s.llm) == ("none", "offline", "clauses", None)
    # what is given wins over what was stored
    store = Store(db)
    try:
        again = RunSettings.from_stored(store, run_id, db=db, rounds=2, reviser="auto")
    finally:
        store.close()
    assert (again.max_rounds, again.reviser, again.judge_verifier) == (2, "auto", "offline:lexical")


@pytest.mark.slow
def test_check_is_a_session_with_zero_rounds(tmp_path):
    """`citefix check` stores its run through the refinement session: one round, no strategy, finished."""
    from citefix.checking import check_case
    from citefix.inputs import load_cases
    from citefix.pipeline import build_pipeline
    from citefix.store import Store

    settings = load_settings(db=str(tmp_path / "c.db"), verifier="offline:lexical", decomposer="clauses")
    store = Store(settings.db)
    try:
        case = load_cases(example_path("summary"))[0]
        seen: list[str] = []
        ev, run_id, failed = check_case(case, build_pipeline(settings, store), store,
                                        on_event=lambda name, data: seen.append(name))
        row = store.run(run_id)
        assert not failed and ev.score is not None
        assert (row.command, row.strategy, row.status, row.best_round) == ("check", None, "finished", 0)
        assert [r.n for r in store.rounds(run_id)] == [0]
        assert "signature" in json.loads(row.settings)
        assert seen[:2] == ["decompose_started", "units_ready"]  # evaluate()'s own events, as before
    finally:
        store.close()
